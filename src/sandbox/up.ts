// `offsetctl sandbox up`: one KRaft broker and N distributed Connect workers on loopback, started
// detached; with `--clusters 2` a second Connect cluster on the same broker, with `--other-kafka`
// a second Kafka cluster with a Connect worker of its own, with `--lanes N` a Connect cluster per
// test lane after the first (`lane-2` … `lane-N`, clusters.ts). Idempotent: when the state file's
// processes all run, they are reused, and a cluster asked for that is not running yet is added
// without restarting the rest; when some are gone (a reboot, a CI machine), the rest are stopped
// and everything starts fresh.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { laneCluster, MAX_LANES, parseWorkerRole, OTHER_BROKER_ROLE, type ConnectClusterName } from './clusters.js';
import { SandboxError } from './errors.js';
import { waitForHealth } from './health.js';
import { resolveJars } from './jars.js';
import { DEFAULT_KAFKA_VERSION, checkSandboxKafkaVersion } from './kafka-versions.js';
import { resolveSandboxDir, sandboxAssets, sandboxCommand, sandboxLayout, type SandboxLayout } from './layout.js';
import { withUpLock } from './lock.js';
import { writeSandboxConfig } from './launch.js';
import { isSandboxProcess, stopGroups } from './processes.js';
import { chooseAddedPorts, choosePorts } from './port-plan.js';
import { checkJava } from './prerequisites.js';
import { expectReady, newClusterId, startConnectCluster, startKafka, type StartContext } from './start-processes.js';
import { readState, writeState, type SandboxProcess, type SandboxState } from './state.js';
import { sandboxStatus, type SandboxStatus } from './status.js';
import { cdcPostgresUp } from './cdc-postgres.js';
import { findPgBin } from './postgres-server.js';
import { parsePluginArgs, resolvePlugins } from './plugins.js';
import { addPluginsToRunning, missingPlugins, needsIcebergCatalog, startIcebergCatalogIfNeeded } from './plugin-start.js';

export { newClusterId } from './start-processes.js';

export interface SandboxUpOptions {
  dir?: string;
  /** Number of Connect workers per Connect cluster on the main broker (default 2). */
  workers?: number;
  /** Connect clusters on the main broker: 1 (default) or 2 (adds `second`). */
  clusters?: number;
  /** Test lanes: 1 (default: the main cluster), or up to MAX_LANES, adding clusters `lane-2` … `lane-N` on the broker. */
  lanes?: number;
  /** Also run a second Kafka cluster with a one-worker Connect cluster (`other`) on it. */
  otherKafka?: boolean;
  /** Fixed broker client port instead of a free one (refused when taken). */
  brokerPort?: number;
  /** Fixed REST port of the first worker; worker i gets connectPort + i - 1 (refused when taken). */
  connectPort?: number;
  /** Progress lines for a human (the CLI prints them on stderr). */
  progress?: (line: string) => void;
  /** Per-process start-up deadline in ms (default 180 s: 2 shared cores can be slow). */
  startTimeoutMs?: number;
  /** Kafka release to run (default DEFAULT_KAFKA_VERSION); a running sandbox of another version is refused. */
  kafkaVersion?: string;
  /** `--plugin`: known names (plugins.ts) or Maven coordinates; loaded on every worker (docs/sandbox.md, "Real connector plugins"). */
  plugins?: string[];
  /** `--cdc-postgres`: also a PostgreSQL with logical decoding as a CDC source (cdc-postgres.ts). */
  cdcPostgres?: boolean;
}

export interface SandboxUpResult extends SandboxStatus {
  /** True when everything was already running and nothing was started. */
  reused: boolean;
  /** True when Maven had to download/copy the jars. */
  resolvedJars: boolean;
  durationMs: number;
}

/** The other cluster's Connect cluster: one worker is enough for what it is there for. */
const OTHER_WORKERS = 1;

