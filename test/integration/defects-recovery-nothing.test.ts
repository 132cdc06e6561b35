// Issue 20, point 2 on the sandbox: a recovery with nothing to undo must not leave the connector
// STOPPED. A sink with no committed offsets is rewound (no Kafka access) to a partition Connect
// cannot write (it does not exist): the PATCH gets Connect's 500 "Failed to alter consumer group
// offsets". The snapshot is empty and so are the live offsets, so there is nothing to restore;
// before the fix, when the recovery could not read the live offsets at its first try, it PATCHed
// nulls for the partition it never wrote, got the same 500, and reported "THE CONNECTOR IS LEFT
// STOPPED" (a plain rollback right after said "no change" and resumed it). The one injected
// fault: a loopback proxy in front of the real worker answers the first offsets read after the
// failed PATCH with a 500; every other answer is the real worker's.
// Real parts: the sandbox's Kafka broker and Connect cluster, a loopback HTTP server, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { runInProcess } from '../support/in-process.js';
import { connectFixture, tempDir, uniqueName, type ConnectFixture } from '../support/connect.js';
import { startEchoWorker, type EchoWorker } from '../support/echo-worker.js';
import { createTimedTopic, deleteTopics, sandboxBootstrap } from '../support/positions-kafka.js';
import { offsetsFile } from './defects-support.js';

let cluster: ConnectFixture;
let bootstrap: string;
let topic: string;
let sink: { name: string };
let broken: EchoWorker;
const noKafka = { OFFSETCTL_BOOTSTRAP: '', OFFSETCTL_CONFIG: '/nonexistent/offsetctl-config.yaml' };

before(async () => {
  cluster = await connectFixture();
  bootstrap = await sandboxBootstrap();
  topic = uniqueName('defects-nothing');
  await createTimedTopic(bootstrap, topic, { partitions: 1, count: 0, baseMs: Date.now() });
  sink = await cluster.createSink(topic);
  broken = await startEchoWorker(cluster.url, () => false);
});
after(async () => {
  await broken?.stop();
  await cluster?.cleanup();
  await deleteTopics(bootstrap, [topic]).catch(() => undefined);
});

test('2: the change gets 500 and the live offsets cannot be read at first: recovery finds nothing to restore and puts the sink back RUNNING', async () => {
  assert.deepEqual((await cluster.offsets(sink.name)).offsets, [], 'the sink has no committed offsets');
  // Partition 7 of a 1-partition topic: Connect answers the PATCH (and a PATCH of null for it) 500.
  const target = offsetsFile([{ partition: { kafka_topic: topic, kafka_partition: 7 }, offset: { kafka_offset: 0 } }]);
  let patched = false;
  let failedReads = 0;
  broken.setFailing((method, path) => {
    if (method === 'PATCH' && path.endsWith('/offsets')) patched = true;
    // The first offsets read after the rewind's PATCH fails (the recovery's look at what is live).
    if (method !== 'GET' || !path.endsWith('/offsets') || !patched || failedReads >= 1) return false;
    failedReads++;
    return true;
  });
  const r = await runInProcess(['rewind', sink.name, '--offsets', target, '--yes', '--url', broken.url, '--state-dir', tempDir('nothing-state')], { env: noKafka });
  broken.setFailing(() => false);
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /Failed to alter consumer group offsets/);
  assert.doesNotMatch(r.stderr, /LEFT STOPPED/, r.stderr);
  assert.match(r.stderr, /The connector is now RUNNING/);
  const status = await cluster.status(sink.name);
  assert.equal(status.connector.state, 'RUNNING', 'the sink is back as it was');
  assert.deepEqual((await cluster.offsets(sink.name)).offsets, [], 'and still has no offsets');
});

test('2: the offsets cannot be read for seconds after the refused change: once they can, nothing differs from the snapshot and the sink is put back', async () => {
  const target = offsetsFile([{ partition: { kafka_topic: topic, kafka_partition: 9 }, offset: { kafka_offset: 0 } }]);
  let patchedAt = 0;
  broken.setFailing((method, path) => {
    if (method === 'PATCH' && path.endsWith('/offsets') && patchedAt === 0) patchedAt = Date.now();
    // Every offsets read fails for 7 s after the rewind's PATCH: longer than the recovery's first look.
    return method === 'GET' && path.endsWith('/offsets') && patchedAt > 0 && Date.now() - patchedAt < 7_000;
  });
  const r = await runInProcess(['rewind', sink.name, '--offsets', target, '--yes', '--url', broken.url, '--state-dir', tempDir('nothing-state')], { env: noKafka });
  broken.setFailing(() => false);
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.doesNotMatch(r.stderr, /LEFT STOPPED/, r.stderr);
  assert.equal((await cluster.status(sink.name)).connector.state, 'RUNNING');
  assert.deepEqual((await cluster.offsets(sink.name)).offsets, []);
});

test('2: the topic deleted under a sink without offsets: the failed rewind leaves it as it was (no Kafka access)', async () => {
  const gone = uniqueName('defects-gone');
  await createTimedTopic(bootstrap, gone, { partitions: 1, count: 0, baseMs: Date.now() });
  const name = uniqueName('defects-gone-sink');
  const created = await cluster.request('POST', '/connectors', { name, config: {
    'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', 'tasks.max': '1', file: join(cluster.dir, `${name}.out`), topics: gone,
    // A deleted topic must stay deleted: the sink's consumer must not create it again.
    'consumer.override.allow.auto.create.topics': 'false',
  } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  try {
    await cluster.waitRunning(name);
    await deleteTopics(bootstrap, [gone]);
    const target = offsetsFile([{ partition: { kafka_topic: gone, kafka_partition: 0 }, offset: { kafka_offset: 0 } }]);
    const r = await runInProcess(['rewind', name, '--offsets', target, '--yes', '--url', cluster.url, '--state-dir', tempDir('nothing-state')], { env: noKafka });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.doesNotMatch(r.stderr, /LEFT STOPPED/);
    assert.equal((await cluster.status(name)).connector.state, 'RUNNING');
  } finally {
    await cluster.deleteConnector(name).catch(() => undefined);
  }
});
