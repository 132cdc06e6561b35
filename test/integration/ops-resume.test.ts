// kill -9 between the stop and the PATCH, then `runs resume`: the intended offsets and RUNNING.
// Uses the documented test hook OFFSETCTL_TEST_KILL_BEFORE_STEP.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { type ConnectFixture, tempDir, connectFixture } from '../support/connect.js';
import { runCli } from '../support/cli.js';

// Each test has its own connector and state folder: the second must not depend on what the
// first left behind (a lock, a snapshot, offsets).
let cluster: ConnectFixture;

before(async () => {
  cluster = await connectFixture();
});
after(async () => cluster?.cleanup());

test('a run killed before its PATCH is shown interrupted, blocks other runs, and `runs resume` completes it', async () => {
  const source = await cluster.createSource(5);
  const stateDir = tempDir('offsetctl-state-resume-');
  // A partition the connector does not read, so its offset stays as written after the resume.
  const other = { filename: join(cluster.dir, 'elsewhere.txt') };
  const target = { offsets: [{ partition: other, offset: { position: 7 } }] };
  const killed = await runCli(['rewind', source.name, '--offsets', '-', '--yes', '--url', cluster.url, '--state-dir', stateDir], {
    stdin: JSON.stringify(target), env: { OFFSETCTL_TEST_KILL_BEFORE_STEP: 'rewindOffsets' },
  });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  assert.equal((await cluster.status(source.name)).connector.state, 'STOPPED');

  const runs = JSON.parse((await runCli(['runs', '--output', 'json', '--state-dir', stateDir])).stdout) as Array<{ id: string; status: string; lastStep: string; snapshotId?: string }>;
  const run = runs[0]!;
  assert.equal(run.status, 'interrupted');
  assert.equal(run.lastStep, 'captureOffsets');
  assert.ok(run.snapshotId, 'the snapshot was stored before the kill');
  const shown = await runCli(['runs', 'show', run.id, '--state-dir', stateDir]);
  assert.match(shown.stdout, /interrupted/);

  const second = await runCli(['rewind', source.name, '--offsets', '-', '--yes', '--url', cluster.url, '--state-dir', stateDir], { stdin: JSON.stringify(target) });
  assert.equal(second.status, 2, second.stderr);
  assert.match(second.stderr, /stale lock/);
  assert.match(second.stderr, new RegExp(`runs resume ${run.id}`));

  const resumed = await runCli(['runs', 'resume', run.id, '--yes', '--state-dir', stateDir]);
  assert.equal(resumed.status, 0, resumed.stderr);
  assert.match(resumed.stdout, /at step rewindOffsets/);
  await cluster.waitRunning(source.name);
  const offsets = await cluster.offsets(source.name);
  const written = offsets.offsets.find((o) => o.partition.filename === other.filename);
  assert.deepEqual(written?.offset, { position: 7 });
  const after = JSON.parse((await runCli(['runs', '--output', 'json', '--state-dir', stateDir])).stdout) as Array<{ id: string; status: string }>;
  assert.equal(after.find((r) => r.id === run.id)?.status, 'succeeded');
});

test('a run killed right after its PATCH can be undone with rollback, which takes over the stale lock', async () => {
  const source = await cluster.createSource(5);
  const stateDir = tempDir('offsetctl-state-undo-');
  const before = await cluster.offsets(source.name);
  const target = { offsets: [{ partition: { filename: source.file }, offset: { position: 1 } }, { partition: { filename: join(cluster.dir, 'more.txt') }, offset: { position: 3 } }] };
  const killed = await runCli(['rewind', source.name, '--offsets', '-', '--yes', '--url', cluster.url, '--state-dir', stateDir], {
    stdin: JSON.stringify(target), env: { OFFSETCTL_TEST_KILL_BEFORE_STEP: 'verifyOffsets' },
  });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  assert.equal((await cluster.status(source.name)).connector.state, 'STOPPED');
  const dead = (JSON.parse((await runCli(['runs', '--output', 'json', '--state-dir', stateDir])).stdout) as Array<{ id: string; status: string; snapshotId: string }>)[0]!;
  assert.equal(dead.status, 'interrupted');

  const rollback = await runCli(['rollback', source.name, '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(rollback.status, 0, rollback.stderr);
  assert.match(rollback.stdout, new RegExp(`restored snapshot ${dead.snapshotId}`));
  await cluster.waitRunning(source.name);
  const sorted = (o: typeof before) => [...o.offsets].sort((a, b) => JSON.stringify(a.partition).localeCompare(JSON.stringify(b.partition)));
  assert.deepEqual(sorted(await cluster.offsets(source.name)), sorted(before));
  const runs = JSON.parse((await runCli(['runs', '--output', 'json', '--state-dir', stateDir])).stdout) as Array<{ id: string; status: string; operation: string }>;
  assert.equal(runs.find((r) => r.id === dead.id)?.status, 'abandoned');
  assert.equal(runs[0]?.operation, 'rollback');
  assert.equal(runs[0]?.status, 'succeeded');
});
