// Is the process that holds a lock still there? Signal 0 checks existence without touching it.
import { hostname } from 'node:os';

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function thisHost(): string {
  return hostname();
}
