// A running pipeline (FileStreamSource → topic → FileStreamSink, both on the main cluster) moved
// piece by piece to the sandbox's second Connect cluster while its input file keeps growing: the
// source resumes exactly where it was, the sink too, and the output holds every line once — no
// replay, no gap. Then `copy` for blue/green: a sink's copy has its own consumer group with the
// original's offsets written explicitly, a source's copy the offsets under its new name.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import * as assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startPipeline, waitFor, type FilePipeline } from '../support/connect.js';
import { readLines } from '../../src/sandbox/index.js';
import { exactlyOnce, LineWriter, moveCli, moveStateDir, twoClusters, type TwoClusters } from '../support/move.js';

let clusters: TwoClusters;
let pipeline: FilePipeline;
let cli: ReturnType<typeof moveCli>;
const copies: Array<{ rest: 'main' | 'second'; name: string }> = [];

before(async () => {
  clusters = await twoClusters();
  cli = moveCli(moveStateDir('move-pipeline'));
  pipeline = await startPipeline(clusters.main, 'move', ['seed 1', 'seed 2', 'seed 3']);
  await waitFor('the sink to write the seed lines', async () => readLines(pipeline.outputFile).length === 3);
});

after(async () => {
  for (const rest of [clusters?.main, clusters?.second]) {
    for (const name of [pipeline?.source, pipeline?.sink, ...copies.map((c) => c.name)]) if (rest && name) await rest.deleteConnector(name).catch(() => undefined);
  }
});

function offsetOf(body: { offsets: Array<{ offset: Record<string, unknown> | null }> }, key: string): unknown {
  return body.offsets[0]?.offset?.[key];
}

test('a FileStreamSource and then its FileStreamSink moved to the second cluster while lines keep coming: every line once, in order', { timeout: 600_000 }, async () => {
  const writer = new LineWriter(pipeline.inputFile, 'live', 100);
  try {
    await waitFor('the first live lines to arrive', async () => readLines(pipeline.outputFile).length >= 8);
    const source = await cli(['move', pipeline.source, '--url', clusters.mainUrls, '--to', clusters.secondUrls, '--yes', '-o', 'json']);
    assert.equal(source.status, 0, source.stderr + source.stdout);
    const moved = JSON.parse(source.stdout) as { status: string; connectorState: string; snapshotId: string; outputs: { sourceOffsets: unknown; targetOffsets: unknown } };
    assert.equal(moved.status, 'succeeded');
    assert.equal(moved.connectorState, 'RUNNING');
    assert.deepEqual(moved.outputs.targetOffsets, moved.outputs.sourceOffsets, 'the new connector got exactly the offsets the stopped one had');
    assert.equal((await clusters.main.request('GET', `/connectors/${pipeline.source}`)).status, 404, 'the original is gone from the main cluster');
    assert.equal((await clusters.second.status(pipeline.source)).connector.state, 'RUNNING');

    const sink = await cli(['move', pipeline.sink, '--url', clusters.mainUrls, '--to', clusters.secondUrls, '--yes', '-o', 'json']);
    assert.equal(sink.status, 0, sink.stderr + sink.stdout);
    assert.equal((JSON.parse(sink.stdout) as { status: string }).status, 'succeeded');
    assert.equal((await clusters.main.request('GET', `/connectors/${pipeline.sink}`)).status, 404);
    // Moves are in the audit trail like every change: who (the OS user, from the CLI), the start and the outcome.
    const audit = (await cli(['audit', '--connector', pipeline.source, '-o', 'json'])).stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { action: string; outcome: string; runId: string; message: string; actor: { via: string }; clusterUrl: string });
    assert.deepEqual(audit.map((e) => [e.action, e.outcome, e.actor.via]), [['move', 'started', 'cli'], ['move', 'succeeded', 'cli']], JSON.stringify(audit));
    assert.equal(audit[1]!.runId, (JSON.parse(source.stdout) as { runId: string }).runId);
    assert.ok(clusters.secondUrls.split(',').some((u) => audit[0]!.message.startsWith(`move to ${u}`)), `the start entry says where it goes: ${audit[0]!.message}`);
    // The moved sink's group is the same (one Kafka cluster): its offsets went on with it.
    await waitFor('the moved sink to commit past the moves', async () => Number(offsetOf(await clusters.second.offsets(pipeline.sink), 'kafka_offset')) > 3);
  } finally {
    writer.stop();
  }
  const expected = ['seed 1', 'seed 2', 'seed 3', ...writer.lines];
  await waitFor(`all ${expected.length} lines in the output`, async () => readLines(pipeline.outputFile).length >= expected.length, 120_000);
  // A little longer: a replay would show up after the last line.
  await new Promise((r) => setTimeout(r, 3000));
  const output = readLines(pipeline.outputFile);
  const check = exactlyOnce(expected, output);
  assert.deepEqual(check.missing, [], 'no gap');
  assert.deepEqual(check.doubled, [], 'no replay');
  assert.ok(check.inOrder, 'in order');
  assert.ok(writer.lines.length >= 30, `lines kept coming during both moves (${writer.lines.length})`);
});

test('copy: a sink\'s copy gets its own consumer group with the offsets written; a source\'s copy the offsets under its new name', { timeout: 300_000 }, async () => {
  // The pipeline runs on the second cluster now; copy its sink back to main as a new sink (blue/green).
  const sinkCopy = `${pipeline.sink}-green`;
  copies.push({ rest: 'main', name: sinkCopy });
  const before = await clusters.second.offsets(pipeline.sink);
  const r = await cli(['copy', pipeline.sink, '--as', sinkCopy, '--url', clusters.secondUrls, '--to', clusters.mainUrls, '--target-state', 'STOPPED', '--yes', '-o', 'json']);
  assert.equal(r.status, 0, r.stderr + r.stdout);
  const copied = await clusters.main.offsets(sinkCopy);
  assert.deepEqual(copied.offsets, before.offsets, 'connect-<copy> has the original\'s offsets');
  assert.equal((await clusters.main.status(sinkCopy)).connector.state, 'STOPPED');
  assert.equal((await clusters.second.status(pipeline.sink)).connector.state, 'RUNNING', 'the original is back as it was');

  const sourceCopy = `${pipeline.source}-blue`;
  copies.push({ rest: 'second', name: sourceCopy });
  const s = await cli(['copy', pipeline.source, '--as', sourceCopy, '--url', clusters.secondUrls, '--target-state', 'STOPPED', '--yes', '-o', 'json']);
  assert.equal(s.status, 0, s.stderr + s.stdout);
  const original = await clusters.second.offsets(pipeline.source);
  const copyOffsets = await clusters.second.offsets(sourceCopy);
  assert.equal(offsetOf(copyOffsets, 'position'), offsetOf(original, 'position'), 'the copy starts where the original is');

  // Same cluster and the same name is refused before anything changes.
  const same = await cli(['copy', pipeline.source, '--as', pipeline.source, '--url', clusters.secondUrls, '--yes']);
  assert.equal(same.status, 2, same.stderr);
  assert.match(same.stderr, /needs a new name: --as/);
  const audit = (await cli(['audit', '--connector', pipeline.source, '-o', 'json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; outcome: string });
  assert.deepEqual(audit.slice(-3).map((e) => [e.action, e.outcome]), [['copy', 'started'], ['copy', 'succeeded'], ['copy', 'refused']], 'the copy and the refused copy are audited');
});
