// Kafka-side helpers for the positions tests, over the same client library the product uses:
// topics with records at chosen timestamps, reading a topic back, and a second single-node
// cluster (from the sandbox's own jars) for the cluster-id mismatch refusal.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Admin, Consumer, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka';
import { writeConfig } from '../../src/sandbox/config-files.js';
import { resolveSandboxDir, sandboxAssets, sandboxLayout } from '../../src/sandbox/layout.js';
import { findFreePort } from '../../src/sandbox/ports.js';
import { libDir } from '../../src/sandbox/jars.js';
import { DEFAULT_KAFKA_VERSION, kraftQuorum } from '../../src/sandbox/kafka-versions.js';
import { readState } from '../../src/sandbox/state.js';
import { getSandbox } from './sandbox.js';

export async function sandboxBootstrap(): Promise<string> {
  return (await getSandbox()).bootstrap;
}

/** Whole minutes: record i of a timed topic has timestamp base + i minutes. */
export const MINUTE = 60_000;

/**
 * Creates `topic` with `partitions` partitions and writes `count` records `rec-<i>`, record i to
 * partition i % partitions with timestamp `baseMs + i` minutes. Returns the base.
 */
export async function createTimedTopic(bootstrap: string, topic: string, options: { partitions: number; count: number; baseMs: number }): Promise<void> {
  const admin = new Admin({ clientId: 'positions-test', bootstrapBrokers: [bootstrap] });
  const producer = new Producer({ clientId: 'positions-test', bootstrapBrokers: [bootstrap], serializers: stringSerializers });
  try {
    await admin.createTopics({ topics: [topic], partitions: options.partitions, replicas: 1 });
    const messages = Array.from({ length: options.count }, (_, i) => ({ topic, partition: i % options.partitions, value: `rec-${i}`, timestamp: BigInt(options.baseMs + i * MINUTE) }));
    await producer.send({ messages });
  } finally {
    await producer.close();
    await admin.close();
  }
}

/** Appends records `rec-<from>` … `rec-<from + count - 1>` to a timed topic (record i to partition i % partitions, timestamp now). */
export async function appendRecords(bootstrap: string, topic: string, options: { from: number; count: number; partitions: number }): Promise<void> {
  const producer = new Producer({ clientId: 'positions-test', bootstrapBrokers: [bootstrap], serializers: stringSerializers });
  try {
    const messages = Array.from({ length: options.count }, (_, k) => ({ topic, partition: (options.from + k) % options.partitions, value: `rec-${options.from + k}` }));
    await producer.send({ messages });
  } finally {
    await producer.close();
  }
}

export async function deleteTopics(bootstrap: string, topics: string[]): Promise<void> {
  const admin = new Admin({ clientId: 'positions-test', bootstrapBrokers: [bootstrap] });
  try {
    // One by one: a topic already gone must not keep the others.
    for (const topic of topics) await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  } finally {
    await admin.close();
  }
}

export async function listTopics(bootstrap: string): Promise<string[]> {
  const admin = new Admin({ clientId: 'positions-test', bootstrapBrokers: [bootstrap] });
  try {
    return await admin.listTopics();
  } finally {
    await admin.close();
  }
}

