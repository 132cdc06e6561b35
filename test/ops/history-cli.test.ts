// The history commands against a real store file, and refusals that need no cluster.
// Real parts: a SQLite store file, child processes, the CLI in-process.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { openStore } from '../../src/store/index.js';
import { tempDir } from '../support/connect.js';
import { runInProcess } from '../support/in-process.js';

const CLUSTER = 'http://127.0.0.1:9';

async function seed(): Promise<{ stateDir: string; snapshotId: string; finishedRun: string; deadRun: string }> {
  const stateDir = tempDir('offsetctl-history-');
  const store = openStore(stateDir);
  const offsets = [{ partition: { filename: '/tmp/a.txt' }, offset: { position: 12 } }];
  const finished = await store.beginRun({ clusterUrl: CLUSTER, connector: 'orders', operation: 'rewind', workflowFile: 'f', workflowId: 'rewind-connector-offsets', inputs: { connectorName: 'orders', offsets } });
  const snapshot = await store.saveSnapshot({ runId: finished.id, clusterUrl: CLUSTER, connector: 'orders', connectorType: 'source', stateBefore: 'RUNNING', offsets });
  await store.finishRun(finished.id, { status: 'succeeded', connectorState: 'RUNNING' });
  await store.close();
  // The second run belongs to a process that has exited, as if it had been killed.
  const pid = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
  const theirs = openStore(stateDir, { owner: { pid, hostname: hostname() } });
  const dead = await theirs.beginRun({ clusterUrl: CLUSTER, connector: 'payments', operation: 'reset', workflowFile: 'f', workflowId: 'reset-connector-offsets', inputs: { connectorName: 'payments' } });
  await theirs.close();
  return { stateDir, snapshotId: snapshot.id, finishedRun: finished.id, deadRun: dead.id };
}

test('runs and snapshots list what the store holds, as JSON arrays and as tables', async () => {
  const s = await seed();
  const runs = await runInProcess(['runs', '--output', 'json', '--state-dir', s.stateDir]);
  assert.equal(runs.status, 0, runs.stderr);
  const list = JSON.parse(runs.stdout) as Array<{ id: string; connector: string; operation: string; status: string }>;
  assert.deepEqual(list.map((r) => [r.id, r.connector, r.operation, r.status]).sort(), [
    [s.deadRun, 'payments', 'reset', 'interrupted'],
    [s.finishedRun, 'orders', 'rewind', 'succeeded'],
  ].sort());
  const table = await runInProcess(['runs', '--state-dir', s.stateDir]);
  assert.match(table.stdout, /ID\s+CONNECTOR\s+OPERATION\s+STATUS/);
  const shown = await runInProcess(['runs', 'show', s.deadRun, '--state-dir', s.stateDir]);
  assert.match(shown.stdout, /interrupted \(pid \d+ is gone; finish with `offsetctl runs resume run-/);
  const snapshots = await runInProcess(['snapshots', 'orders', '--output', 'json', '--state-dir', s.stateDir]);
  assert.deepEqual((JSON.parse(snapshots.stdout) as Array<{ id: string; partitions: number; stateBefore: string }>).map((x) => [x.id, x.partitions, x.stateBefore]), [[s.snapshotId, 1, 'RUNNING']]);
  const one = await runInProcess(['snapshots', 'show', s.snapshotId, '--output', 'json', '--state-dir', s.stateDir]);
  assert.deepEqual((JSON.parse(one.stdout) as { offsets: unknown }).offsets, [{ partition: { filename: '/tmp/a.txt' }, offset: { position: 12 } }]);
});

test('unknown ids, finished runs and foreign snapshots are refused with exit 2 before any request', async () => {
  const s = await seed();
  const unknownRun = await runInProcess(['runs', 'show', 'run-nope', '--state-dir', s.stateDir]);
  assert.equal(unknownRun.status, 2);
  assert.match(unknownRun.stderr, /no run run-nope/);
  const finished = await runInProcess(['runs', 'resume', s.finishedRun, '--state-dir', s.stateDir]);
  assert.equal(finished.status, 2, finished.stderr);
  assert.match(finished.stderr, /is succeeded: there is nothing to resume/);
  const foreign = await runInProcess(['rollback', 'payments', '--snapshot', s.snapshotId, '--yes', '--url', CLUSTER, '--state-dir', s.stateDir]);
  assert.equal(foreign.status, 2, foreign.stderr);
  assert.match(foreign.stderr, /belongs to connector orders/);
  const none = await runInProcess(['rollback', 'inventory', '--yes', '--url', CLUSTER, '--state-dir', s.stateDir]);
  assert.equal(none.status, 2, none.stderr);
  assert.match(none.stderr, /no snapshot of inventory/);
  const contradicting = await runInProcess(['reset', 'orders', '--leave-stopped', '--resume', '--yes', '--url', CLUSTER, '--state-dir', s.stateDir]);
  assert.equal(contradicting.status, 2, contradicting.stderr);
});
