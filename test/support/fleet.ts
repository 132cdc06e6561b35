// Helpers for the batch (fleet) integration tests: a test file's set-up (startFleet), many
// FileStreamSource connectors with one unique name prefix, created a few at a time, and the end
// offset of a topic read from the sandbox broker with the project's Kafka client.
import { spawnSync } from 'node:child_process';
import { Admin } from '@platformatic/kafka';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectFixture, tempDir, uniqueName, waitFor, type ConnectFixture } from './connect.js';
import { cliPath as CLI } from './repo.js';

/**
 * Creates `count` FileStream sources named `<prefix>-NN` (so one --selector matches exactly
 * them), each reading its own file of `lines` lines into its own topic; waits until each is
 * RUNNING with its offset committed. Delete them with deleteConnectors.
 */
export async function createSources(cluster: ConnectFixture, prefix: string, count: number, lines = 3, atOnce = 5): Promise<FleetSource[]> {
  const made: FleetSource[] = [];
  for (let i = 0; i < count; i += atOnce) {
    made.push(...await Promise.all(Array.from({ length: Math.min(atOnce, count - i) }, async (_, j) => {
      const name = `${prefix}-${String(i + j).padStart(2, '0')}`;
      const file = join(cluster.dir, `${name}.txt`);
      writeFileSync(file, Array.from({ length: lines }, (_, k) => `line ${k + 1}`).join('\n') + '\n');
      const res = await cluster.request('POST', '/connectors', { name, config: { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', 'tasks.max': '1', file, topic: name } });
      if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${JSON.stringify(res.body)}`);
      await cluster.waitRunning(name);
      await waitFor(`${name} to commit its offset`, async () => Number((await cluster.offsets(name)).offsets[0]?.offset?.position ?? 0) > 0);
      return { name, file, topic: name };
    })));
  }
  return made;
}

/** What a batch test file works on: its sources under one unique name prefix, and its own state folder. */
export interface Fleet {
  cluster: ConnectFixture;
  /** `<name>-<unique>`: `--selector ^<prefix>-` matches exactly the sources. */
  prefix: string;
  sources: FleetSource[];
  stateDir: string;
  /** Deletes the sources (register with `after`). */
  remove(): Promise<void>;
}

/**
 * The set-up of a batch test file: `count` sources of `lines` lines (createSources) under a
 * unique prefix made of `name`, on the sandbox's first worker, and a fresh state folder.
 */
export async function startFleet(name: string, count: number, lines?: number): Promise<Fleet> {
  const cluster = await connectFixture();
  const prefix = uniqueName(name);
  const sources = await createSources(cluster, prefix, count, lines);
  return { cluster, prefix, sources, stateDir: tempDir('offsetctl-state-'), remove: () => deleteConnectors(cluster, sources.map((s) => s.name)) };
}

export interface FleetSource {
  name: string;
  file: string;
  topic: string;
}

export async function deleteConnectors(cluster: ConnectFixture, names: readonly string[]): Promise<void> {
  for (const name of names) await cluster.request('DELETE', `/connectors/${encodeURIComponent(name)}`).catch(() => undefined);
}

export function sandboxBootstrap(): string {
  const r = spawnSync(process.execPath, [CLI, 'sandbox', 'status', '--output', 'json'], { encoding: 'utf8' });
  const bootstrap = (JSON.parse(r.stdout) as { bootstrap?: string }).bootstrap;
  if (!bootstrap) throw new Error(`no bootstrap in sandbox status: ${r.stdout}${r.stderr}`);
  return bootstrap;
}

/** The end offset (number of records written) of partition 0 of each topic. */
export async function endOffsets(bootstrap: string, topics: readonly string[]): Promise<Map<string, number>> {
  const admin = new Admin({ clientId: 'offsetctl-fleet-test', bootstrapBrokers: [bootstrap] });
  try {
    const listed = await admin.listOffsets({ topics: topics.map((name) => ({ name, partitions: [{ partitionIndex: 0, timestamp: -1n }] })) });
    return new Map(listed.map((t) => [t.name, Number(t.partitions[0]?.offset ?? -1n)]));
  } finally {
    await admin.close();
  }
}

/** Batch JSON summary as printed by `--output json`. */
export interface BatchSummaryJson {
  batchId: string;
  operation: string;
  total: number;
  counts: Record<'succeeded' | 'unchanged' | 'failed' | 'skipped' | 'refused' | 'cancelled', number>;
  connectors: Array<{ connector: string; status: string; finalState: string; message: string; runId?: string; snapshotId?: string; failedStep?: string; recovered?: boolean }>;
}

export interface RunJson {
  id: string;
  connector: string;
  operation: string;
  status: string;
  batchId?: string;
  connectorState?: string;
  lastStep?: string;
}