/** Every value of `topic` from the beginning, once `count` are there (or throws after the timeout). */
export async function readValues(bootstrap: string, topic: string, count: number, timeoutMs = 60_000): Promise<string[]> {
  const consumer = new Consumer({ clientId: 'positions-test', groupId: `positions-read-${Date.now()}-${Math.random().toString(36).slice(2)}`, bootstrapBrokers: [bootstrap], deserializers: stringDeserializers, autocommit: false, maxWaitTime: 500 });
  const values: string[] = [];
  const stream = await consumer.consume({ topics: [topic], mode: 'earliest' });
  const timer = setTimeout(() => stream.close(() => undefined), timeoutMs);
  try {
    for await (const message of stream) {
      values.push(String(message.value));
      if (values.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
    await new Promise<void>((r) => stream.close(() => r()));
    await consumer.close(true);
  }
  if (values.length < count) throw new Error(`read ${values.length} of ${count} records from ${topic} in ${timeoutMs} ms`);
  return values;
}

/** Log end offset of every partition of `topic`. */
export async function logEnds(bootstrap: string, topic: string, partitions: number): Promise<number[]> {
  const admin = new Admin({ clientId: 'positions-test', bootstrapBrokers: [bootstrap] });
  try {
    const answer = await admin.listOffsets({ topics: [{ name: topic, partitions: Array.from({ length: partitions }, (_, p) => ({ partitionIndex: p, timestamp: -1n })) }] });
    const out = new Array<number>(partitions).fill(0);
    for (const t of answer) for (const p of t.partitions) out[p.partitionIndex] = Number(p.offset);
    return out;
  } finally {
    await admin.close();
  }
}

/** user → password, for a SASL listener (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512). */
export type SaslUsers = Record<string, string>;

export interface SecondBroker {
  bootstrap: string;
  stop(): Promise<void>;
}

/**
 * A second single-node KRaft cluster (its own cluster id) from the sandbox's jars: ~256 MB and a
 * few seconds. `autoCreateTopics: false` makes it a broker that does not create topics on first
 * use (a read-only broker setting: the sandbox's own broker cannot be switched). Stopped and its
 * data removed by stop().
 */
export async function startSecondBroker(options: { sasl?: SaslUsers; autoCreateTopics?: boolean } = {}): Promise<SecondBroker> {
  const layout = sandboxLayout(resolveSandboxDir());
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-second-broker-'));
  const brokerPort = await findFreePort();
  const controllerPort = await findFreePort();
  // The same Kafka release and jars as the running sandbox (its lib/<version>, or lib/ of an older layout).
  const version = readState(layout.stateFile)?.kafkaVersion ?? DEFAULT_KAFKA_VERSION;
  const lib = existsSync(libDir(layout, version)) ? libDir(layout, version) : layout.lib;
  const quorum = kraftQuorum(version, controllerPort, brokerPort);
  const server = writeConfig(sandboxAssets(), dir, 'server.properties.template', 'server.properties', { dataDir: dir, brokerPort, controllerPort, controllerQuorum: quorum.property, advertisedListeners: quorum.advertised });
  if (options.autoCreateTopics === false) writeFileSync(server, readFileSync(server, 'utf8').replace('auto.create.topics.enable=true', 'auto.create.topics.enable=false'));
  const scram: string[] = [];
  if (options.sasl) {
    // The sandbox template with its client listener switched to SASL_PLAINTEXT (PLAIN and SCRAM).
    const users = Object.entries(options.sasl);
    const plainUsers = users.map(([u, p]) => `user_${u}="${p}"`).join(' ');
    const text = readFileSync(server, 'utf8')
      .replaceAll(`PLAINTEXT://127.0.0.1:${brokerPort}`, `SASL_PLAINTEXT://127.0.0.1:${brokerPort}`)
      .replace('inter.broker.listener.name=PLAINTEXT', 'inter.broker.listener.name=SASL_PLAINTEXT')
      .replace('listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT', 'listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT');
    const [firstUser, firstPassword] = users[0] as [string, string];
    writeFileSync(server, `${text}
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=PLAIN
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="${firstUser}" password="${firstPassword}" ${plainUsers};
listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
`);
    for (const [u, p] of users) scram.push('--add-scram', `SCRAM-SHA-256=[name=${u},password=${p}]`, '--add-scram', `SCRAM-SHA-512=[name=${u},password=${p}]`);
  }
  const log4j = writeConfig(sandboxAssets(), dir, 'log4j2.properties.template', 'log4j2.properties', {});
  const jvm = ['-Xms256m', '-Xmx256m', `-Dlog4j2.configurationFile=${log4j}`, '-cp', join(lib, '*')];
  const id = spawnSync('java', [...jvm, 'kafka.tools.StorageTool', 'random-uuid'], { encoding: 'utf8' }).stdout.trim();
  const format = spawnSync('java', [...jvm, 'kafka.tools.StorageTool', 'format', '-t', id, '-c', server, ...quorum.formatArgs, ...scram], { encoding: 'utf8' });
  if (format.status !== 0) throw new Error(`formatting the second broker failed: ${format.stdout}${format.stderr}`);
  const child: ChildProcess = spawn('java', [...jvm, 'kafka.Kafka', server], { stdio: 'ignore' });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await Promise.race([new Promise((r) => child.once('exit', r)), sleep(15_000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  while (!(await listening(brokerPort))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error('the second broker did not start');
    }
    await sleep(250);
  }
  return { bootstrap: `127.0.0.1:${brokerPort}`, stop };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
