// A sink moved to a Connect cluster on another Kafka cluster, with MirrorMaker 2 between them:
// the sandbox's other Kafka cluster (`sandbox up --other-kafka`, added here when missing and
// stopped again afterwards) runs a real MirrorSourceConnector and MirrorCheckpointConnector that
// mirror the pipeline's topic from the main Kafka cluster and checkpoint the sink's consumer
// group. Without --translate-offsets the move is refused with the reason (both Kafka cluster ids);
// with it, the sink continues on the other cluster from MirrorMaker's translation of exactly the
// offsets it committed when stopped, while lines keep coming: it re-delivers nothing it had
// delivered, and misses nothing.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import * as assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { ConnectRest, startPipeline, waitFor, type FilePipeline } from '../support/connect.js';
import { createTimedTopic, deleteTopics, listTopics } from '../support/positions-kafka.js';
import { forgetSandbox, getSandbox, requireLaneOne } from '../support/sandbox.js';
import { readLines } from '../../src/sandbox/index.js';
import { exactlyOnce, LineWriter, moveCli, moveStateDir } from '../support/move.js';

let main: ConnectRest;
let other: ConnectRest;
let otherUrls: string;
let mainUrls: string;
let mainBootstrap: string;
let otherBootstrap: string;
let addedOther = false;
let pipeline: FilePipeline;
let cli: ReturnType<typeof moveCli>;
const mirror = { source: 'it-mm2-source', checkpoint: 'it-mm2-checkpoint' };
const SHIFT = 5;

before(async () => {
  requireLaneOne('the other Kafka cluster');
  let sandbox = await getSandbox();
  if (!sandbox.clusters.some((c) => c.name === 'other')) {
    const up = await runCli(['sandbox', 'up', '--other-kafka'], { timeoutMs: 500_000 });
    assert.equal(up.status, 0, up.stderr);
    addedOther = true;
    forgetSandbox();
    sandbox = await getSandbox();
  }
  const o = sandbox.clusters.find((c) => c.name === 'other')!;
  main = new ConnectRest(sandbox.connect[0] as string);
  other = new ConnectRest(o.connect[0] as string);
  otherUrls = o.connect.join(',');
  mainUrls = sandbox.connect.join(',');
  mainBootstrap = sandbox.bootstrap;
  otherBootstrap = o.bootstrap;
  cli = moveCli(moveStateDir('move-mirror'));
  pipeline = await startPipeline(main, 'mirror', ['m 1', 'm 2', 'm 3']);
  await waitFor('the sink to deliver the first lines', async () => readLines(pipeline.outputFile).length === 3, 120_000);
  // The copy of the topic starts with 5 records of its own, so MirrorMaker's offsets there are
  // the main cluster's + 5: offsets carried over untranslated would re-deliver 5 lines.
  await createTimedTopic(otherBootstrap, pipeline.topic, { partitions: 1, count: SHIFT, baseMs: Date.now() - 60_000 });
  // MirrorMaker 2 on the other cluster: the pipeline's topic under its own name (identity
  // policy), an offset sync for every record (offset.lag.max 0), and checkpoints of the sink's
  // group every second (connect-* groups are left out by default: groups.exclude is set).
  const common = {
    'source.cluster.alias': 'main', 'target.cluster.alias': 'other',
    'source.cluster.bootstrap.servers': mainBootstrap, 'target.cluster.bootstrap.servers': otherBootstrap,
    'replication.policy.class': 'org.apache.kafka.connect.mirror.IdentityReplicationPolicy', topics: pipeline.topic, 'tasks.max': '1',
    'key.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter', 'value.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
  };
  await other.createConnector(mirror.source, {
    ...common, 'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector', 'replication.factor': '1', 'offset-syncs.topic.replication.factor': '1',
    'sync.topic.configs.enabled': 'false', 'sync.topic.acls.enabled': 'false', 'refresh.topics.interval.seconds': '1', 'offset.lag.max': '0',
  });
  await other.createConnector(mirror.checkpoint, {
    ...common, 'connector.class': 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector', groups: `connect-${pipeline.sink}`, 'groups.exclude': '__.*',
    'emit.checkpoints.interval.seconds': '1', 'refresh.groups.interval.seconds': '1', 'checkpoints.topic.replication.factor': '1', 'sync.group.offsets.enabled': 'false',
  });
  await other.waitForRunning(mirror.source, 1, 180_000);
  await waitFor('the topic mirrored to the other Kafka cluster', async () => (await listTopics(otherBootstrap)).includes(pipeline.topic), 180_000);
  await waitFor('the checkpoint connector to run a task', async () => {
    const s = await other.status(mirror.checkpoint);
    return s.connector.state === 'RUNNING' && s.tasks.some((t) => t.state === 'RUNNING');
  }, 180_000);
});

