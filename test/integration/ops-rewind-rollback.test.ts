// Rewind then rollback gives back exactly the offsets of before, including the removal of a
// partition the rewind added (PATCH merges, so rollback must null it).
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ConnectFixture, sortedOffsets, tempDir, connectFixture } from '../support/connect.js';
import { runInProcess } from '../support/in-process.js';

let cluster: ConnectFixture;
let source: { name: string; file: string };
let stateDir: string;

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(5);
  stateDir = tempDir('offsetctl-state-');
});
after(async () => cluster?.cleanup());

test('rewind writes the offsets, keeps a snapshot, and rollback restores exactly the offsets and state of before', async () => {
  const before = await cluster.offsets(source.name);
  const otherFile = join(cluster.dir, 'other.txt');
  const target = { offsets: [
    { partition: { filename: source.file }, offset: { position: 0 } },
    { partition: { filename: otherFile }, offset: { position: 5 } },
  ] };
  const file = join(cluster.dir, 'target.json');
  writeFileSync(file, JSON.stringify(target));

  const rewind = await runInProcess(['rewind', source.name, '--offsets', file, '--yes', '--leave-stopped', '--output', 'json', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(rewind.status, 0, rewind.stderr);
  const outcome = JSON.parse(rewind.stdout) as { status: string; connectorState: string; snapshotId: string; runId: string };
  assert.equal(outcome.status, 'succeeded');
  assert.equal(outcome.connectorState, 'STOPPED');
  assert.equal((await cluster.status(source.name)).connector.state, 'STOPPED');
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(target));

  const snapshots = await runInProcess(['snapshots', source.name, '--output', 'json', '--state-dir', stateDir]);
  const list = JSON.parse(snapshots.stdout) as Array<{ id: string; stateBefore: string; partitions: number; runId: string }>;
  assert.equal(list.length, 1);
  assert.equal(list[0]?.id, outcome.snapshotId);
  assert.equal(list[0]?.stateBefore, 'RUNNING');
  assert.equal(list[0]?.runId, outcome.runId);
  const shown = await runInProcess(['snapshots', 'show', outcome.snapshotId, '--output', 'json', '--state-dir', stateDir]);
  assert.deepEqual(sortedOffsets(JSON.parse(shown.stdout) as { offsets: never[] }), sortedOffsets(before));

  const rollback = await runInProcess(['rollback', source.name, '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(rollback.status, 0, rollback.stderr);
  assert.match(rollback.stdout, new RegExp(`restored snapshot ${outcome.snapshotId}`));
  await cluster.waitRunning(source.name);
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(before));

  const runs = await runInProcess(['runs', '--output', 'json', '--state-dir', stateDir]);
  const history = JSON.parse(runs.stdout) as Array<{ operation: string; status: string; connector: string }>;
  assert.deepEqual(history.map((r) => [r.operation, r.status, r.connector]), [['rollback', 'succeeded', source.name], ['rewind', 'succeeded', source.name]]);
  const show = await runInProcess(['runs', 'show', outcome.runId, '--state-dir', stateDir]);
  assert.equal(show.status, 0, show.stderr);
  assert.match(show.stdout, /PATCH .*\/offsets/);
  assert.match(show.stdout, /step\.finished rewindOffsets/);
});
