// The history commands against a real store file, and refusals that need no cluster.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { openStore } from '../../src/store/index.js';
import { runCli, tempDir } from './support/cluster.js';

const CLUSTER = 'http://127.0.0.1:9';

function seed(): { stateDir: string; snapshotId: string; finishedRun: string; deadRun: string } {
  const stateDir = tempDir('offsetctl-history-');
  const store = openStore(stateDir);
  const offsets = [{ partition: { filename: '/tmp/a.txt' }, offset: { position: 12 } }];
  const finished = store.beginRun({ clusterUrl: CLUSTER, connector: 'orders', operation: 'rewind', workflowFile: 'f', workflowId: 'rewind-connector-offsets', inputs: { connectorName: 'orders', offsets } });
  const snapshot = store.saveSnapshot({ runId: finished.id, clusterUrl: CLUSTER, connector: 'orders', connectorType: 'source', stateBefore: 'RUNNING', offsets });
  store.finishRun(finished.id, { status: 'succeeded', connectorState: 'RUNNING' });
  const dead = store.beginRun({ clusterUrl: CLUSTER, connector: 'payments', operation: 'reset', workflowFile: 'f', workflowId: 'reset-connector-offsets', inputs: { connectorName: 'payments' } });
  store.close();
  // Hand the second run to a process that has exited, as if it had been killed.
  const pid = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
  const db = spawnSync(process.execPath, ['--input-type=module', '-e', `
    const { openDatabase } = await import(${JSON.stringify(new URL('../../src/store/sqlite.js', import.meta.url).href)});
    const d = openDatabase(${JSON.stringify(`${stateDir}/offsetctl.db`)});
    d.prepare('UPDATE runs SET pid = ? WHERE id = ?').run(${pid}, ${JSON.stringify(dead.id)});
    d.prepare('UPDATE locks SET pid = ? WHERE run_id = ?').run(${pid}, ${JSON.stringify(dead.id)});
  `], { encoding: 'utf8' });
  assert.equal(db.status, 0, db.stderr);
  return { stateDir, snapshotId: snapshot.id, finishedRun: finished.id, deadRun: dead.id };
}

test('runs and snapshots list what the store holds, as JSON arrays and as tables', async () => {
  const s = seed();
  const runs = await runCli(['runs', '--output', 'json', '--state-dir', s.stateDir]);
  assert.equal(runs.status, 0, runs.stderr);
  const list = JSON.parse(runs.stdout) as Array<{ id: string; connector: string; operation: string; status: string }>;
  assert.deepEqual(list.map((r) => [r.id, r.connector, r.operation, r.status]).sort(), [
    [s.deadRun, 'payments', 'reset', 'interrupted'],
    [s.finishedRun, 'orders', 'rewind', 'succeeded'],
  ].sort());
  const table = await runCli(['runs', '--state-dir', s.stateDir]);
  assert.match(table.stdout, /ID\s+CONNECTOR\s+OPERATION\s+STATUS/);
  const shown = await runCli(['runs', 'show', s.deadRun, '--state-dir', s.stateDir]);
  assert.match(shown.stdout, /interrupted \(pid \d+ is gone; finish with `offsetctl runs resume run-/);
  const snapshots = await runCli(['snapshots', 'orders', '--output', 'json', '--state-dir', s.stateDir]);
  assert.deepEqual((JSON.parse(snapshots.stdout) as Array<{ id: string; partitions: number; stateBefore: string }>).map((x) => [x.id, x.partitions, x.stateBefore]), [[s.snapshotId, 1, 'RUNNING']]);
  const one = await runCli(['snapshots', 'show', s.snapshotId, '--output', 'json', '--state-dir', s.stateDir]);
  assert.deepEqual((JSON.parse(one.stdout) as { offsets: unknown }).offsets, [{ partition: { filename: '/tmp/a.txt' }, offset: { position: 12 } }]);
});

test('unknown ids, finished runs and foreign snapshots are refused with exit 2 before any request', async () => {
  const s = seed();
  const unknownRun = await runCli(['runs', 'show', 'run-nope', '--state-dir', s.stateDir]);
  assert.equal(unknownRun.status, 2);
  assert.match(unknownRun.stderr, /no run run-nope/);
  const finished = await runCli(['runs', 'resume', s.finishedRun, '--state-dir', s.stateDir]);
  assert.equal(finished.status, 2, finished.stderr);
  assert.match(finished.stderr, /is succeeded: there is nothing to resume/);
  const foreign = await runCli(['rollback', 'payments', '--snapshot', s.snapshotId, '--yes', '--url', CLUSTER, '--state-dir', s.stateDir]);
  assert.equal(foreign.status, 2, foreign.stderr);
  assert.match(foreign.stderr, /belongs to connector orders/);
  const none = await runCli(['rollback', 'inventory', '--yes', '--url', CLUSTER, '--state-dir', s.stateDir]);
  assert.equal(none.status, 2, none.stderr);
  assert.match(none.stderr, /no snapshot of inventory/);
  const contradicting = await runCli(['reset', 'orders', '--leave-stopped', '--resume', '--yes', '--url', CLUSTER, '--state-dir', s.stateDir]);
  assert.equal(contradicting.status, 2, contradicting.stderr);
});
