// How each JVM is launched: rendered configuration, 512 MB heaps (256 MB for the other Kafka
// cluster's broker, which carries little), the marker that identifies the sandbox's own
// processes, stdout/stderr into one log file per process.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusterSpec, OTHER_BROKER_ROLE, workerRole, type ConnectClusterName, type LaneClusterName } from './clusters.js';
import { writeConfig } from './config-files.js';
import { libDir } from './jars.js';
import { kraftQuorum } from './kafka-versions.js';
import type { SandboxLayout } from './layout.js';
import { pluginProperties, workerHeap, type LoadedPlugin } from './plugins.js';
import { markerArg, spawnDetached } from './processes.js';
import type { SandboxPorts, SandboxProcess, SandboxRole } from './state.js';

export interface SandboxConfigFiles {
  server: string;
  /** Worker properties per Connect cluster, worker 1 first (empty for a cluster without ports). */
  workers: string[];
  secondWorkers: string[];
  otherWorkers: string[];
  /** Per test lane's cluster (`lane-2` …). */
  laneWorkers: Record<string, string[]>;
  /** The other Kafka cluster's broker (`--other-kafka`). */
  otherServer?: string;
  log4j: string;
  /** The workers' heap: 512m, or 1g when plugins are loaded. */
  workerHeap: string;
}

/** Renders the configuration of every process the ports describe; `plugins` go on every worker's plugin.path. */
export function writeSandboxConfig(assets: string, layout: SandboxLayout, ports: SandboxPorts, kafkaVersion: string,
  plugins: readonly LoadedPlugin[] = []): SandboxConfigFiles {
  const server = (file: string, dataDir: string, brokerPort: number, controllerPort: number): string => {
    const quorum = kraftQuorum(kafkaVersion, controllerPort, brokerPort);
    return writeConfig(assets, layout.config, 'server.properties.template', file, {
      dataDir, brokerPort, controllerPort, controllerQuorum: kraftQuorum(kafkaVersion, controllerPort).property, advertisedListeners: quorum.advertised,
    });
  };
  const workers = (cluster: ConnectClusterName, brokerPort: number, restPorts: number[]): string[] => {
    const spec = clusterSpec(cluster);
    const file = (i: number): string => `${workerRole(cluster, i + 1)}.properties`;
    return restPorts.map((restPort, i) => appendProperties(writeConfig(assets, layout.config, 'worker.properties.template', file(i), {
      brokerPort, restPort, groupId: spec.groupId, topicPrefix: spec.topicPrefix,
    }), pluginProperties(plugins)));
  };
  const other = ports.other;
  return {
    server: server('server.properties', layout.data, ports.broker, ports.controller),
    workers: workers('main', ports.broker, ports.workers),
    secondWorkers: workers('second', ports.broker, ports.secondWorkers ?? []),
    otherWorkers: other ? workers('other', other.broker, other.workers) : [],
    laneWorkers: Object.fromEntries(Object.entries(ports.lanes ?? {}).map(([lane, rest]) => [lane, workers(lane as LaneClusterName, ports.broker, rest)])),
    ...(other ? { otherServer: server('other-server.properties', otherDataDir(layout), other.broker, other.controller) } : {}),
    log4j: writeConfig(assets, layout.config, 'log4j2.properties.template', 'log4j2.properties', {}),
    workerHeap: workerHeap(plugins),
  };
}

function appendProperties(file: string, text: string): string {
  if (text) appendFileSync(file, text);
  return file;
}

/** The other Kafka cluster's log dirs live here (inside data/, so a fresh start wipes them too). */
export function otherDataDir(layout: SandboxLayout): string {
  return join(layout.data, 'other');
}

export function javaClasspathArgs(layout: SandboxLayout, kafkaVersion: string, log4j: string, heap: string): string[] {
  return [
    `-Xms${heap}`,
    `-Xmx${heap}`,
    '-XX:+ExitOnOutOfMemoryError',
    '-Djava.awt.headless=true',
    markerArg(layout.dir),
    `-Dlog4j2.configurationFile=${log4j}`,
    '-cp',
    join(libDir(layout, kafkaVersion), '*'),
  ];
}

export function startBroker(layout: SandboxLayout, kafkaVersion: string, files: SandboxConfigFiles, port: number): SandboxProcess {
  const log = join(layout.logs, 'broker.log');
  const pid = spawnDetached('java', [...javaClasspathArgs(layout, kafkaVersion, files.log4j, '512m'), 'kafka.Kafka', files.server], log, layout.dir);
  return { role: 'broker', pid, port, log };
}

export function startOtherBroker(layout: SandboxLayout, kafkaVersion: string, files: SandboxConfigFiles, port: number): SandboxProcess {
  if (!files.otherServer) throw new Error('no configuration rendered for the other Kafka cluster');
  const log = join(layout.logs, `${OTHER_BROKER_ROLE}.log`);
  const pid = spawnDetached('java', [...javaClasspathArgs(layout, kafkaVersion, files.log4j, '256m'), 'kafka.Kafka', files.otherServer], log, layout.dir);
  return { role: OTHER_BROKER_ROLE, pid, port, log };
}

export function startWorker(layout: SandboxLayout, kafkaVersion: string, files: SandboxConfigFiles, index: number, port: number, cluster: ConnectClusterName = 'main'): SandboxProcess {
  const role = workerRole(cluster, index) as SandboxRole;
  const log = join(layout.logs, `${role}.log`);
  const list = cluster === 'main' ? files.workers : cluster === 'second' ? files.secondWorkers
    : cluster === 'other' ? files.otherWorkers : files.laneWorkers[cluster] ?? [];
  const properties = list[index - 1];
  if (!properties) throw new Error(`no configuration rendered for ${role}`);
  const args = [...javaClasspathArgs(layout, kafkaVersion, files.log4j, files.workerHeap), 'org.apache.kafka.connect.cli.ConnectDistributed', properties];
  const pid = spawnDetached('java', args, log, layout.dir);
  return { role, pid, port, log };
}
