// `snapshots prune` and `runs --limit` against a real store file (issue 13, store side).
// Real parts: a SQLite store file; the CLI in-process.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { openStore } from '../../src/store/index.js';
import { runInProcess } from '../support/in-process.js';
import { tempDir } from '../support/connect.js';

const CLUSTER = 'http://127.0.0.1:9';
const DAY = 86_400_000;

async function seed(): Promise<{ stateDir: string; ids: Record<string, string>; running: string }> {
  const stateDir = tempDir('prune');
  const store = openStore(stateDir);
  const ids: Record<string, string> = {};
  const base = { clusterUrl: CLUSTER, clusterKey: 'kafka:test', connectorType: 'source' as const, stateBefore: 'RUNNING', offsets: [] };
  for (const [name, connector, ageDays] of [['a40', 'a', 40], ['a20', 'a', 20], ['a1', 'a', 1], ['b50', 'b', 50]] as const) {
    ids[name] = (await store.saveSnapshot({ ...base, connector }, new Date(Date.now() - ageDays * DAY))).id;
  }
  // A run still working on connector c depends on its snapshot, however old.
  const run = await store.beginRun({ clusterUrl: CLUSTER, clusterKey: 'kafka:test', connector: 'c', operation: 'rewind', workflowFile: 'f', workflowId: 'w', inputs: {} });
  ids.c90 = (await store.saveSnapshot({ ...base, connector: 'c', runId: run.id }, new Date(Date.now() - 90 * DAY))).id;
  await store.updateRunContext(run.id, { snapshotId: ids.c90 });
  for (let i = 0; i < 3; i++) await store.finishRun((await store.beginRun({ clusterUrl: CLUSTER, connector: `d${i}`, operation: 'reset', workflowFile: 'f', workflowId: 'w', inputs: {} })).id, { status: 'succeeded' });
  await store.close();
  return { stateDir, ids, running: run.id };
}

const remaining = async (stateDir: string): Promise<string[]> =>
  (JSON.parse((await runInProcess(['snapshots', '--output', 'json', '--state-dir', stateDir])).stdout) as Array<{ id: string }>).map((s) => s.id).sort();

test('snapshots prune --keep 1 keeps the newest per connector and never a running run\'s snapshot; --dry-run deletes nothing', async () => {
  const s = await seed();
  const dry = await runInProcess(['snapshots', 'prune', '--keep', '1', '--dry-run', '--output', 'json', '--state-dir', s.stateDir]);
  assert.equal(dry.status, 0, dry.stderr);
  assert.deepEqual((JSON.parse(dry.stdout) as { pruned: Array<{ id: string }> }).pruned.map((p) => p.id).sort(), [s.ids.a20, s.ids.a40].sort());
  assert.equal((await remaining(s.stateDir)).length, 5);
  const r = await runInProcess(['snapshots', 'prune', '--keep', '1', '--state-dir', s.stateDir]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /pruned 2 snapshot\(s\)/);
  assert.deepEqual(await remaining(s.stateDir), [s.ids.a1, s.ids.b50, s.ids.c90].sort());
});

test('snapshots prune --older-than 30d removes only older ones; bad values are usage errors (exit 2)', async () => {
  const s = await seed();
  const r = await runInProcess(['snapshots', 'prune', '--older-than', '30d', '--state-dir', s.stateDir]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(await remaining(s.stateDir), [s.ids.a1, s.ids.a20, s.ids.c90].sort());
  for (const args of [['--older-than', '30 days'], ['--keep', '-1'], []]) {
    const bad = await runInProcess(['snapshots', 'prune', ...args, '--state-dir', s.stateDir]);
    assert.equal(bad.status, 2, `${args.join(' ')}: ${bad.stderr}`);
  }
});

test('--older-than counts from the command\'s clock (the injected IO\'s now), not from the test\'s', async () => {
  const s = await seed();
  // 15 days ago by the command's clock, 30 days before it is 45 days before today: only b50 (and never c90, a running run's).
  const earlier = () => Date.now() - 15 * DAY;
  const r = await runInProcess(['snapshots', 'prune', '--older-than', '30d', '--dry-run', '--output', 'json', '--state-dir', s.stateDir], { now: earlier });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual((JSON.parse(r.stdout) as { pruned: Array<{ id: string }> }).pruned.map((p) => p.id), [s.ids.b50]);
});

test('runs --limit N lists only the N newest runs', async () => {
  const s = await seed();
  const all = JSON.parse((await runInProcess(['runs', '--output', 'json', '--state-dir', s.stateDir])).stdout) as unknown[];
  assert.equal(all.length, 4);
  const two = JSON.parse((await runInProcess(['runs', '--limit', '2', '--output', 'json', '--state-dir', s.stateDir])).stdout) as Array<{ connector: string }>;
  assert.deepEqual(two.map((r) => r.connector), ['d2', 'd1']);
  assert.equal((await runInProcess(['runs', '--limit', 'x', '--state-dir', s.stateDir])).status, 2);
});