after(async () => {
  for (const name of [pipeline?.sink, mirror.source, mirror.checkpoint]) if (other && name) await other.deleteConnector(name).catch(() => undefined);
  await pipeline?.remove().catch(() => undefined);
  // The offset-syncs topic MirrorMaker keeps on the main cluster, and the pipeline's topic.
  if (mainBootstrap) await deleteTopics(mainBootstrap, ['mm2-offset-syncs.other.internal', ...(pipeline ? [pipeline.topic] : [])]);
  if (addedOther) await runCli(['sandbox', 'down', '--cluster', 'other'], { timeoutMs: 120_000 });
});

test('a sink moved to the other Kafka cluster: refused without --translate-offsets; with it, nothing re-delivered, nothing missed', { timeout: 900_000 }, async () => {
  const refused = await cli(['move', pipeline.sink, '--url', mainUrls, '--to', otherUrls, '--yes']);
  assert.equal(refused.status, 2, refused.stderr);
  assert.match(refused.stderr, /is a sink: its offsets are consumer group connect-.* on Kafka cluster \S+, .* works with Kafka cluster \S+, where those offsets mean nothing.*--translate-offsets <source-cluster-alias>/);
  assert.equal((await main.status(pipeline.sink)).connector.state, 'RUNNING', 'refused: nothing changed');
  // The Kafka cluster to check the translation against must be the one the sink reads.
  const wrongFrom = await cli(['move', pipeline.sink, '--url', mainUrls, '--to', otherUrls, '--translate-offsets', 'main', '--bootstrap', otherBootstrap, '--from-bootstrap', otherBootstrap, '--yes']);
  assert.equal(wrongFrom.status, 2, wrongFrom.stderr);
  assert.match(wrongFrom.stderr, /--from-bootstrap names the Kafka cluster the sink reads now/);
  assert.equal((await main.status(pipeline.sink)).connector.state, 'RUNNING', 'refused: nothing changed');

  const writer = new LineWriter(pipeline.inputFile, 'live', 150);
  let outcome: { status: string; warnings: string[]; translation?: Array<{ committed: number; downstream: number; status: string; check?: string; mirrorMaker?: number }> };
  try {
    await waitFor('live lines delivered on the main cluster', async () => readLines(pipeline.outputFile).length >= 10, 120_000);
    const moved = await cli(['move', pipeline.sink, '--url', mainUrls, '--to', otherUrls, '--translate-offsets', 'main', '--bootstrap', otherBootstrap, '--from-bootstrap', mainBootstrap, '--yes', '-o', 'json'], { timeoutMs: 400_000 });
    assert.equal(moved.status, 0, moved.stderr.slice(-3000) + moved.stdout.slice(-2000));
    outcome = JSON.parse(moved.stdout) as typeof outcome;
    await waitFor('the moved sink to deliver new lines', async () => readLines(pipeline.outputFile).length > writer.lines.length - 5, 120_000);
  } finally {
    writer.stop();
  }
  assert.equal(outcome.status, 'succeeded');
  assert.equal(outcome.translation?.[0]?.status, 'current', JSON.stringify(outcome.translation));
  // MirrorMaker's own translation is short when it holds no sync of the committed record (seen in
  // CI: 14 → 14); checked against the records it is exact either way.
  assert.ok(['exact', 'refined'].includes(outcome.translation?.[0]?.check ?? ''), JSON.stringify(outcome.translation));
  if (outcome.translation?.[0]?.check === 'refined') assert.ok(outcome.warnings.some((w) => /translation was short/.test(w)), JSON.stringify(outcome.warnings));
  assert.equal(outcome.translation?.[0]?.downstream, (outcome.translation?.[0]?.committed ?? 0) + SHIFT, `translated, not carried as is: ${JSON.stringify(outcome.translation)}`);
  assert.equal((await main.request('GET', `/connectors/${pipeline.sink}`)).status, 404, 'gone from the main cluster');
  const expected = ['m 1', 'm 2', 'm 3', ...writer.lines];
  await waitFor(`all ${expected.length} lines delivered`, async () => readLines(pipeline.outputFile).length >= expected.length, 180_000);
  await new Promise((r) => setTimeout(r, 3000));
  const check = exactlyOnce(expected, readLines(pipeline.outputFile));
  assert.deepEqual(check.doubled, [], 'nothing re-delivered');
  assert.deepEqual(check.missing, [], 'nothing missed');
});
