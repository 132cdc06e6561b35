// Bad positions are refused with exit 2 before anything stops, with a message naming the problem,
// and the cluster is as it was: same offsets, connector still RUNNING, no run in the journal.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { runInProcess } from '../support/in-process.js';
import { connectFixture, type ConnectFixture, tempDir, uniqueName, waitFor, type OffsetsBody } from '../support/connect.js';
import { MINUTE, createTimedTopic, deleteTopics, listTopics, logEnds, sandboxBootstrap } from '../support/positions-kafka.js';

let cluster: ConnectFixture;
let bootstrap: string;
let stateDir: string;
let env: Record<string, string>;
let topic: string;
let gone: string;
let sink: string;
let sinkWithGoneTopic: string;
let checkpoint: string;
let fileSource: { name: string; file: string; topic: string };
const base = Math.floor(Date.now() / MINUTE) * MINUTE - 3_600_000;

before(async () => {
  cluster = await connectFixture();
  bootstrap = await sandboxBootstrap();
  stateDir = tempDir('offsetctl-positions-refusals-');
  env = { OFFSETCTL_CONFIG: join(stateDir, 'config.yaml') };
  topic = uniqueName('positions-refuse');
  gone = `${topic}-gone`;
  sink = `${topic}-sink`;
  sinkWithGoneTopic = `${topic}-sink2`;
  checkpoint = `${topic}-checkpoint`;
  await createTimedTopic(bootstrap, topic, { partitions: 2, count: 10, baseMs: base });
  await createTimedTopic(bootstrap, gone, { partitions: 1, count: 2, baseMs: base });
  const sinkConfig = (topics: string) => ({
    'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', 'tasks.max': '1', file: join(cluster.dir, `${topics.length}.out`), topics,
    // A deleted topic must stay deleted: the sink's consumer must not create it again.
    'consumer.override.allow.auto.create.topics': 'false',
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter', 'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
  });
  for (const [name, config] of [[sink, sinkConfig(topic)], [sinkWithGoneTopic, sinkConfig(`${topic},${gone}`)]] as const) {
    const res = await cluster.request('POST', '/connectors', { name, config });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
  // A source whose offsets mean nothing in Kafka terms. Not MirrorHeartbeatConnector: it creates
  // the `heartbeats` topic, which every same-cluster MirrorSourceConnector then copies (MirrorMaker
  // replicates heartbeat topics whatever its topic filter says), and copies of copies pile up.
  const hb = await cluster.request('POST', '/connectors', { name: checkpoint, config: {
    'connector.class': 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector', 'source.cluster.alias': `${topic}-a`, 'target.cluster.alias': `${topic}-b`,
    'source.cluster.bootstrap.servers': bootstrap, 'target.cluster.bootstrap.servers': bootstrap, 'checkpoints.topic.replication.factor': '1', groups: 'none-such',
  } });
  assert.equal(hb.status, 201, JSON.stringify(hb.body));
  fileSource = await cluster.createSource(3);
  for (const name of [sink, sinkWithGoneTopic]) {
    await cluster.waitRunning(name);
    await waitFor(`${name} to commit`, async () => (await cluster.offsets(name)).offsets.filter((o) => o.partition.kafka_topic === topic && o.offset?.kafka_offset === 5).length === 2);
  }
  await deleteTopics(bootstrap, [gone]);
});

after(async () => {
  for (const name of [sink, sinkWithGoneTopic, checkpoint]) await cluster?.request('DELETE', `/connectors/${name}`);
  await cluster?.cleanup();
  if (bootstrap) await deleteTopics(bootstrap, [topic, gone, ...(fileSource ? [fileSource.topic] : []), ...(await listTopics(bootstrap)).filter((t) => t.startsWith(`${topic}-a.`))]);
});

const sortKey = (o: OffsetsBody) => JSON.stringify(o.offsets.map((e) => JSON.stringify(e)).sort());

/** Runs the rewind, expects exit 2 with the message, and checks nothing changed on the cluster. */
async function refused(connector: string, args: string[], message: RegExp, extraEnv: Record<string, string> = {}): Promise<void> {
  const before = sortKey(await cluster.offsets(connector));
  const stateBefore = (await cluster.status(connector)).connector.state;
  const r = await runInProcess(['rewind', connector, '--url', cluster.url, '--state-dir', stateDir, '--yes', ...args], { env: { ...env, ...extraEnv } });
  assert.equal(r.status, 2, `exit ${r.status}\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, message);
  assert.equal(sortKey(await cluster.offsets(connector)), before, 'offsets changed');
  assert.equal((await cluster.status(connector)).connector.state, stateBefore, 'connector state changed');
  const runs = await runInProcess(['runs', '--state-dir', stateDir, '--output', 'json'], { env });
  assert.deepEqual(JSON.parse(runs.stdout), [], 'a run was started');
}

test('a time in the future', async () => {
  await refused(sink, ['--bootstrap', bootstrap, '--to-time', new Date(Date.now() + 3_600_000).toISOString()], /E_USAGE.*--to-time: .* is in the future/);
});

test('an unparsable time, and one without a zone', async () => {
  await refused(sink, ['--bootstrap', bootstrap, '--to-time', 'yesterday 9am'], /--to-time: cannot read "yesterday 9am".*ISO-8601/);
  await refused(sink, ['--bootstrap', bootstrap, '--to-time', '2026-01-01T09:55:00'], /add the zone/);
});

test('dates that do not exist, times before 1970 and out-of-range relative times (issue 20, points 6 and 7)', async () => {
  // Before the fix 02-30 was read as 2 March and applied; .999Z before 1970 became Kafka's "latest" (−1).
  await refused(sink, ['--bootstrap', bootstrap, '--to-time', '2026-02-30T00:00:00Z'], /E_USAGE.*--to-time: "2026-02-30T00:00:00Z" is not a real date and time \(February 2026 has 28 days\)/);
  await refused(sink, ['--bootstrap', bootstrap, '--to-time', '2026-04-31T00:00:00Z'], /April 2026 has 30 days/);
  await refused(sink, ['--bootstrap', bootstrap, '--to-time', '1969-12-31T23:59:59.999Z'], /before 1970-01-01T00:00:00Z, the earliest time Kafka can look up/);
  await refused(sink, ['--bootstrap', bootstrap, '--to-time', '-1000000d'], /before 1970/);
  const started = Date.now();
  // Before the fix: a raw BigInt error after 4 retries. An input error is never retried.
  await refused(sink, ['--bootstrap', bootstrap, '--to-time', '-99999999999999999999d'], /E_USAGE.*reaches back further than any record can be/);
  assert.ok(Date.now() - started < 30_000, `${Date.now() - started} ms: an input error is refused at once`);
});

test('--shift-by 0, and two positions at once', async () => {
  await refused(sink, ['--bootstrap', bootstrap, '--shift-by', '0'], /--shift-by 0 changes nothing/);
  await refused(sink, ['--bootstrap', bootstrap, '--to-earliest', '--to-latest'], /--to-earliest and --to-latest contradict/);
  await refused(sink, ['--bootstrap', bootstrap, '--to-earliest', '--offsets', '-'], /--offsets and a position .* contradict/);
});

test('positions on a plain source connector explain how to write an --offsets file', async () => {
  await refused(checkpoint, ['--bootstrap', bootstrap, '--to-time', '-1h'], /MirrorCheckpointConnector\) whose offsets are plugin-specific.*offsetctl offsets get .* --output json/);
  await refused(fileSource.name, ['--to-time', '-1h'], /FileStreamSource: .*only --to-earliest \(position 0\) and --to-latest \(the file's size\)/);
});

test('no bootstrap servers configured anywhere', async () => {
  await refused(sink, ['--to-earliest'], /E_CONFIG.*no Kafka bootstrap servers.*--bootstrap <host:port>.*set-context <name> --bootstrap/);
});

test('a topic of the sink that no longer exists', async () => {
  await refused(sinkWithGoneTopic, ['--bootstrap', bootstrap, '--to-earliest'], new RegExp(`consumes topic ${gone}, which no longer exists`));
});

// Last: this one changes the cluster on purpose.
test('FileStreamSource --to-earliest is position 0: the file is read again', async () => {
  assert.deepEqual(await logEnds(bootstrap, fileSource.topic, 1), [3]);
  const r = await runInProcess(['rewind', fileSource.name, '--url', cluster.url, '--state-dir', stateDir, '--to-earliest', '--yes', '--output', 'json'], { env });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual((JSON.parse(r.stdout) as { positions: { offsets: unknown[] } }).positions.offsets, [{ partition: { filename: fileSource.file }, offset: { position: 0 } }]);
  await waitFor('the 3 lines sent again', async () => (await logEnds(bootstrap, fileSource.topic, 1))[0] === 6, 60_000);
});

test('FileStreamSource --to-latest is the file\'s size: nothing is read again (issue 20, point 15: it was refused)', async () => {
  const size = statSync(fileSource.file).size;
  const before = (await logEnds(bootstrap, fileSource.topic, 1))[0];
  // Back to byte 0 first, so that --to-latest has something to move (skip everything once more).
  const reset = await runInProcess(['rewind', fileSource.name, '--url', cluster.url, '--state-dir', stateDir, '--offsets', '-', '--leave-stopped', '--yes'], { env, stdin: JSON.stringify({ offsets: [{ partition: { filename: fileSource.file }, offset: { position: 0 } }] }) });
  assert.equal(reset.status, 0, reset.stderr);
  const r = await runInProcess(['rewind', fileSource.name, '--url', cluster.url, '--state-dir', stateDir, '--to-latest', '--resume', '--yes', '--output', 'json'], { env });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual((JSON.parse(r.stdout) as { positions: { offsets: unknown[] } }).positions.offsets, [{ partition: { filename: fileSource.file }, offset: { position: size } }]);
  await cluster.waitRunning(fileSource.name);
  // RUNNING from the end of its file: no line is sent again.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.equal((await logEnds(bootstrap, fileSource.topic, 1))[0], before);
});
