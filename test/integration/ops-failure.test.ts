// A failure after the stop puts the connector back: offsets from the snapshot, state as before.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { type ConnectFixture, sortedOffsets, tempDir, uniqueName, waitFor, connectFixture } from '../support/connect.js';
import { runInProcess } from '../support/in-process.js';

let cluster: ConnectFixture;
let source: { name: string; file: string; topic: string };
let stateDir: string;

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(5);
  stateDir = tempDir('offsetctl-state-');
});
after(async () => cluster?.cleanup());

test('a negative FileStreamSource position is refused by the pre-flight (exit 2) before the connector is stopped', async () => {
  const before = await cluster.offsets(source.name);
  const target = { offsets: [{ partition: { filename: source.file }, offset: { position: -1 } }] };
  const r = await runInProcess(['rewind', source.name, '--offsets', '-', '--yes', '--url', cluster.url, '--state-dir', stateDir], { stdin: JSON.stringify(target) });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /offsets\[0\]\.offset\.position: must be ≥ 0/);
  assert.equal((await cluster.status(source.name)).connector.state, 'RUNNING');
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(before));
});

test('when Connect rejects the new offsets, the run exits 1, says the connector is RUNNING, and nothing changed', async () => {
  // A sink partition that does not exist passes every check offsetctl can make without broker
  // metadata; Kafka Connect refuses it only after the stop (500 "Failed to alter consumer group offsets").
  const name = uniqueName('ops-rejected-sink');
  const created = await cluster.request('POST', '/connectors', { name, config: { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', 'tasks.max': '1', file: `${source.file}.out`, topics: source.topic } });
  assert.equal(created.status, 201);
  try {
    await cluster.waitRunning(name);
    await waitFor(`${name} to commit its consumer offset`, async () => (await cluster.offsets(name)).offsets.length > 0);
    const before = await cluster.offsets(name);
    const target = { offsets: [{ partition: { kafka_topic: source.topic, kafka_partition: 99 }, offset: { kafka_offset: 1 } }] };
    const r = await runInProcess(['rewind', name, '--offsets', '-', '--yes', '--url', cluster.url, '--state-dir', stateDir], { stdin: JSON.stringify(target) });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /failed at step rewindOffsets/);
    assert.match(r.stderr, /now RUNNING/);
    assert.match(r.stderr, /Offsets had not changed/);
    await cluster.waitRunning(name);
    assert.deepEqual(sortedOffsets(await cluster.offsets(name)), sortedOffsets(before));
    const runs = JSON.parse((await runInProcess(['runs', '--output', 'json', '--state-dir', stateDir])).stdout) as Array<{ status: string; connectorState: string; connector: string }>;
    assert.equal(runs[0]?.connector, name);
    assert.equal(runs[0]?.status, 'failed');
    assert.equal(runs[0]?.connectorState, 'RUNNING');
  } finally {
    await cluster.request('DELETE', `/connectors/${name}`);
  }
});

test('a task that FAILS after the resume ends the run with exit 1, its trace, and the connector state', async () => {
  const name = uniqueName('ops-badsink');
  // The sink task cannot open its file: it fails whenever it starts.
  const created = await cluster.request('POST', '/connectors', { name, config: { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', 'tasks.max': '1', file: '/nonexistent-dir/offsetctl/out.txt', topics: source.topic } });
  assert.equal(created.status, 201);
  try {
    await waitFor('the sink task to fail', async () => (await cluster.status(name)).tasks[0]?.state === 'FAILED');
    const target = { offsets: [{ partition: { kafka_topic: source.topic, kafka_partition: 0 }, offset: { kafka_offset: 0 } }] };
    const r = await runInProcess(['rewind', name, '--offsets', '-', '--yes', '--url', cluster.url, '--state-dir', stateDir], { stdin: JSON.stringify(target) });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /failed at step waitForRunning: task 0 FAILED: .*Couldn't find or create file/);
    assert.match(r.stderr, /The connector is now RUNNING with task 0 FAILED/);
  } finally {
    await cluster.request('DELETE', `/connectors/${name}`);
  }
});
