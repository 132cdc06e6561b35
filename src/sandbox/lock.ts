// Two `up`s on one folder at once (a developer and a test run) must not both start a cluster:
// the second waits for the first, then finds its processes and reuses them.
//
// The lock is a file holding the holder's pid, created with O_EXCL. A holder that died leaves
// its file behind; removing it is the dangerous part: two waiters that both saw the dead pid
// could each remove the file — the second removing the lock the first had just re-created — and
// both would believe they hold it. So breaking a stale lock is itself exclusive: only the waiter
// that creates `<lock>.break-<dead pid>` (O_EXCL) may remove the lock, and only after reading it
// again and finding the same dead pid. Nobody else removes a lock holding that pid, so the read
// and the removal cannot be separated by another waiter's change.
import { openSync, closeSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { SandboxError } from './errors.js';

function holderAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface UpLockHooks {
  /** Called when a waiter has seen a dead holder, before it tries to break the lock (tests order waiters with it). */
  staleSeen?: (deadPid: number) => Promise<void>;
}

export async function withUpLock<T>(lockFile: string, progress: (line: string) => void, body: () => Promise<T>, waitMs = 600_000, hooks: UpLockHooks = {}): Promise<T> {
  const deadline = Date.now() + waitMs;
  let told = false;
  for (;;) {
    if (createExclusive(lockFile, String(process.pid))) break;
    const text = readText(lockFile);
    if (text === undefined) continue; // released between our open and our read
    if (text === '') {
      await sleep(100); // the holder has created the file but not written its pid yet
      continue;
    }
    const holder = Number(text);
    if (!Number.isInteger(holder) || !holderAlive(holder)) {
      await hooks.staleSeen?.(holder);
      if (!breakStaleLock(lockFile, text)) await sleep(100);
      continue;
    }
    if (Date.now() >= deadline) throw new SandboxError('E_SANDBOX_BUSY', `another \`offsetctl sandbox up\` (pid ${holder}) holds ${lockFile}; wait for it or remove the file if that process is not offsetctl`);
    if (!told) progress(`waiting for another \`offsetctl sandbox up\` (pid ${holder}) to finish`);
    told = true;
    await sleep(1000);
  }
  try {
    return await body();
  } finally {
    rmSync(lockFile, { force: true });
  }
}

/** True when the file was created by this call (O_EXCL) with `content`. */
function createExclusive(file: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Removes the lock if it still holds `stale`, as the only waiter allowed to; true when this call
 * broke it. A break file whose own creator died is cleared so the next waiter can try.
 */
function breakStaleLock(lockFile: string, stale: string): boolean {
  const guard = `${lockFile}.break-${stale.replace(/[^0-9A-Za-z_-]/g, '_') || 'empty'}`;
  if (!createExclusive(guard, String(process.pid))) {
    const breaker = Number(readText(guard));
    if (Number.isInteger(breaker) && breaker > 0 && !holderAlive(breaker)) rmSync(guard, { force: true });
    return false;
  }
  try {
    if (readText(lockFile) !== stale) return false;
    rmSync(lockFile, { force: true });
    return true;
  } finally {
    rmSync(guard, { force: true });
  }
}
