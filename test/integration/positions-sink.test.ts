// Positions on a real sink: a topic with one record a minute over an hour (explicit timestamps),
// a FileStreamSink that wrote all of it, then --to-time, --shift-by, --to-earliest (through a
// context's bootstrap), --to-latest and --to-offset. Checks the exact target offset per partition
// and that the sink really re-delivers exactly the records after the position.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInProcess } from '../support/in-process.js';
import { connectFixture, type ConnectFixture, tempDir, uniqueName, waitFor } from '../support/connect.js';
import { KafkaAdmin } from '../../src/kafka/admin.js';
import { MINUTE, createTimedTopic, deleteTopics, sandboxBootstrap } from '../support/positions-kafka.js';

let cluster: ConnectFixture;
let bootstrap: string;
let topic: string;
let sink: string;
let out: string;
let stateDir: string;
let env: Record<string, string>;
/** Lines in the sink's file once it has delivered and committed all 60 records (60, unless re-delivered). */
let seen: number;
// Record i (value rec-i) is in partition i % 2 at offset floor(i / 2), written at base + i minutes.
const base = Math.floor(Date.now() / MINUTE) * MINUTE - 3 * 3_600_000;

const lines = (): string[] => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter(Boolean) : []);
const recs = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, k) => `rec-${from + k}`);
const sorted = (l: string[]) => l.slice().sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)));

interface PlanJson {
  positions: { kafka: { clusterId: string; clusterIdCheck: string }; plan: { position: string; rows: Array<{ topic: string; partition: number; committed: number | null; target: number | null; logStart: number; logEnd: number; replay: number; skip: number; notes: string[] }> } };
  status: string;
}

async function committed(): Promise<number[]> {
  const o = await cluster.offsets(sink);
  return [0, 1].map((p) => Number(o.offsets.find((e) => e.partition.kafka_partition === p)?.offset?.kafka_offset ?? -1));
}

async function rewind(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return runInProcess(['rewind', sink, '--url', cluster.url, '--state-dir', stateDir, ...args], { env });
}

before(async () => {
  cluster = await connectFixture();
  bootstrap = await sandboxBootstrap();
  stateDir = tempDir('offsetctl-positions-');
  env = { OFFSETCTL_CONFIG: join(stateDir, 'config.yaml') };
  topic = uniqueName('positions-timed');
  sink = `${topic}-sink`;
  out = join(cluster.dir, `${sink}.out`);
  await createTimedTopic(bootstrap, topic, { partitions: 2, count: 60, baseMs: base });
  await cluster.createSink(topic, { name: sink, strings: true });
  // Every record in the file, and committed. A FileStreamSink delivers at least once: a neighbour's
  // rebalance while it consumes re-delivers what it had not committed yet, so the file may hold a
  // record twice; the tests below count from `seen`, the lines there are once all is committed.
  try {
    await waitFor('the sink to write the 60 records', async () => new Set(lines()).size === 60, 180_000);
    await waitFor('the sink to commit 30 on both partitions', async () => (await committed()).join() === '30,30');
  } catch (err) {
    const status = await cluster.status(sink).catch((e: Error) => e.message);
    throw new Error(`${(err as Error).message} (${lines().length} lines, ${new Set(lines()).size} distinct; committed ${(await committed().catch(() => [])).join()}; status ${JSON.stringify(status).slice(0, 1500)})`);
  }
  seen = lines().length;
});

after(async () => {
  await cluster?.request('DELETE', `/connectors/${sink}`);
  if (bootstrap && topic) await deleteTopics(bootstrap, [topic]);
});

test('--to-time dry run: the first offset at or after the time, per partition, and nothing changes', async () => {
  // 40.5 minutes after the base: the first later record is rec-41 (partition 1, offset 20), then rec-42 (partition 0, offset 21).
  const at = new Date(base + 40 * MINUTE + 30_000).toISOString();
  const r = await rewind(['--bootstrap', bootstrap, '--to-time', at, '--dry-run', '--output', 'json']);
  assert.equal(r.status, 0, r.stderr);
  const json = JSON.parse(r.stdout) as PlanJson;
  assert.equal(json.status, 'dry-run');
  assert.equal(json.positions.kafka.clusterIdCheck, 'matches-worker');
  assert.deepEqual(json.positions.plan.rows.map((row) => [row.partition, row.committed, row.target, row.logStart, row.logEnd, row.replay, row.skip]), [
    [0, 30, 21, 0, 30, 9, 0],
    [1, 30, 20, 0, 30, 10, 0],
  ]);
  assert.match(r.stderr, /COMMITTED\s+TARGET\s+LOG START\s+LOG END\s+REPLAY\s+SKIP/);
  assert.deepEqual(await committed(), [30, 30]);
  assert.equal(lines().length, seen);
});

