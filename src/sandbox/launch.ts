// How each JVM is launched: rendered configuration, 512 MB heaps, the marker that identifies the
// sandbox's own processes, stdout/stderr into one log file per process.
import { join } from 'node:path';
import { writeConfig } from './config-files.js';
import { libDir } from './jars.js';
import { kraftQuorum } from './kafka-versions.js';
import type { SandboxLayout } from './layout.js';
import { markerArg, spawnDetached } from './processes.js';
import type { SandboxPorts, SandboxProcess } from './state.js';

export interface SandboxConfigFiles {
  server: string;
  workers: string[];
  log4j: string;
}

export function writeSandboxConfig(assets: string, layout: SandboxLayout, ports: SandboxPorts, kafkaVersion: string): SandboxConfigFiles {
  const common = { dataDir: layout.data, brokerPort: ports.broker, controllerPort: ports.controller };
  return {
    server: writeConfig(assets, layout.config, 'server.properties.template', 'server.properties', { ...common, controllerQuorum: kraftQuorum(kafkaVersion, ports.controller).property, advertisedListeners: kraftQuorum(kafkaVersion, ports.controller, ports.broker).advertised }),
    workers: ports.workers.map((restPort, i) => writeConfig(assets, layout.config, 'worker.properties.template', `worker-${i + 1}.properties`, { ...common, restPort })),
    log4j: writeConfig(assets, layout.config, 'log4j2.properties.template', 'log4j2.properties', {}),
  };
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

export function startWorker(layout: SandboxLayout, kafkaVersion: string, files: SandboxConfigFiles, index: number, port: number): SandboxProcess {
  const role = `worker-${index}` as const;
  const log = join(layout.logs, `${role}.log`);
  const properties = files.workers[index - 1];
  if (!properties) throw new Error(`no configuration rendered for ${role}`);
  const pid = spawnDetached('java', [...javaClasspathArgs(layout, kafkaVersion, files.log4j, '512m'), 'org.apache.kafka.connect.cli.ConnectDistributed', properties], log, layout.dir);
  return { role, pid, port, log };
}
