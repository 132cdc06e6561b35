// The JVM processes: started detached as leaders of their own process group (so `up` can return
// and `down` can stop a process with everything it forked), recognised again by a marker in
// their command line (so a recycled pid after a reboot is never signalled).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** The system property that tags every sandbox JVM with its sandbox folder. */
export function markerArg(dir: string): string {
  return `-Doffsetctl.sandbox.dir=${dir}`;
}

/** Starts `command args` detached with stdout and stderr appended to `logFile`; returns its pid. */
export function spawnDetached(command: string, args: string[], logFile: string, cwd: string): number {
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(command, args, { cwd, detached: true, stdio: ['ignore', fd, fd] });
    if (child.pid === undefined) throw new Error(`could not start ${command}`);
    child.unref();
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/**
 * True when `pid` is alive and is a sandbox process of `dir`. On Linux the command line is
 * checked for the marker; elsewhere only liveness can be checked.
 */
export function isSandboxProcess(pid: number, dir: string): boolean {
  if (!Number.isInteger(pid) || pid <= 1) return false;
  const cmdlineFile = `/proc/${pid}/cmdline`;
  if (existsSync('/proc/self/cmdline')) {
    try {
      return readFileSync(cmdlineFile, 'utf8').split('\0').includes(markerArg(dir));
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Signals a whole process group; a group that is already gone is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGTERM to each group, SIGKILL to those still alive after `graceMs`; resolves when every group
 * is gone. Only pids that still carry this sandbox's marker are signalled.
 */
export async function stopGroups(pids: number[], dir: string, graceMs: number): Promise<{ killed: number[] }> {
  const own = pids.filter((pid) => isSandboxProcess(pid, dir));
  for (const pid of own) signalGroup(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (own.some(groupAlive) && Date.now() < deadline) await sleep(200);
  const killed = own.filter(groupAlive);
  for (const pid of killed) signalGroup(pid, 'SIGKILL');
  const hardDeadline = Date.now() + 5000;
  while (own.some(groupAlive) && Date.now() < hardDeadline) await sleep(100);
  return { killed };
}

/** The last `lines` lines of a log file ('' when it does not exist). */
export function tailFile(file: string, lines: number): string {
  if (!existsSync(file)) return '';
  const size = statSync(file).size;
  const fd = openSync(file, 'r');
  try {
    const length = Math.min(size, 256 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8').split('\n').slice(-lines - 1).join('\n').trimEnd();
  } finally {
    closeSync(fd);
  }
}
