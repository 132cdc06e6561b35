// MirrorMaker 2 rewound by time. The sandbox has one Kafka cluster, so the MirrorSourceConnector
// copies from that cluster to itself: source alias `<unique>`, and the default replication policy
// writes topic T to `<alias>.T` — the prefix keeps source and copy apart, and the source cluster's
// offsets (what MirrorMaker stores) are looked up through source.cluster.bootstrap.servers.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { runCli } from '../support/cli.js';
import { connectFixture, type ConnectFixture, tempDir, uniqueName, waitFor } from '../support/connect.js';
import { join } from 'node:path';
import { MINUTE, createTimedTopic, deleteTopics, listTopics, logEnds, readValues, sandboxBootstrap } from '../support/positions-kafka.js';

let cluster: ConnectFixture;
let bootstrap: string;
let stateDir: string;
let env: Record<string, string>;
let topic: string;
let alias: string;
let copy: string;
let mirror: string;
// Record i (rec-i) is in partition i % 2 at offset floor(i / 2), written at base + i minutes.
const base = Math.floor(Date.now() / MINUTE) * MINUTE - 3_600_000;

interface PlanJson {
  positions: { kafka: { clusterIdCheck: string }; plan: { rows: Array<{ partition: number; committed: number | null; target: number | null }> }; offsets: Array<{ partition: Record<string, unknown>; offset: { offset: number } | null }> };
}

before(async () => {
  cluster = await connectFixture();
  bootstrap = await sandboxBootstrap();
  stateDir = tempDir('offsetctl-positions-mm2-');
  env = { OFFSETCTL_CONFIG: join(stateDir, 'none.yaml') };
  topic = uniqueName('positions-mm2');
  alias = `src${Date.now().toString(36)}`;
  copy = `${alias}.${topic}`;
  mirror = `${topic}-mirror`;
  await createTimedTopic(bootstrap, topic, { partitions: 2, count: 20, baseMs: base });
  const res = await cluster.request('POST', '/connectors', { name: mirror, config: {
    'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector', 'tasks.max': '1',
    'source.cluster.alias': alias, 'target.cluster.alias': 'tgt',
    'source.cluster.bootstrap.servers': bootstrap, 'target.cluster.bootstrap.servers': bootstrap,
    topics: topic, 'replication.factor': '1', 'offset-syncs.topic.replication.factor': '1',
    'sync.topic.acls.enabled': 'false', 'sync.topic.configs.enabled': 'false', 'refresh.topics.interval.seconds': '1',
    'key.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter', 'value.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
  } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  // The shared sandbox may be rebalancing for others' connectors: give the start more time.
  await waitFor(`${mirror} and its task RUNNING`, async () => {
    const s = await cluster.status(mirror);
    return s.connector.state === 'RUNNING' && s.tasks.length > 0 && s.tasks.every((t) => t.state === 'RUNNING');
  }, 180_000, 500);
  // Once (CI, lane 1, late in a loaded run) it had not copied them in 90 s: wait longer, and say
  // what MirrorMaker was doing if it still has not.
  await waitFor('MirrorMaker to copy the 20 records', async () => (await logEnds(bootstrap, copy, 2).catch(() => [0, 0])).join() === '10,10', 180_000)
    .catch(async (err: Error) => {
      const status = await cluster.status(mirror).catch((e: Error) => e.message);
      const ends = await logEnds(bootstrap, copy, 2).catch((e: Error) => e.message);
      const topics = (await listTopics(bootstrap).catch(() => [])).filter((t) => t.includes(alias));
      throw new Error(`${err.message}; ${mirror}: ${JSON.stringify(status)}; ${copy} ends ${JSON.stringify(ends)}; topics of ${alias}: ${topics.join(', ') || 'none'}`);
    });
  // It stores the offset of the last record copied: 9 on both partitions.
  await waitFor('its offsets to be stored', async () => (await cluster.offsets(mirror)).offsets.filter((o) => o.offset?.offset === 9).length === 2, 60_000);
});

after(async () => {
  await cluster?.request('DELETE', `/connectors/${mirror}`);
  // Everything this alias created: the copy, and any heartbeat topic MirrorMaker copied (it copies
  // those whatever its topic filter says; left behind, the next run would copy the copies).
  if (bootstrap && topic) await deleteTopics(bootstrap, [topic, ...(await listTopics(bootstrap)).filter((t) => t.startsWith(`${alias}.`))]);
});

test('--to-earliest dry run: next upstream offset 10 → 0, written as removed offsets (MirrorMaker then starts at the beginning)', async () => {
  const r = await runCli(['rewind', mirror, '--url', cluster.url, '--state-dir', stateDir, '--to-earliest', '--dry-run', '--output', 'json'], { env });
  assert.equal(r.status, 0, r.stderr);
  const json = JSON.parse(r.stdout) as PlanJson;
  assert.equal(json.positions.kafka.clusterIdCheck, 'not-applicable-source-cluster');
  assert.deepEqual(json.positions.plan.rows.map((row) => [row.partition, row.committed, row.target]), [[0, 10, 0], [1, 10, 0]]);
  assert.deepEqual(json.positions.offsets.map((o) => o.offset), [null, null]);
});

test('--to-time: MirrorMaker re-copies exactly the records written after the time', async () => {
  // 12.5 minutes after the base: first later records are rec-13 (partition 1, offset 6) and rec-14 (partition 0, offset 7).
  const at = new Date(base + 12 * MINUTE + 30_000).toISOString();
  const r = await runCli(['rewind', mirror, '--url', cluster.url, '--state-dir', stateDir, '--to-time', at, '--yes', '--output', 'json'], { env });
  assert.equal(r.status, 0, r.stderr);
  const json = JSON.parse(r.stdout) as PlanJson;
  assert.deepEqual(json.positions.plan.rows.map((row) => [row.partition, row.committed, row.target]), [[0, 10, 7], [1, 10, 6]]);
  // Connect stores "last copied": one less than the next offset to copy.
  assert.deepEqual(json.positions.offsets.map((o) => [o.partition.partition, o.offset?.offset]), [[0, 6], [1, 5]]);
  await waitFor('the 7 re-copied records', async () => (await logEnds(bootstrap, copy, 2)).join() === '13,14', 180_000);
  const values = await readValues(bootstrap, copy, 27);
  const recopied = values.filter((v, i) => values.indexOf(v) !== i).map((v) => Number(v.slice(4))).sort((a, b) => a - b);
  assert.deepEqual(recopied, [13, 14, 15, 16, 17, 18, 19]);
  assert.equal(values.length, 27);
});
