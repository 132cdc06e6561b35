// Starting the sandbox's processes: a Kafka cluster (format its storage, start the broker, wait
// for its port) and the workers of a Connect cluster (in parallel, each until GET /health answers).
// Each started process is recorded in the state file at once, so `down` can stop it whatever
// happens next.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import type { ConnectClusterName } from './clusters.js';
import { SandboxError } from './errors.js';
import { waitForHealth, waitForPort, type WaitOutcome } from './health.js';
import { kraftQuorum } from './kafka-versions.js';
import type { SandboxLayout } from './layout.js';
import { javaClasspathArgs, otherDataDir, startBroker, startOtherBroker, startWorker, type SandboxConfigFiles } from './launch.js';
import { isSandboxProcess, tailFile } from './processes.js';
import { clusterPorts, writeState, type SandboxProcess, type SandboxState } from './state.js';

export interface StartContext {
  layout: SandboxLayout;
  state: SandboxState;
  files: SandboxConfigFiles;
  progress: (line: string) => void;
  timeoutMs: number;
}

/** Formats the Kafka cluster's storage and starts its broker; resolves when its port is open. */
export async function startKafka(ctx: StartContext, kafka: 'main' | 'other'): Promise<void> {
  const { layout, state, files } = ctx;
  const main = kafka === 'main';
  const ports = main ? { broker: state.ports.broker, controller: state.ports.controller } : state.ports.other;
  if (!ports) throw new Error('the other Kafka cluster has no ports');
  const server = main ? files.server : files.otherServer;
  if (!server) throw new Error('no configuration rendered for the other Kafka cluster');
  if (!main) {
    // The other cluster starts empty each time it starts (the main one is wiped by a fresh `up`).
    rmSync(otherDataDir(layout), { recursive: true, force: true });
    mkdirSync(otherDataDir(layout), { recursive: true });
    state.otherClusterId = newClusterId();
  }
  const clusterId = main ? (state.clusterId ??= newClusterId()) : (state.otherClusterId as string);
  formatStorage(layout, state.kafkaVersion, ports.controller, server, files.log4j, clusterId);
  ctx.progress(`starting the ${main ? '' : 'other cluster\'s '}Kafka ${state.kafkaVersion} broker on 127.0.0.1:${ports.broker}`);
  const broker = (main ? startBroker : startOtherBroker)(layout, state.kafkaVersion, files, ports.broker);
  record(ctx, broker);
  expectReady(broker, layout, await waitForPort(broker.port, () => isSandboxProcess(broker.pid, layout.dir), ctx.timeoutMs));
}

/** Starts every worker of one Connect cluster in parallel; resolves when each answers /health. */
export async function startConnectCluster(ctx: StartContext, cluster: ConnectClusterName): Promise<void> {
  const { layout, state, files } = ctx;
  const ports = clusterPorts(state.ports, cluster);
  if (ports.length === 0) return;
  ctx.progress(`starting ${ports.length} Connect worker(s) of the ${cluster} cluster on ports ${ports.join(', ')}`);
  const workers = ports.map((port, i) => startWorker(layout, state.kafkaVersion, files, i + 1, port, cluster));
  for (const w of workers) record(ctx, w);
  await Promise.all(workers.map(async (w) => expectReady(w, layout, await waitForHealth(`http://127.0.0.1:${w.port}`, () => isSandboxProcess(w.pid, layout.dir), ctx.timeoutMs))));
}

function record(ctx: StartContext, proc: SandboxProcess): void {
  ctx.state.processes.push(proc);
  writeState(ctx.layout.stateFile, ctx.state);
}

export function expectReady(proc: SandboxProcess, layout: SandboxLayout, outcome: WaitOutcome): void {
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
