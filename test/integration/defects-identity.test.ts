// Issue 14, point 2 on the sandbox: the lock, the snapshots and the runs belong to the cluster
// (Connect's GET / → kafka_cluster_id), not to the URL text. Two rewinds of one connector through
// the two workers of the cluster cannot both run; rollback through the other worker's URL, or
// through localhost instead of 127.0.0.1, finds the snapshot.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { sandboxRest, startPipeline, tempDir, type ConnectRest, type FilePipeline } from '../support/connect.js';
import { waitForSourceCaughtUp } from '../../src/sandbox/index.js';
import { offsetsFile, runsOf, snapshotsOf, sorted, startCli, until } from './defects-support.js';

let first: ConnectRest;
let second: ConnectRest;
let pipeline: FilePipeline;

before(async () => {
  first = await sandboxRest(0);
  second = await sandboxRest(1);
  assert.notEqual(first.baseUrl, second.baseUrl, 'the sandbox has two workers');
  pipeline = await startPipeline(first, 'defects-identity', ['a', 'b', 'c'], { withSink: false });
  await waitForSourceCaughtUp(first, pipeline);
});
after(async () => pipeline?.remove().catch(() => undefined));

test('2: a rewind through the second worker is refused while one through the first holds the lock; rollback finds the snapshot through either URL and localhost', async () => {
  const stateDir = tempDir('defects-state');
  const before = await first.offsets(pipeline.source);
  const other = { filename: join(tempDir('defects-other'), 'identity.txt') };
  const file = offsetsFile([{ partition: other, offset: { position: 5 } }]);
  const held = startCli(['rewind', pipeline.source, '--offsets', file, '--yes', '--url', first.baseUrl, '--state-dir', stateDir],
    { OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'rewindOffsets', OFFSETCTL_TEST_PAUSE_MS: '8000' });
  const running = await until('the first run to hold the lock', async () => (await runsOf(stateDir)).find((r) => r.status === 'running' && r.lastStep === 'captureOffsets'));
  const refused = await runCli(['rewind', pipeline.source, '--offsets', file, '--yes', '--url', second.baseUrl, '--state-dir', stateDir]);
  assert.equal(refused.status, 2, refused.stderr);
  assert.match(refused.stderr, /E_LOCKED/);
  assert.match(refused.stderr, new RegExp(running.id));
  const done = await held.done;
  assert.equal(done.status, 0, done.stderr);
  await first.waitForRunning(pipeline.source);

  const [snapshot] = await snapshotsOf(stateDir, pipeline.source);
  assert.ok(snapshot, 'the rewind kept a snapshot');
  const dry = await runCli(['rollback', pipeline.source, '--dry-run', '--url', second.baseUrl, '--state-dir', stateDir]);
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, new RegExp(`back to snapshot ${snapshot.id}`));

  const localhost = first.baseUrl.replace('127.0.0.1', 'localhost');
  assert.notEqual(localhost, first.baseUrl);
  const rolled = await runCli(['rollback', pipeline.source, '--yes', '--url', localhost, '--state-dir', stateDir]);
  assert.equal(rolled.status, 0, rolled.stderr);
  assert.match(rolled.stdout, new RegExp(`restored snapshot ${snapshot.id}`));
  await first.waitForRunning(pipeline.source);
  const now = (await first.offsets(pipeline.source)).offsets;
  assert.equal(now.find((o) => o.partition['filename'] === other.filename), undefined, 'the rewound partition is gone again');
  assert.deepEqual(sorted(now), sorted(before.offsets));
});
