// The state file: which ports the sandbox uses and which process groups it started. Ports stay
// in the file after `down`, so the next `up` gets the same URLs when they are still free.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { clusterSpec, parseWorkerRole, type ConnectClusterName } from './clusters.js';
import type { LoadedPlugin } from './plugins.js';

/** `worker-<n>` belong to the main cluster; see clusters.ts for the others. */
export type SandboxRole = 'broker' | 'other-broker' | 'iceberg-catalog'
  | `worker-${number}` | `second-worker-${number}` | `other-worker-${number}` | `lane-${number}-worker-${number}`;

export interface SandboxProcess {
  role: SandboxRole;
  /** Also the process group id: every process is started as a group leader. */
  pid: number;
  /** Broker: the client port; worker: the REST port. */
  port: number;
  log: string;
}

export interface SandboxPorts {
  broker: number;
  controller: number;
  workers: number[];
  /** The second Connect cluster's workers (`up --clusters 2`), on the same broker. */
  secondWorkers?: number[];
  /** The test lanes' Connect clusters (`up --lanes N`), on the same broker: `lane-2` … `lane-N` → their workers' ports. */
  lanes?: Record<string, number[]>;
  /** The other Kafka cluster (`up --other-kafka`): its broker, its controller and its Connect worker(s). */
  other?: { broker: number; controller: number; workers: number[] };
}

export interface SandboxState {
  version: 1;
  kafkaVersion: string;
  clusterId?: string;
  /** The other Kafka cluster's id (`--other-kafka`). */
  otherClusterId?: string;
  ports: SandboxPorts;
  processes: SandboxProcess[];
  startedAt?: string;
  /** The plugins on the workers' plugin.path (`up --plugin`); none when absent. */
  plugins?: LoadedPlugin[];
  /** The Iceberg REST catalog's port (`--plugin iceberg-sink`), kept for the next `up` like the others. */
  iceberg?: { port: number };
}

export function readState(file: string): SandboxState | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as SandboxState;
    if (parsed.version !== 1 || !parsed.ports || !Array.isArray(parsed.processes)) return undefined;
    return parsed;
  } catch {
    // A torn or hand-edited file: treat as no state; `up` starts fresh and rewrites it.
    return undefined;
  }
}

export function writeState(file: string, state: SandboxState): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n');
  renameSync(tmp, file);
}

export function brokerAddress(state: SandboxState): string {
  return `127.0.0.1:${state.ports.broker}`;
}

/** The main cluster's worker URLs. */
export function workerUrls(state: SandboxState): string[] {
  return clusterWorkerUrls(state, 'main');
}

/** The worker URLs of one Connect cluster, in worker order (empty when it does not run). */
export function clusterWorkerUrls(state: SandboxState, cluster: ConnectClusterName): string[] {
  return state.processes
    .map((p) => ({ p, role: parseWorkerRole(p.role) }))
    .filter((w) => w.role?.cluster === cluster)
    .sort((a, b) => (a.role?.index ?? 0) - (b.role?.index ?? 0))
    .map((w) => `http://127.0.0.1:${w.p.port}`);
}

/** The bootstrap address of the Kafka cluster a Connect cluster uses. */
export function clusterBootstrap(state: SandboxState, cluster: ConnectClusterName): string | null {
  if (clusterSpec(cluster).kafka === 'main') return brokerAddress(state);
  return state.ports.other ? `127.0.0.1:${state.ports.other.broker}` : null;
}

/** The REST ports a Connect cluster's workers use (empty when none are planned). */
export function clusterPorts(ports: SandboxPorts, cluster: ConnectClusterName): number[] {
  if (cluster === 'main') return ports.workers;
  if (cluster === 'second') return ports.secondWorkers ?? [];
  if (cluster === 'other') return ports.other?.workers ?? [];
  return ports.lanes?.[cluster] ?? [];
}
