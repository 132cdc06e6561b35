// A sink rewound to an earlier kafka_offset re-delivers exactly the records after it; a
// connector that was PAUSED before a rewind is PAUSED again afterwards.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ConnectFixture, tempDir, uniqueName, waitFor, connectFixture } from '../support/connect.js';
import { runInProcess } from '../support/in-process.js';

let cluster: ConnectFixture;
let source: { name: string; file: string; topic: string };
let stateDir: string;

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(4);
  stateDir = tempDir('offsetctl-state-');
});
after(async () => cluster?.cleanup());

const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

test('rewinding a sink to kafka_offset 1 replays the records after it into the sink file', async () => {
  const name = uniqueName('ops-sink');
  const out = join(cluster.dir, `${name}.out`);
  const created = await cluster.request('POST', '/connectors', { name, config: { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', 'tasks.max': '1', file: out, topics: source.topic } });
  assert.equal(created.status, 201);
  try {
    await cluster.waitRunning(name);
    await waitFor('the sink to write 4 lines', async () => lines(out).length === 4);
    await waitFor('the sink to commit offset 4', async () => (await cluster.offsets(name)).offsets.some((o) => o.offset?.kafka_offset === 4));
    const target = { offsets: [{ partition: { kafka_topic: source.topic, kafka_partition: 0 }, offset: { kafka_offset: 1 } }] };
    const r = await runInProcess(['rewind', name, '--offsets', '-', '--yes', '--url', cluster.url, '--state-dir', stateDir], { stdin: JSON.stringify(target) });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /the connector is RUNNING/);
    await waitFor('the replayed lines', async () => lines(out).length === 7, 30_000);
    assert.deepEqual(lines(out), ['line 1', 'line 2', 'line 3', 'line 4', 'line 2', 'line 3', 'line 4']);
  } finally {
    await cluster.request('DELETE', `/connectors/${name}`);
  }
});

test('a PAUSED connector is PAUSED again after its rewind; --resume resumes it instead', async () => {
  assert.equal((await cluster.request('PUT', `/connectors/${source.name}/pause`)).status, 202);
  await waitFor('PAUSED', async () => (await cluster.status(source.name)).connector.state === 'PAUSED');
  const target = JSON.stringify({ offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] });
  const r = await runInProcess(['rewind', source.name, '--offsets', '-', '--yes', '--output', 'json', '--url', cluster.url, '--state-dir', stateDir], { stdin: target });
  assert.equal(r.status, 0, r.stderr);
  const outcome = JSON.parse(r.stdout) as { connectorState: string; message: string };
  assert.equal(outcome.connectorState, 'PAUSED');
  // Issue 20, point 15: Connect's own behaviour (no tasks until resumed), said in the outcome. Its
  // status topic may list the stopped task as UNASSIGNED for a moment after the stop: read until settled.
  const status = await waitFor('PAUSED with no tasks', async () => {
    const s = await cluster.status(source.name);
    return s.connector.state === 'PAUSED' && s.tasks.length === 0 ? s : undefined;
  }, 15_000).catch(async () => cluster.status(source.name));
  assert.equal(status.connector.state, 'PAUSED');
  assert.deepEqual(status.tasks, [], 'Connect brings a STOPPED connector back to PAUSED without tasks');
  assert.match(outcome.message, /the connector is PAUSED \(with no tasks: Kafka Connect starts a connector's tasks only when it runs/);
  assert.deepEqual((await cluster.offsets(source.name)).offsets[0]?.offset, { position: 0 });

  const resumed = await runInProcess(['rewind', source.name, '--offsets', '-', '--yes', '--resume', '--url', cluster.url, '--state-dir', stateDir], { stdin: target });
  assert.equal(resumed.status, 0, resumed.stderr);
  await cluster.waitRunning(source.name);
});