export async function sandboxUp(options: SandboxUpOptions = {}): Promise<SandboxUpResult> {
  const started = performance.now();
  const dir = resolveSandboxDir(options.dir);
  const layout = sandboxLayout(dir);
  const workers = options.workers ?? 2;
  if (!Number.isInteger(workers) || workers < 1 || workers > 8) {
    throw new SandboxError('E_SANDBOX_START', `--workers must be a whole number from 1 to 8, got ${String(options.workers)}`);
  }
  const clusters = options.clusters ?? 1;
  if (clusters !== 1 && clusters !== 2) {
    throw new SandboxError('E_USAGE', `--clusters must be 1 or 2 (Connect clusters on the sandbox's broker), got ${String(options.clusters)}`);
  }
  const lanes = options.lanes ?? 1;
  if (!Number.isInteger(lanes) || lanes < 1 || lanes > MAX_LANES) {
    throw new SandboxError('E_USAGE',
      `--lanes must be a whole number from 1 to ${MAX_LANES} (a Connect cluster per test lane on the sandbox's broker), got ${String(options.lanes)}`);
  }
  const laneNames = Array.from({ length: lanes - 1 }, (_v, i) => laneCluster(i + 2));
  const kafkaVersion = checkSandboxKafkaVersion(options.kafkaVersion ?? DEFAULT_KAFKA_VERSION);
  // Bad --plugin values are refused before anything starts or downloads.
  const pluginSpecs = parsePluginArgs(options.plugins ?? []);
  if (options.cdcPostgres && !findPgBin()) {
    throw new SandboxError('E_SANDBOX_PREREQ', '--cdc-postgres needs PostgreSQL\'s server programs (initdb, pg_ctl), which were not found under '
      + '/usr/lib/postgresql/*/bin or on PATH: install them (e.g. `apt-get install postgresql`) or set OFFSETCTL_PG_BIN, and run `up` again');
  }
  const progress = options.progress ?? (() => {});
  const timeoutMs = options.startTimeoutMs ?? 180_000;
  mkdirSync(dir, { recursive: true });
  return withUpLock(layout.lockFile, progress, async () => {
    const outcome = await upLocked();
    if (options.cdcPostgres) await cdcPostgresUp(dir, progress);
    return finish(dir, outcome.reused, outcome.resolvedJars, started);
  });

  async function upLocked(): Promise<{ reused: boolean; resolvedJars: boolean }> {
    const previous = readState(layout.stateFile);
    if (previous && previous.processes.length > 0) {
      const alive = previous.processes.filter((p) => isSandboxProcess(p.pid, dir));
      if (alive.length === previous.processes.length) {
        if (options.kafkaVersion !== undefined && previous.kafkaVersion !== kafkaVersion) {
          throw new SandboxError('E_SANDBOX_VERSION', `the sandbox in ${dir} runs Kafka ${previous.kafkaVersion}, not ${kafkaVersion}: stop it first (\`${sandboxCommand('down', dir)}\`) or use another --dir`);
        }
        const running = previous.processes.filter((p) => parseWorkerRole(p.role)?.cluster === 'main').length;
        await waitUntilReady(previous.processes, dir, timeoutMs);
        const addSecond = clusters === 2 && !previous.processes.some((p) => parseWorkerRole(p.role)?.cluster === 'second');
        const addOther = options.otherKafka === true && !previous.processes.some((p) => p.role === OTHER_BROKER_ROLE);
        const addPlugins = missingPlugins(previous.plugins, pluginSpecs).length > 0;
        const addLanes = laneNames.filter((lane) => !previous.processes.some((p) => parseWorkerRole(p.role)?.cluster === lane));
        if (!addSecond && !addOther && addLanes.length === 0 && !addPlugins && !needsIcebergCatalog(previous)) {
          progress(`sandbox already running in ${dir}: reusing it${options.workers !== undefined && options.workers !== running ? ` (with its ${running} worker(s); \`${sandboxCommand('down', dir)}\` first to change that)` : ''}`);
          return { reused: true, resolvedJars: false };
        }
        const size = options.workers ?? running;
        if (addSecond || addOther || addLanes.length > 0) {
          await addClusters(layout, previous, { second: addSecond ? size : 0, other: addOther, lanes: { names: addLanes, workers: size } }, progress, timeoutMs);
        }
        await addPluginsToRunning(layout, previous, pluginSpecs, sandboxAssets(), progress, timeoutMs);
        await startIcebergCatalogIfNeeded(layout, previous, sandboxAssets(), progress, timeoutMs);
        return { reused: false, resolvedJars: false };
      }
      progress('some sandbox processes are gone (reboot or crash): stopping the rest and starting fresh');
      await stopGroups(alive.map((p) => p.pid), dir, 15_000);
      writeState(layout.stateFile, { ...previous, processes: [] });
    }
    checkJava();
    const request = {
      ...options, ...(clusters === 2 ? { secondWorkers: workers } : {}), ...(options.otherKafka ? { otherWorkers: OTHER_WORKERS } : {}),
      lanes: { names: laneNames, workers },
    };
    const chosen = await choosePorts(previous?.ports, workers, request);
    const pom = join(sandboxAssets(), 'pom.xml');
    const resolvedJars = await resolveJars(layout, pom, kafkaVersion, progress);
    const plugins = await resolvePlugins(layout, pluginSpecs, sandboxAssets(), progress);
    const state: SandboxState = {
      version: 1,
      kafkaVersion,
      clusterId: newClusterId(),
      // Ports of a cluster not started now stay recorded, so a later `up` that adds it gets them back.
      ports: {
        ...chosen, secondWorkers: chosen.secondWorkers ?? previous?.ports.secondWorkers, other: chosen.other ?? previous?.ports.other,
        lanes: { ...previous?.ports.lanes, ...chosen.lanes },
      },
      processes: [],
      startedAt: new Date().toISOString(),
      // Which plugins a fresh start loads is what this `up` asks for, as with the clusters.
      ...(plugins.length > 0 ? { plugins } : {}),
      ...(previous?.iceberg ? { iceberg: previous.iceberg } : {}),
    };
    if (!state.ports.secondWorkers) delete state.ports.secondWorkers;
    if (!state.ports.other) delete state.ports.other;
    if (Object.keys(state.ports.lanes ?? {}).length === 0) delete state.ports.lanes;
    await startFresh(layout, state, { second: clusters === 2, other: options.otherKafka === true, lanes: laneNames }, progress, timeoutMs);
    return { reused: false, resolvedJars };
  }
}

interface Wanted {
  second: boolean;
  other: boolean;
  /** The lanes' clusters (`lane-2` …). */
  lanes: ConnectClusterName[];
}

async function startFresh(layout: SandboxLayout, state: SandboxState, wanted: Wanted, progress: (line: string) => void, timeoutMs: number): Promise<void> {
  // Fresh means fresh: old topics and connectors from an earlier run would surprise tests.
  rmSync(layout.data, { recursive: true, force: true });
  rmSync(layout.logs, { recursive: true, force: true });
  mkdirSync(layout.data, { recursive: true });
  mkdirSync(layout.logs, { recursive: true });
  const files = writeSandboxConfig(sandboxAssets(), layout, state.ports, state.kafkaVersion, state.plugins ?? []);
  writeState(layout.stateFile, state);
  const ctx: StartContext = { layout, state, files, progress, timeoutMs };
  try {
    await Promise.all([startKafka(ctx, 'main'), ...(wanted.other ? [startKafka(ctx, 'other')] : [])]);
    await Promise.all([
      startIcebergCatalogIfNeeded(layout, state, sandboxAssets(), progress, timeoutMs),
      startConnectCluster(ctx, 'main'),
      ...(wanted.second ? [startConnectCluster(ctx, 'second')] : []),
      ...(wanted.other ? [startConnectCluster(ctx, 'other')] : []),
      ...wanted.lanes.map((lane) => startConnectCluster(ctx, lane)),
    ]);
  } catch (err) {
    // Leave nothing half-started behind: the next `up` starts from a clean slate.
    await stopGroups([...state.processes].reverse().map((p) => p.pid), layout.dir, 10_000);
    writeState(layout.stateFile, { ...state, processes: [] });
    throw err;
  }
}

/** Adds the second Connect cluster and/or the other Kafka cluster to a running sandbox; the rest keeps running. */
interface Added {
  /** Workers of the second cluster to add (0: none). */
  second: number;
  other: boolean;
  lanes: { names: ConnectClusterName[]; workers: number };
}

async function addClusters(layout: SandboxLayout, state: SandboxState, add: Added, progress: (line: string) => void, timeoutMs: number): Promise<void> {
  const added = await chooseAddedPorts(state.ports, {
    ...(add.second ? { secondWorkers: add.second } : {}), ...(add.other ? { otherWorkers: OTHER_WORKERS } : {}), lanes: add.lanes,
  });
  state.ports = { ...state.ports, ...added, ...(added.lanes ? { lanes: { ...state.ports.lanes, ...added.lanes } } : {}) };
  mkdirSync(layout.logs, { recursive: true });
  const files = writeSandboxConfig(sandboxAssets(), layout, state.ports, state.kafkaVersion, state.plugins ?? []);
  writeState(layout.stateFile, state);
  const before = new Set(state.processes.map((p) => p.pid));
  const ctx: StartContext = { layout, state, files, progress, timeoutMs };
  const what = [
    add.second ? 'the second Connect cluster' : '', add.other ? 'the other Kafka cluster and its Connect worker' : '',
    ...add.lanes.names.map((l) => `the ${l} Connect cluster`),
  ];
  progress(`sandbox running in ${layout.dir}: adding ${what.filter(Boolean).join(' and ')}`);
  try {
    await Promise.all([
      ...(add.second ? [startConnectCluster(ctx, 'second')] : []),
      ...(add.other ? [startKafka(ctx, 'other').then(() => startConnectCluster(ctx, 'other'))] : []),
      ...add.lanes.names.map((lane) => startConnectCluster(ctx, lane)),
    ]);
  } catch (err) {
    // Only what this call started is stopped: the running clusters were never touched.
    const mine = state.processes.filter((p) => !before.has(p.pid));
    await stopGroups([...mine].reverse().map((p) => p.pid), layout.dir, 10_000);
    writeState(layout.stateFile, { ...state, processes: state.processes.filter((p) => before.has(p.pid)) });
    throw err;
  }
}

async function waitUntilReady(processes: SandboxProcess[], dir: string, timeoutMs: number): Promise<void> {
  const layout = sandboxLayout(dir);
  await Promise.all(processes.filter((p) => parseWorkerRole(p.role)).map(async (w) =>
    expectReady(w, layout, await waitForHealth(`http://127.0.0.1:${w.port}`, () => isSandboxProcess(w.pid, dir), timeoutMs))));
}

async function finish(dir: string, reused: boolean, resolvedJars: boolean, started: number): Promise<SandboxUpResult> {
  const status = await sandboxStatus({ dir });
  return { ...status, reused, resolvedJars, durationMs: Math.round(performance.now() - started) };
}
