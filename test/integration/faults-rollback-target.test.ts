// `rollback` (no --snapshot) after a run was killed undoes *that* run: with its own snapshot when
// it stored one, and when it was killed before its snapshot (it changed nothing) it says there is
// nothing of that run to roll back, instead of restoring the snapshot of an older run (which
// would undo the older run too). docs/reliability.md, "Kill points".
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { type ConnectFixture, connectFixture, tempDir, waitFor } from '../support/connect.js';

let cluster: ConnectFixture;
let source: { name: string; file: string };
let other: { filename: string };

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(3);
  other = { filename: join(cluster.dir, 'rollback-target-marker.txt') };
});
after(async () => cluster?.cleanup());

async function marker(): Promise<number | null> {
  const entry = (await cluster.offsets(source.name)).offsets.find((o) => o.partition.filename === other.filename);
  return entry?.offset ? Number((entry.offset as { position: number }).position) : null;
}

const rewindTo = (position: number) => JSON.stringify({ offsets: [{ partition: other, offset: { position } }] });

/** A state folder holding one finished rewind (its snapshot: marker absent), the marker now at 5. */
async function withEarlierRun(): Promise<string[]> {
  const stateDir = tempDir('offsetctl-rbtarget-');
  const conn = ['--url', cluster.url, '--state-dir', stateDir];
  await cluster.waitRunning(source.name);
  const earlier = await runCli(['rewind', source.name, '--offsets', '-', '--yes', ...conn], { stdin: rewindTo(5) });
  assert.equal(earlier.status, 0, earlier.stderr);
  await cluster.waitRunning(source.name);
  assert.equal(await marker(), 5);
  return conn;
}

for (const op of ['rewind', 'reset'] as const) {
  test(`${op} killed before its snapshot, an older snapshot in the folder: rollback says there is nothing of that run to roll back and changes nothing`, async () => {
    const conn = await withEarlierRun();
    const snapshotStep = op === 'rewind' ? 'captureOffsets' : 'snapshotOffsets';
    const args = op === 'rewind' ? ['rewind', source.name, '--offsets', '-', '--yes', ...conn] : ['reset', source.name, '--yes', ...conn];
    const killed = await runCli(args, { env: { OFFSETCTL_TEST_KILL_BEFORE_STEP: snapshotStep }, ...(op === 'rewind' ? { stdin: rewindTo(7) } : {}) });
    assert.equal(killed.signal, 'SIGKILL', killed.stderr);
    const run = (JSON.parse((await runCli(['runs', '--connector', source.name, ...conn.slice(2), '--output', 'json'])).stdout) as Array<{ id: string; status: string }>)[0]!;
    assert.equal(run.status, 'interrupted');

    const rolled = await runCli(['rollback', source.name, '--yes', ...conn]);
    assert.equal(rolled.status, 2, `refused, not the older run's snapshot restored: ${rolled.stdout}${rolled.stderr}`);
    assert.match(rolled.stderr, new RegExp(`run ${run.id} \\(${op} of .*interrupted after step waitForStopped, before its snapshot was stored: it changed no offsets, so there is nothing of it to roll back`));
    assert.match(rolled.stderr, new RegExp(`offsetctl runs resume ${run.id}`), 'names the command that finishes the run');
    assert.match(rolled.stderr, /offsetctl rollback .* --snapshot <id>/, 'names how to restore an older snapshot deliberately');
    assert.equal(await marker(), 5, 'the older snapshot was not restored');
    assert.equal((await cluster.status(source.name)).connector.state, 'STOPPED', 'nothing was changed by the refused rollback');

    // The operator's way out named in the message: finish the run.
    const resumed = await runCli(['runs', 'resume', run.id, '--yes', ...conn]);
    assert.equal(resumed.status, 0, resumed.stderr);
    await cluster.waitRunning(source.name);
    assert.equal(await marker(), op === 'rewind' ? 7 : null);
  });
}

test('rewind killed after its snapshot, an older snapshot in the folder: rollback uses that run\'s own snapshot and says so', async () => {
  const conn = await withEarlierRun();
  const killed = await runCli(['rewind', source.name, '--offsets', '-', '--yes', ...conn], { env: { OFFSETCTL_TEST_KILL_AFTER_SEND: 'PATCH' }, stdin: rewindTo(9) });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  const run = (JSON.parse((await runCli(['runs', '--connector', source.name, ...conn.slice(2), '--output', 'json'])).stdout) as Array<{ id: string; snapshotId?: string }>)[0]!;
  assert.ok(run.snapshotId);
  assert.equal(await marker(), 9, 'the change was made before the kill');
  const rolled = await runCli(['rollback', source.name, '--yes', ...conn]);
  assert.equal(rolled.status, 0, rolled.stderr);
  assert.match(rolled.stderr, new RegExp(`rolling back interrupted run ${run.id} \\(rewind\\) with its own snapshot ${run.snapshotId}`));
  await waitFor('RUNNING', async () => (await cluster.status(source.name)).connector.state === 'RUNNING');
  assert.equal(await marker(), 5, 'the offsets of before this run, not of before the older one');
});

test('the rollback that undoes a killed run records the state before the crash: undoing that rollback does not leave the connector STOPPED (found by the chaos run)', async () => {
  const conn = await withEarlierRun();
  const killed = await runCli(['rewind', source.name, '--offsets', '-', '--yes', ...conn], { env: { OFFSETCTL_TEST_KILL_AFTER_SEND: 'PATCH' }, stdin: rewindTo(11) });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  assert.equal((await cluster.status(source.name)).connector.state, 'STOPPED', 'the kill left it STOPPED');
  const rolled = await runCli(['rollback', source.name, '--yes', ...conn]);
  assert.equal(rolled.status, 0, rolled.stderr);
  await cluster.waitRunning(source.name);
  assert.equal(await marker(), 5);
  const snapshots = JSON.parse((await runCli(['snapshots', source.name, ...conn.slice(2), '--output', 'json'])).stdout) as Array<{ id: string; stateBefore: string }>;
  assert.equal(snapshots[0]?.stateBefore, 'RUNNING', 'the recovering rollback\'s snapshot records the state before the crash');
  // Undo the recovery: the offsets it replaced come back, and the connector stays RUNNING.
  const undo = await runCli(['rollback', source.name, '--yes', ...conn]);
  assert.equal(undo.status, 0, undo.stderr);
  await cluster.waitRunning(source.name);
  assert.equal(await marker(), 11);
});