test('--to-time rewinds and the sink re-delivers exactly the records written after the time', async () => {
  const r = await rewind(['--bootstrap', bootstrap, '--to-time', new Date(base + 40 * MINUTE + 30_000).toISOString(), '--yes']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /19 record\(s\) to replay/);
  await waitFor('19 re-delivered records', async () => lines().length >= seen + 19, 60_000);
  await waitFor('the sink to commit 30 again', async () => (await committed()).join() === '30,30');
  assert.equal(lines().length, seen + 19);
  assert.deepEqual(sorted(lines().slice(seen)), recs(41, 59));
});

test('the admin client reads the same committed offsets as Kafka Connect, from group connect-<sink>', async () => {
  const admin = new KafkaAdmin({ bootstrap: [bootstrap] });
  try {
    const group = await admin.committedOffsets(`connect-${sink}`);
    assert.deepEqual([group.get(`${topic}:0`), group.get(`${topic}:1`)], await committed());
  } finally {
    await admin.close();
  }
});

test('--shift-by -2 replays the last two records of each partition', async () => {
  const before = lines().length;
  const r = await rewind(['--bootstrap', bootstrap, '--shift-by', '-2', '--yes']);
  assert.equal(r.status, 0, r.stderr);
  await waitFor('4 re-delivered records', async () => lines().length >= before + 4, 60_000);
  await waitFor('the sink to commit 30 again', async () => (await committed()).join() === '30,30');
  assert.deepEqual(sorted(lines().slice(before)), recs(56, 59));
});

test('--to-earliest with the bootstrap from the context replays everything; --to-latest and --to-offset plan from the log', async () => {
  const ctx = await runInProcess(['config', 'set-context', 'sandbox', '--url', cluster.url, '--bootstrap', bootstrap], { env });
  assert.equal(ctx.status, 0, ctx.stderr);
  const before = lines().length;
  const r = await rewind(['--to-earliest', '--yes']);
  assert.equal(r.status, 0, r.stderr);
  await waitFor('60 re-delivered records', async () => lines().length >= before + 60, 60_000);
  await waitFor('the sink to commit 30 again', async () => (await committed()).join() === '30,30');
  assert.deepEqual(sorted(lines().slice(before)), recs(0, 59));

  const latest = await rewind(['--to-latest', '--dry-run', '--output', 'json']);
  assert.equal(latest.status, 0, latest.stderr);
  assert.deepEqual((JSON.parse(latest.stdout) as PlanJson).positions.plan.rows.map((row) => [row.target, row.notes]), [[30, ['unchanged']], [30, ['unchanged']]]);
  // Issue 20, point 15: the text said "2 of 2 partition(s) to write" (and the heading "2 to write") before "nothing to change".
  const latestText = await rewind(['--to-latest', '--dry-run']);
  assert.equal(latestText.status, 0, latestText.stderr);
  assert.match(latestText.stdout, /: nothing to write, its 2 partition\(s\) already hold the target\n/);
  assert.match(latestText.stdout, /--to-latest: 0 of 2 partition\(s\) to write/);
  assert.doesNotMatch(latestText.stdout, /(: [1-9]\d*| [1-9]\d* of 2) partition\(s\) to write/);

  const one = await rewind(['--to-offset', '5', '--partition', `${topic}:1`, '--dry-run', '--output', 'json']);
  assert.equal(one.status, 0, one.stderr);
  assert.deepEqual((JSON.parse(one.stdout) as PlanJson).positions.plan.rows.map((row) => [row.partition, row.target, row.replay]), [[1, 5, 25]]);
});

test('a sink with consumer.override.bootstrap.servers is looked up there, without --bootstrap or a context', async () => {
  const name = uniqueName('positions-override');
  const created = await cluster.request('POST', '/connectors', { name, config: {
    'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', 'tasks.max': '1', file: join(cluster.dir, `${name}.out`), topics: topic,
    'consumer.override.bootstrap.servers': bootstrap, 'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
  }, initial_state: 'STOPPED' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  try {
    const r = await runInProcess(['rewind', name, '--url', cluster.url, '--state-dir', stateDir, '--to-earliest', '--dry-run', '--output', 'json'], { env: { OFFSETCTL_CONFIG: join(stateDir, 'none.yaml') } });
    assert.equal(r.status, 0, r.stderr);
    const json = JSON.parse(r.stdout) as PlanJson;
    assert.equal(json.positions.kafka.clusterIdCheck, 'skipped-connector-override');
    assert.deepEqual(json.positions.plan.rows.map((row) => [row.partition, row.committed, row.target, row.notes]), [[0, null, 0, ['never-committed']], [1, null, 0, ['never-committed']]]);
    assert.match(r.stderr, /sets consumer.override.bootstrap.servers/);
  } finally {
    await cluster.request('DELETE', `/connectors/${name}`);
  }
});
