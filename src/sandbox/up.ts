// `offsetctl sandbox up`: one KRaft broker and N distributed Connect workers on loopback, started
// detached. Idempotent: when the state file's processes all run, they are reused; when some are
// gone (a reboot, a CI machine), the rest are stopped and everything starts fresh.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SandboxError } from './errors.js';
import { waitForHealth, waitForPort, type WaitOutcome } from './health.js';
import { resolveJars } from './jars.js';
import { DEFAULT_KAFKA_VERSION, checkSandboxKafkaVersion, kraftQuorum } from './kafka-versions.js';
import { resolveSandboxDir, sandboxAssets, sandboxLayout, type SandboxLayout } from './layout.js';
import { withUpLock } from './lock.js';
import { isSandboxProcess, stopGroups, tailFile } from './processes.js';
import { choosePorts } from './port-plan.js';
import { checkJava } from './prerequisites.js';
import { startBroker, startWorker, writeSandboxConfig, javaClasspathArgs } from './launch.js';
import { readState, writeState, type SandboxProcess, type SandboxState } from './state.js';
import { sandboxStatus, type SandboxStatus } from './status.js';

export interface SandboxUpOptions {
  dir?: string;
  /** Number of Connect workers (default 2). */
  workers?: number;
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
}

export interface SandboxUpResult extends SandboxStatus {
  /** True when everything was already running and nothing was started. */
  reused: boolean;
  /** True when Maven had to download/copy the jars. */
  resolvedJars: boolean;
  durationMs: number;
}

