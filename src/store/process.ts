// The default lock holder and liveness check for a store on this machine: the current process,
// and "is that process still there" (signal 0 checks existence without touching it). Another
// host's process cannot be checked from here, so its lock counts as alive.
import { hostname } from 'node:os';
import type { LockHolder } from './types.js';

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function thisProcess(): LockHolder {
  return { pid: process.pid, hostname: hostname() };
}

export function localHolderAlive(holder: LockHolder): boolean {
  return holder.hostname !== hostname() || isProcessAlive(holder.pid);
}
