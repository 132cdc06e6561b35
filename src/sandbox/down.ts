// `offsetctl sandbox down`: stops exactly the process groups recorded in the state file (workers
// first, so they leave their group cleanly while the broker still answers), then waits until no
// listener remains on the sandbox's ports. Ports stay recorded for the next `up`.
import { SandboxError } from './errors.js';
import { resolveSandboxDir, sandboxLayout } from './layout.js';
import { waitUntilClosed } from './ports.js';
import { isSandboxProcess, stopGroups } from './processes.js';
import { readState, writeState } from './state.js';

export interface SandboxDownResult {
  dir: string;
  /** Roles that were running and have been stopped. */
  stopped: string[];
  /** Roles that needed SIGKILL after the grace period. */
  killed: string[];
  durationMs: number;
}

export async function sandboxDown(options: { dir?: string; graceMs?: number; progress?: (line: string) => void } = {}): Promise<SandboxDownResult> {
  const started = performance.now();
  const dir = resolveSandboxDir(options.dir);
  const layout = sandboxLayout(dir);
  const progress = options.progress ?? (() => {});
  const state = readState(layout.stateFile);
  if (!state || state.processes.length === 0) return { dir, stopped: [], killed: [], durationMs: 0 };
  const grace = options.graceMs ?? 20_000;
  const running = state.processes.filter((p) => isSandboxProcess(p.pid, dir));
  const workers = running.filter((p) => p.role !== 'broker');
  const broker = running.filter((p) => p.role === 'broker');
  const killed: string[] = [];
  if (workers.length > 0) {
    progress(`stopping ${workers.map((w) => w.role).join(', ')}`);
    const result = await stopGroups(workers.map((w) => w.pid), dir, grace);
    killed.push(...workers.filter((w) => result.killed.includes(w.pid)).map((w) => w.role));
  }
  if (broker.length > 0) {
    progress('stopping the broker');
    const result = await stopGroups(broker.map((b) => b.pid), dir, grace);
    killed.push(...broker.filter((b) => result.killed.includes(b.pid)).map((b) => b.role));
  }
  writeState(layout.stateFile, { ...state, processes: [] });
  const ports = [state.ports.broker, state.ports.controller, ...state.ports.workers];
  const open = await waitUntilClosed(ports, 10_000);
  if (open.length > 0) {
    throw new SandboxError('E_SANDBOX_STOP', `the sandbox processes are stopped but ports ${open.join(', ')} still accept connections: another program listens there (check with \`ss -ltnp\`)`);
  }
  return { dir, stopped: running.map((p) => p.role), killed, durationMs: Math.round(performance.now() - started) };
}
