// One connector of five fails for real after its stop (Kafka Connect rejects its new offsets
// at PATCH time): its own run puts it back; the other four get their offsets and run again;
// the JSON summary, the exit status and `runs --batch` say exactly that.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { runInProcess } from '../support/in-process.js';
import { sortedOffsets, waitFor, type OffsetsBody } from '../support/connect.js';
import { deleteConnectors, startFleet, type BatchSummaryJson, type Fleet, type RunJson } from '../support/fleet.js';

let fleet: Fleet;
let sink: string;

before(async () => {
  fleet = await startFleet('fleet-fail', 4);
  const { cluster, prefix, sources } = fleet;
  // The fifth: a sink on the first source's topic, also matched by the selector.
  sink = `${prefix}-sink`;
  const created = await cluster.request('POST', '/connectors', { name: sink, config: { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', 'tasks.max': '1', file: join(cluster.dir, `${sink}.out`), topics: sources[0]!.topic } });
  assert.equal(created.status, 201);
  await cluster.waitRunning(sink);
  await waitFor(`${sink} to commit its consumer offset`, async () => (await cluster.offsets(sink)).offsets.length > 0);
});
after(async () => {
  if (fleet && sink) await deleteConnectors(fleet.cluster, [sink]);
  await fleet?.remove();
});

test('a rewind of five where Connect rejects one connector\'s offsets: four rewound and RUNNING, the fifth put back, exit 1', async () => {
  const { cluster, prefix, sources, stateDir } = fleet;
  const sinkBefore = await cluster.offsets(sink);
  // Each source gets a partition it does not read, so the written offset stays as written.
  const elsewhere = (name: string) => ({ filename: join(cluster.dir, `${name}-elsewhere.txt`) });
  const perConnector: Record<string, unknown> = Object.fromEntries(sources.map((s) => [s.name, { offsets: [{ partition: elsewhere(s.name), offset: { position: 7 } }] }]));
  // A partition the topic does not have passes every pre-flight check; Connect refuses it after the stop.
  perConnector[sink] = { offsets: [{ partition: { kafka_topic: sources[0]!.topic, kafka_partition: 99 }, offset: { kafka_offset: 1 } }] };

  const r = await runInProcess(['rewind', '--selector', `^${prefix}-`, '--offsets', '-', '--concurrency', '5', '--yes', '--output', 'json', '--url', cluster.url, '--state-dir', stateDir], {
    stdin: JSON.stringify({ connectors: perConnector }),
  });
  assert.equal(r.status, 1, r.stderr);
  const summary = JSON.parse(r.stdout) as BatchSummaryJson;
  assert.equal(summary.total, 5);
  assert.deepEqual(summary.counts, { succeeded: 4, unchanged: 0, failed: 1, skipped: 0, refused: 0, cancelled: 0 });
  const failed = summary.connectors.find((c) => c.connector === sink)!;
  assert.equal(failed.status, 'failed');
  assert.equal(failed.failedStep, 'rewindOffsets');
  assert.equal(failed.recovered, true);
  assert.equal(failed.finalState, 'RUNNING');
  assert.match(failed.message, /failed at step rewindOffsets/);
  for (const s of sources) {
    const row = summary.connectors.find((c) => c.connector === s.name)!;
    assert.equal(row.status, 'succeeded', row.message);
    assert.equal(row.finalState, 'RUNNING');
  }

  // The cluster agrees: four rewound and running, the sink running with its offsets as before.
  for (const s of sources) {
    await cluster.waitRunning(s.name);
    const written = (await cluster.offsets(s.name)).offsets.find((o) => o.partition.filename === elsewhere(s.name).filename);
    assert.deepEqual(written?.offset, { position: 7 }, s.name);
  }
  await cluster.waitRunning(sink);
  const sinkAfter: OffsetsBody = await cluster.offsets(sink);
  assert.deepEqual(sortedOffsets(sinkAfter), sortedOffsets(sinkBefore));

  const runs = JSON.parse((await runInProcess(['runs', '--batch', summary.batchId, '--output', 'json', '--state-dir', stateDir])).stdout) as RunJson[];
  assert.equal(runs.length, 5);
  assert.equal(runs.find((x) => x.connector === sink)?.status, 'failed');
  assert.equal(runs.filter((x) => x.status === 'succeeded').length, 4);
});