export async function sandboxUp(options: SandboxUpOptions = {}): Promise<SandboxUpResult> {
  const started = performance.now();
  const dir = resolveSandboxDir(options.dir);
  const layout = sandboxLayout(dir);
  const workers = options.workers ?? 2;
  if (!Number.isInteger(workers) || workers < 1 || workers > 8) {
    throw new SandboxError('E_SANDBOX_START', `--workers must be a whole number from 1 to 8, got ${String(options.workers)}`);
  }
  const kafkaVersion = checkSandboxKafkaVersion(options.kafkaVersion ?? DEFAULT_KAFKA_VERSION);
  const progress = options.progress ?? (() => {});
  mkdirSync(dir, { recursive: true });
  return withUpLock(layout.lockFile, progress, async () => {
    const previous = readState(layout.stateFile);
    if (previous && previous.processes.length > 0) {
      const alive = previous.processes.filter((p) => isSandboxProcess(p.pid, dir));
      if (alive.length === previous.processes.length) {
        if (options.kafkaVersion !== undefined && previous.kafkaVersion !== kafkaVersion) {
          throw new SandboxError('E_SANDBOX_VERSION', `the sandbox in ${dir} runs Kafka ${previous.kafkaVersion}, not ${kafkaVersion}: stop it first (\`offsetctl sandbox down --dir ${dir}\`) or use another --dir`);
        }
        const running = previous.processes.filter((p) => p.role !== 'broker').length;
        progress(`sandbox already running in ${dir}: reusing it${options.workers !== undefined && options.workers !== running ? ` (with its ${running} worker(s); \`offsetctl sandbox down\` first to change that)` : ''}`);
        await waitUntilReady(previous.processes, dir, options.startTimeoutMs ?? 180_000);
        return finish(dir, true, false, started);
      }
      progress('some sandbox processes are gone (reboot or crash): stopping the rest and starting fresh');
      await stopGroups(alive.map((p) => p.pid), dir, 15_000);
      writeState(layout.stateFile, { ...previous, processes: [] });
    }
    checkJava();
    const ports = await choosePorts(previous?.ports, workers, options);
    const pom = join(sandboxAssets(), 'pom.xml');
    const resolvedJars = await resolveJars(layout, pom, kafkaVersion, progress);
    const state: SandboxState = {
      version: 1,
      kafkaVersion,
      clusterId: newClusterId(),
      ports,
      processes: [],
      startedAt: new Date().toISOString(),
    };
    await startFresh(layout, state, progress, options.startTimeoutMs ?? 180_000);
    return finish(dir, false, resolvedJars, started);
  });
}

async function startFresh(layout: SandboxLayout, state: SandboxState, progress: (line: string) => void, timeoutMs: number): Promise<void> {
  // Fresh means fresh: old topics and connectors from an earlier run would surprise tests.
  rmSync(layout.data, { recursive: true, force: true });
  rmSync(layout.logs, { recursive: true, force: true });
  mkdirSync(layout.data, { recursive: true });
  mkdirSync(layout.logs, { recursive: true });
  const files = writeSandboxConfig(sandboxAssets(), layout, state.ports, state.kafkaVersion);
  formatStorage(layout, state.kafkaVersion, state.ports.controller, files.server, files.log4j, state.clusterId ?? newClusterId());
  writeState(layout.stateFile, state);
  try {
    progress(`starting the Kafka ${state.kafkaVersion} broker on 127.0.0.1:${state.ports.broker}`);
    const broker = startBroker(layout, state.kafkaVersion, files, state.ports.broker);
    state.processes.push(broker);
    writeState(layout.stateFile, state);
    await expectReady(broker, layout, await waitForPort(broker.port, () => isSandboxProcess(broker.pid, layout.dir), timeoutMs));
    progress(`starting ${state.ports.workers.length} Connect worker(s) on ports ${state.ports.workers.join(', ')}`);
    const workers = state.ports.workers.map((port, i) => startWorker(layout, state.kafkaVersion, files, i + 1, port));
    state.processes.push(...workers);
    writeState(layout.stateFile, state);
    await Promise.all(workers.map(async (w) => expectReady(w, layout, await waitForHealth(`http://127.0.0.1:${w.port}`, () => isSandboxProcess(w.pid, layout.dir), timeoutMs))));
  } catch (err) {
    // Leave nothing half-started behind: the next `up` starts from a clean slate.
    await stopGroups([...state.processes].reverse().map((p) => p.pid), layout.dir, 10_000);
    writeState(layout.stateFile, { ...state, processes: [] });
    throw err;
  }
}

async function waitUntilReady(processes: SandboxProcess[], dir: string, timeoutMs: number): Promise<void> {
  const layout = sandboxLayout(dir);
  await Promise.all(processes.filter((p) => p.role !== 'broker').map(async (w) =>
    expectReady(w, layout, await waitForHealth(`http://127.0.0.1:${w.port}`, () => isSandboxProcess(w.pid, dir), timeoutMs))));
}

function expectReady(proc: SandboxProcess, layout: SandboxLayout, outcome: WaitOutcome): void {
  if (outcome.ready) return;
  const tail = tailFile(proc.log, 40);
  if (/Address already in use|BindException/.test(tail)) {
    throw new SandboxError('E_SANDBOX_PORT_TAKEN', `the ${proc.role} could not bind port ${proc.port}: another program took it. Run \`offsetctl sandbox up\` again to pick free ports (or pass other ports). Last lines of ${proc.log}:\n${tail}`);
  }
  const what = outcome.reason === 'died' ? 'exited during start-up' : `was not ready in time (last answer: ${outcome.last})`;
  throw new SandboxError('E_SANDBOX_START', `the sandbox ${proc.role} (pid ${proc.pid}) ${what}. Last lines of ${proc.log}:\n${tail || '(empty log)'}\nAll logs: ${layout.logs}`);
}

function formatStorage(layout: SandboxLayout, kafkaVersion: string, controllerPort: number, serverProperties: string, log4j: string, clusterId: string): void {
  const args = [...javaClasspathArgs(layout, kafkaVersion, log4j, '256m'), 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', serverProperties, ...kraftQuorum(kafkaVersion, controllerPort).formatArgs];
  const result = spawnSync('java', args, { cwd: layout.dir, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new SandboxError('E_SANDBOX_START', `formatting the KRaft storage failed (exit ${result.status}):\n${`${result.stdout}${result.stderr}`.trim().split('\n').slice(-20).join('\n')}`);
  }
}

/** A Kafka cluster id: 16 random bytes, URL-safe base64 without padding, not starting with '-'. */
export function newClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

async function finish(dir: string, reused: boolean, resolvedJars: boolean, started: number): Promise<SandboxUpResult> {
  const status = await sandboxStatus({ dir });
  return { ...status, reused, resolvedJars, durationMs: Math.round(performance.now() - started) };
}
