// Issue 14, points 5, 7, 8 and 9 on the sandbox, through the CLI: the failed step named truly and
// Ctrl-C reported as a cancellation; an empty diff changes nothing; a FAILED task shown before and
// the end state described truthfully; `runs resume` shows the diff and asks.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { sandboxRest, startPipeline, tempDir, type ConnectRest, type FilePipeline } from '../support/connect.js';
import { waitForSinkCommitted, waitForSourceCaughtUp } from '../../src/sandbox/index.js';
import { offsetsFile, runsOf, snapshotsOf, sorted, startCli, until } from './defects-support.js';

let rest: ConnectRest;
let pipeline: FilePipeline;
let url: string;
const removals: Array<() => Promise<void>> = [];

before(async () => {
  rest = await sandboxRest(0);
  url = rest.baseUrl;
  pipeline = await startPipeline(rest, 'defects-report', ['a', 'b', 'c', 'd']);
  removals.push(() => pipeline.remove());
  await waitForSourceCaughtUp(rest, pipeline);
  await waitForSinkCommitted(rest, pipeline, 4);
});
after(async () => {
  for (const remove of removals) await remove().catch(() => undefined);
});

test('5: Ctrl-C during a run is reported as cancelled by you, at the real step, and the connector is put back', async () => {
  const stateDir = tempDir('defects-state');
  const before = await rest.offsets(pipeline.source);
  const file = offsetsFile([{ partition: { filename: join(tempDir('defects-other'), 'x.txt') }, offset: { position: 3 } }]);
  const run = startCli(['rewind', pipeline.source, '--offsets', file, '--yes', '--url', url, '--state-dir', stateDir],
    { OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'rewindOffsets', OFFSETCTL_TEST_PAUSE_MS: '4000' });
  await until('the run to reach rewindOffsets', async () => (await runsOf(stateDir)).find((r) => r.status === 'running' && r.lastStep === 'captureOffsets'));
  run.child.kill('SIGINT');
  const r = await run.done;
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /cancelled by you during step rewindOffsets/);
  assert.doesNotMatch(r.stderr, /failed at step waitForStopped/);
  await rest.waitForRunning(pipeline.source);
  assert.deepEqual(sorted((await rest.offsets(pipeline.source)).offsets), sorted(before.offsets));
});

test('7: a rewind to the offsets the connector already has changes nothing: no stop, no snapshot, no run', async () => {
  const stateDir = tempDir('defects-state');
  const current = await rest.offsets(pipeline.sink);
  const r = await runCli(['rewind', pipeline.sink, '--offsets', offsetsFile(current.offsets), '--yes', '--url', url, '--state-dir', stateDir]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /nothing to change/);
  assert.equal((await runsOf(stateDir)).length, 0);
  assert.equal((await snapshotsOf(stateDir, pipeline.sink)).length, 0);
  assert.equal((await rest.status(pipeline.sink)).connector.state, 'RUNNING');
});

test('7: reset of a connector without offsets does nothing and records no empty snapshot', async () => {
  const stateDir = tempDir('defects-state');
  const name = `${pipeline.sink}-empty`;
  // A sink on a topic nobody writes to: it never commits an offset.
  await rest.createConnector(name, { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', 'tasks.max': '1', file: join(tempDir('defects-empty'), 'out.txt'), topics: `${pipeline.topic}-silent` });
  removals.push(() => rest.deleteConnector(name));
  await rest.waitForRunning(name);
  const reset = await runCli(['reset', name, '--yes', '--url', url, '--state-dir', stateDir]);
  assert.equal(reset.status, 0, reset.stderr);
  assert.match(reset.stdout, /nothing to change/);
  assert.equal((await snapshotsOf(stateDir, name)).length, 0, 'no empty snapshot recorded');
  assert.equal((await rest.status(name)).connector.state, 'RUNNING');
});

test('8: a sink whose task is FAILED is shown as such in pre-flight, and the end state is described truthfully', async () => {
  const stateDir = tempDir('defects-state');
  const name = `${pipeline.sink}-broken`;
  // The task cannot open its file: it fails whenever it starts.
  await rest.createConnector(name, { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', 'tasks.max': '1', file: '/nonexistent-dir/offsetctl/out.txt', topics: pipeline.topic });
  removals.push(() => rest.deleteConnector(name));
  await until('the task to fail', async () => (await rest.status(name)).tasks[0]?.state === 'FAILED');
  const file = offsetsFile([{ partition: { kafka_topic: pipeline.topic, kafka_partition: 0 }, offset: { kafka_offset: 1 } }]);
  const dry = await runCli(['rewind', name, '--offsets', file, '--dry-run', '--url', url, '--state-dir', stateDir]);
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /\(sink, RUNNING with task 0 FAILED\)/);
  const r = await runCli(['rewind', name, '--offsets', file, '--yes', '--url', url, '--state-dir', stateDir]);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /failed at step waitForRunning: task 0 FAILED/);
  assert.doesNotMatch(r.stderr, /Recovery failed/);
  assert.match(r.stderr, /now RUNNING with task 0 FAILED, exactly as before the run/);
});

test('9: runs resume shows the diff and asks; without --yes and without a terminal it changes nothing', async () => {
  const stateDir = tempDir('defects-state');
  const other = { filename: join(tempDir('defects-other'), 'resume.txt') };
  const file = offsetsFile([{ partition: other, offset: { position: 9 } }]);
  const killed = await runCli(['rewind', pipeline.source, '--offsets', file, '--yes', '--url', url, '--state-dir', stateDir], { env: { OFFSETCTL_TEST_KILL_BEFORE_STEP: 'rewindOffsets' } });
  assert.notEqual(killed.status, 0);
  const [run] = await runsOf(stateDir);
  assert.ok(run, 'the killed run is journaled');
  const asked = await runCli(['runs', 'resume', run.id, '--state-dir', stateDir]);
  assert.equal(asked.status, 2, asked.stderr);
  assert.match(asked.stdout, /resume\.txt/, 'the diff names the partition the run will write');
  assert.match(asked.stderr, /not confirmed/);
  assert.equal((await rest.status(pipeline.source)).connector.state, 'STOPPED', 'nothing was resumed');
  const resumed = await runCli(['runs', 'resume', run.id, '--yes', '--state-dir', stateDir]);
  assert.equal(resumed.status, 0, resumed.stderr);
  await rest.waitForRunning(pipeline.source);
  const written = (await rest.offsets(pipeline.source)).offsets.find((o) => o.partition['filename'] === other.filename);
  assert.deepEqual(written?.offset, { position: 9 });
});
