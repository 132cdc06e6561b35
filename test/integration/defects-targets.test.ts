// Issue 14, points 4 and 6 on the sandbox: sink offsets for a topic the sink does not consume, or
// a partition its topic does not have, are refused in pre-flight (exit 2, naming the sink's
// topics) instead of failing after the stop; a target beyond the partition's end is shown and
// needs --allow-forward (or an answer at a terminal), --yes alone is not enough.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { runInProcess } from '../support/in-process.js';
import { sandboxRest, startPipeline, tempDir, type ConnectRest, type FilePipeline } from '../support/connect.js';
import { getSandbox } from '../support/sandbox.js';
import { waitForSinkCommitted, waitForSourceCaughtUp } from '../../src/sandbox/index.js';
import { offsetsFile, sorted } from './defects-support.js';

let rest: ConnectRest;
let pipeline: FilePipeline;
let url: string;
let bootstrap: string;

before(async () => {
  rest = await sandboxRest(0);
  url = rest.baseUrl;
  bootstrap = (await getSandbox()).bootstrap;
  pipeline = await startPipeline(rest, 'defects-targets', ['a', 'b', 'c', 'd']);
  await waitForSourceCaughtUp(rest, pipeline);
  await waitForSinkCommitted(rest, pipeline, 4);
});
after(async () => pipeline?.remove().catch(() => undefined));

async function assertUntouched(name: string, before: Awaited<ReturnType<ConnectRest['offsets']>>): Promise<void> {
  assert.equal((await rest.status(name)).connector.state, 'RUNNING', 'the connector was never stopped');
  assert.deepEqual(sorted((await rest.offsets(name)).offsets), sorted(before.offsets));
}

test('4: a sink offset for a topic the sink does not consume is refused in pre-flight, naming its topics', async () => {
  const stateDir = tempDir('defects-state');
  const before = await rest.offsets(pipeline.sink);
  const file = offsetsFile([{ partition: { kafka_topic: `${pipeline.topic}-not-mine`, kafka_partition: 0 }, offset: { kafka_offset: 1 } }]);
  const r = await runInProcess(['rewind', pipeline.sink, '--offsets', file, '--yes', '--url', url, '--state-dir', stateDir]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /does not consume ".*-not-mine"/);
  assert.match(r.stderr, new RegExp(`it consumes topics ${pipeline.topic}`));
  await assertUntouched(pipeline.sink, before);
});

test('4: a sink offset for a partition beyond the topic\'s count is refused in pre-flight when the broker is known', async () => {
  const stateDir = tempDir('defects-state');
  const before = await rest.offsets(pipeline.sink);
  const file = offsetsFile([{ partition: { kafka_topic: pipeline.topic, kafka_partition: 99 }, offset: { kafka_offset: 1 } }]);
  const r = await runInProcess(['rewind', pipeline.sink, '--offsets', file, '--yes', '--bootstrap', bootstrap, '--url', url, '--state-dir', stateDir]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`topic ${pipeline.topic} has 1 partition\\(s\\) \\(0 to 0\\), there is no partition 99`));
  await assertUntouched(pipeline.sink, before);
});

test('6: a sink target beyond the log end is shown and refused under --yes alone; --allow-forward writes it', async () => {
  const stateDir = tempDir('defects-state');
  const before = await rest.offsets(pipeline.sink);
  const file = offsetsFile([{ partition: { kafka_topic: pipeline.topic, kafka_partition: 0 }, offset: { kafka_offset: 99999 } }]);
  const dry = await runInProcess(['rewind', pipeline.sink, '--offsets', file, '--dry-run', '--bootstrap', bootstrap, '--url', url, '--state-dir', stateDir]);
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /1 target\(s\) lie beyond the end of their partition/);
  assert.match(dry.stdout, /kafka_offset 99999, but the log ends at 4/);
  const refused = await runInProcess(['rewind', pipeline.sink, '--offsets', file, '--yes', '--bootstrap', bootstrap, '--url', url, '--state-dir', stateDir]);
  assert.equal(refused.status, 2, refused.stderr);
  assert.match(refused.stderr, /--allow-forward/);
  await assertUntouched(pipeline.sink, before);
  const allowed = await runInProcess(['rewind', pipeline.sink, '--offsets', file, '--yes', '--allow-forward', '--leave-stopped', '--bootstrap', bootstrap, '--url', url, '--state-dir', stateDir]);
  assert.equal(allowed.status, 0, allowed.stderr);
  const written = (await rest.offsets(pipeline.sink)).offsets.find((o) => o.partition['kafka_topic'] === pipeline.topic);
  assert.equal(Number(written?.offset?.['kafka_offset']), 99999);
  // Put it back so the pipeline stays sane for anyone looking at it.
  const back = await runInProcess(['rollback', pipeline.sink, '--yes', '--url', url, '--state-dir', stateDir]);
  assert.equal(back.status, 0, back.stderr);
});

test('6: a FileStreamSource position beyond the end of its file needs --allow-forward', async () => {
  const stateDir = tempDir('defects-state');
  const before = await rest.offsets(pipeline.source);
  const size = statSync(pipeline.inputFile).size;
  const file = offsetsFile([{ partition: { filename: pipeline.inputFile }, offset: { position: size + 1000 } }]);
  const refused = await runInProcess(['rewind', pipeline.source, '--offsets', file, '--yes', '--url', url, '--state-dir', stateDir]);
  assert.equal(refused.status, 2, refused.stderr);
  assert.match(refused.stderr, new RegExp(`position ${size + 1000}, but the file has ${size} bytes`));
  assert.match(refused.stderr, /--allow-forward/);
  await assertUntouched(pipeline.source, before);
});
