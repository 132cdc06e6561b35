// `offsetctl sandbox status`: what the state file says, checked against the live processes and
// each worker's /health.
import { clusterOrder, clusterSpec, isBrokerRole, OTHER_BROKER_ROLE, parseWorkerRole, type ConnectClusterName } from './clusters.js';
import { probeHealth } from './health.js';
import { isListening } from './ports.js';
import { resolveSandboxDir, sandboxLayout } from './layout.js';
import { isSandboxProcess } from './processes.js';
import { cdcPostgresStatus, type CdcPostgres } from './cdc-postgres.js';
import { icebergStatus, type IcebergCatalogInfo } from './iceberg-catalog.js';
import type { LoadedPlugin } from './plugins.js';
import { brokerAddress, clusterBootstrap, clusterWorkerUrls, readState, workerUrls, type SandboxState } from './state.js';

export interface SandboxProcessStatus {
  role: string;
  pid: number;
  alive: boolean;
  url?: string;
  /** Worker only: the HTTP status of GET /health (0 when it did not answer in time). */
  health?: number;
  /** Worker only: its REST port accepts connections. */
  listening?: boolean;
}

/** One Connect cluster of the sandbox: its worker URLs and the Kafka cluster it uses. */
export interface SandboxCluster {
  name: ConnectClusterName;
  connect: string[];
  bootstrap: string;
  /** That Kafka cluster's id (as in Connect's `GET /` → kafka_cluster_id). */
  kafkaClusterId?: string;
}

export interface SandboxStatus {
  /**
   * True when every broker and every worker run and every worker's REST port is open without
   * reporting itself unhealthy. A /health that is merely slow (the herder is busy with a
   * rebalance, the machine is loaded) does not count against it.
   */
  running: boolean;
  /** The main cluster's workers (every sandbox has it). */
  connect: string[];
  bootstrap: string | null;
  /**
   * Every Connect cluster that runs: main, second (`--clusters 2`), the lanes' (`--lanes N`), other
   * (`--other-kafka`). Judged per cluster (its workers and its broker), so a test lane's cluster is
   * listed while another cluster is being added or stopped, when `running` is false.
   */
  clusters: SandboxCluster[];
  dir: string;
  kafkaVersion?: string;
  processes: SandboxProcessStatus[];
  /** The plugins on the workers' plugin.path (`up --plugin`); empty when none. */
  plugins: LoadedPlugin[];
  /** The CDC source PostgreSQL (`up --cdc-postgres`), when it runs. */
  cdc?: CdcPostgres;
  /** The Iceberg REST catalog (`up --plugin iceberg-sink`), when the sandbox runs it. */
  iceberg?: IcebergCatalogInfo;
}

export async function sandboxStatus(options: { dir?: string } = {}): Promise<SandboxStatus> {
  const dir = resolveSandboxDir(options.dir);
  const state = readState(sandboxLayout(dir).stateFile);
  if (!state || state.processes.length === 0) {
    return { running: false, connect: [], bootstrap: null, clusters: [], dir, processes: [], plugins: [], ...cdcOf(dir) };
  }
  const processes = await Promise.all(state.processes.map(async (p): Promise<SandboxProcessStatus> => {
    const alive = isSandboxProcess(p.pid, dir);
    if (isBrokerRole(p.role)) return { role: p.role, pid: p.pid, alive };
    const url = `http://127.0.0.1:${p.port}`;
    const health = alive ? (await probeHealth(url, 5000)).status : 0;
    const listening = health !== 0 || (alive && (await isListening(p.port)));
    return { role: p.role, pid: p.pid, alive, url, health, listening };
  }));
  const running = processes.every(runs);
  return summary(state, dir, running, processes);
}

function summary(state: SandboxState, dir: string, running: boolean, processes: SandboxProcessStatus[]): SandboxStatus {
  return {
    running,
    connect: running ? workerUrls(state) : [],
    bootstrap: running ? brokerAddress(state) : null,
    clusters: clustersOf(state, processes),
    dir,
    kafkaVersion: state.kafkaVersion,
    processes,
    plugins: state.plugins ?? [],
    ...cdcOf(dir),
    ...(running ? icebergOf(state, dir) : {}),
  };
}

function cdcOf(dir: string): { cdc?: CdcPostgres } {
  const cdc = cdcPostgresStatus(dir);
  if (!cdc?.running) return {};
  const { running: _running, ...rest } = cdc;
  return { cdc: rest };
}

function icebergOf(state: SandboxState, dir: string): { iceberg?: IcebergCatalogInfo } {
  const iceberg = icebergStatus(sandboxLayout(dir), state);
  return iceberg ? { iceberg } : {};
}

/** Alive, and (a worker) healthy or at least listening: a /health that is merely slow does not count against it. */
function runs(p: SandboxProcessStatus): boolean {
  return p.alive && (p.health === undefined || p.health === 200 || (p.health === 0 && p.listening === true));
}

function clustersOf(state: SandboxState, processes: SandboxProcessStatus[]): SandboxCluster[] {
  const out: SandboxCluster[] = [];
  for (const name of clusterOrder(Object.keys(state.ports.lanes ?? {}))) {
    const connect = clusterWorkerUrls(state, name);
    const bootstrap = clusterBootstrap(state, name);
    if (connect.length === 0 || !bootstrap) continue;
    const broker = clusterSpec(name).kafka === 'main' ? 'broker' : OTHER_BROKER_ROLE;
    const own = processes.filter((p) => p.role === broker || parseWorkerRole(p.role)?.cluster === name);
    if (!own.some((p) => p.role === broker) || !own.every(runs)) continue;
    const id = name === 'other' ? state.otherClusterId : state.clusterId;
    out.push({ name, connect, bootstrap, ...(id ? { kafkaClusterId: id } : {}) });
  }
  return out;
}
