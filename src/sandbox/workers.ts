// Killing and restarting single Connect workers of a running sandbox: the fault tests and the
// chaos run take workers away mid-run (SIGKILL, as a crash or an OOM kill would) and bring them
// back without restarting the cluster. The state file keeps the new process id, so `down` still
// stops exactly what runs.
import { isBrokerRole, parseWorkerRole } from './clusters.js';
import { sandboxLayout, resolveSandboxDir } from './layout.js';
import { SandboxError } from './errors.js';
import { waitForHealth } from './health.js';
import { startWorker, writeSandboxConfig } from './launch.js';
import { sandboxAssets } from './layout.js';
import { groupAlive, isSandboxProcess, signalGroup } from './processes.js';
import { readState, writeState, type SandboxProcess } from './state.js';

function findWorker(dir: string, role: string): { process: SandboxProcess; index: number } {
  const state = readState(sandboxLayout(dir).stateFile);
  const index = state?.processes.findIndex((p) => p.role === role) ?? -1;
  const proc = index >= 0 ? state?.processes[index] : undefined;
  if (!state || !proc || isBrokerRole(role)) throw new SandboxError('E_SANDBOX_NOT_RUNNING', `no ${role} in the sandbox at ${dir}`);
  return { process: proc, index };
}

/** SIGKILLs a worker's process group and waits until it is gone. */
export async function killSandboxWorker(options: { dir?: string; role: string }): Promise<SandboxProcess> {
  const dir = resolveSandboxDir(options.dir);
  const { process: proc } = findWorker(dir, options.role);
  if (isSandboxProcess(proc.pid, dir)) signalGroup(proc.pid, 'SIGKILL');
  for (let i = 0; i < 100 && groupAlive(proc.pid); i++) await new Promise((r) => setTimeout(r, 100));
  return proc;
}

/** Starts a worker again on its port (after killSandboxWorker) and waits for it to answer. */
export async function restartSandboxWorker(options: { dir?: string; role: string; timeoutMs?: number }): Promise<SandboxProcess> {
  const dir = resolveSandboxDir(options.dir);
  const layout = sandboxLayout(dir);
  const state = readState(layout.stateFile);
  const { process: old, index } = findWorker(dir, options.role);
  if (!state) throw new SandboxError('E_SANDBOX_NOT_RUNNING', `no sandbox at ${dir}`);
  if (isSandboxProcess(old.pid, dir)) return old;
  const files = writeSandboxConfig(sandboxAssets(), layout, state.ports, state.kafkaVersion, state.plugins ?? []);
  const worker = parseWorkerRole(options.role);
  if (!worker) throw new SandboxError('E_USAGE', `${options.role} is not a worker`);
  const fresh = startWorker(layout, state.kafkaVersion, files, worker.index, old.port, worker.cluster);
  state.processes[index] = fresh;
  writeState(layout.stateFile, state);
  const ready = await waitForHealth(`http://127.0.0.1:${fresh.port}`, () => isSandboxProcess(fresh.pid, dir), options.timeoutMs ?? 180_000);
  if (!ready.ready) throw new SandboxError('E_SANDBOX_START', `${options.role} did not come back: ${ready.last} (log ${fresh.log})`);
  return fresh;
}
