// `offsetctl sandbox down`: stops exactly the process groups recorded in the state file (workers
// first, so they leave their group cleanly while the brokers still answer), then waits until no
// listener remains on the stopped processes' ports. Ports stay recorded for the next `up`.
// `--cluster second|other|lane-<k>` stops one added cluster and leaves the rest running.
import { isBrokerRole, isLaneCluster, OTHER_BROKER_ROLE, parseWorkerRole, type ConnectClusterName } from './clusters.js';
import { cdcPostgresDown } from './cdc-postgres.js';
import { SandboxError } from './errors.js';
import { resolveSandboxDir, sandboxLayout } from './layout.js';
import { waitUntilClosed } from './ports.js';
import { isSandboxProcess, stopGroups } from './processes.js';
import { readState, writeState, type SandboxProcess } from './state.js';

export interface SandboxDownResult {
  dir: string;
  /** Roles that were running and have been stopped. */
  stopped: string[];
  /** Roles that needed SIGKILL after the grace period. */
  killed: string[];
  durationMs: number;
}

export interface SandboxDownOptions {
  dir?: string;
  graceMs?: number;
  progress?: (line: string) => void;
  /** Stop only this added cluster (`second`, or `other` with its Kafka broker). */
  cluster?: string;
}

export async function sandboxDown(options: SandboxDownOptions = {}): Promise<SandboxDownResult> {
  const started = performance.now();
  const dir = resolveSandboxDir(options.dir);
  const layout = sandboxLayout(dir);
  const progress = options.progress ?? (() => {});
  const only = checkCluster(options.cluster);
  // The CDC source goes with the whole sandbox; stopping one added cluster leaves it running.
  if (only === undefined && cdcPostgresDown(dir)) progress('CDC source PostgreSQL stopped');
  const state = readState(layout.stateFile);
  if (!state || state.processes.length === 0) return { dir, stopped: [], killed: [], durationMs: 0 };
  const grace = options.graceMs ?? 20_000;
  const chosen = state.processes.filter((p) => only === undefined || belongsTo(p, only));
  const running = chosen.filter((p) => isSandboxProcess(p.pid, dir));
  const workers = running.filter((p) => !isBrokerRole(p.role));
  const brokers = running.filter((p) => isBrokerRole(p.role));
  const killed: string[] = [];
  for (const group of [workers, brokers]) {
    if (group.length === 0) continue;
    progress(`stopping ${group.map((p) => p.role).join(', ')}`);
    const result = await stopGroups(group.map((p) => p.pid), dir, grace);
    killed.push(...group.filter((p) => result.killed.includes(p.pid)).map((p) => p.role));
  }
  writeState(layout.stateFile, { ...state, processes: state.processes.filter((p) => !chosen.includes(p)) });
  const ports = chosen.flatMap((p) => (p.role === 'broker' ? [p.port, state.ports.controller] : p.role === OTHER_BROKER_ROLE && state.ports.other ? [p.port, state.ports.other.controller] : [p.port]));
  const open = await waitUntilClosed(ports, 10_000);
  if (open.length > 0) {
    throw new SandboxError('E_SANDBOX_STOP', `the sandbox processes are stopped but ports ${open.join(', ')} still accept connections: another program listens there (check with \`ss -ltnp\`)`);
  }
  return { dir, stopped: running.map((p) => p.role), killed, durationMs: Math.round(performance.now() - started) };
}

function checkCluster(cluster: string | undefined): Exclude<ConnectClusterName, 'main'> | undefined {
  if (cluster === undefined) return undefined;
  if (cluster === 'second' || cluster === 'other' || isLaneCluster(cluster)) return cluster;
  throw new SandboxError('E_USAGE', `--cluster ${JSON.stringify(cluster)}: only an added cluster can be stopped alone (second, other or lane-2 …); `
    + '`offsetctl sandbox down` without --cluster stops everything');
}

function belongsTo(p: SandboxProcess, cluster: Exclude<ConnectClusterName, 'main'>): boolean {
  return parseWorkerRole(p.role)?.cluster === cluster || (cluster === 'other' && p.role === OTHER_BROKER_ROLE);
}
