// Two `up`s on one folder at once (a developer and a test run) must not both start a cluster:
// the second waits for the first, then finds its processes and reuses them.
import { openSync, closeSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { SandboxError } from './errors.js';

function holderAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function withUpLock<T>(lockFile: string, progress: (line: string) => void, body: () => Promise<T>, waitMs = 600_000): Promise<T> {
  const deadline = Date.now() + waitMs;
  let told = false;
  for (;;) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let text: string;
      try {
        text = readFileSync(lockFile, 'utf8').trim();
      } catch {
        continue; // released between our open and our read
      }
      const holder = Number(text);
      if (text === '') {
        await sleep(100); // the holder has created the file but not written its pid yet
        continue;
      }
      if (!Number.isInteger(holder) || !holderAlive(holder)) {
        rmSync(lockFile, { force: true });
        continue;
      }
      if (Date.now() >= deadline) throw new SandboxError('E_SANDBOX_BUSY', `another \`offsetctl sandbox up\` (pid ${holder}) holds ${lockFile}; wait for it or remove the file if that process is not offsetctl`);
      if (!told) progress(`waiting for another \`offsetctl sandbox up\` (pid ${holder}) to finish`);
      told = true;
      await sleep(1000);
    }
  }
  try {
    return await body();
  } finally {
    rmSync(lockFile, { force: true });
  }
}
