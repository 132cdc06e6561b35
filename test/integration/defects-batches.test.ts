// Issue 20, points 4, 10 and 13 on the sandbox: batches.
// 4. A batch killed half-way was "done" while members never ran: `runs --batch` listed only the
//    started ones and `runs resume --batch` said "2 succeeded", exit 0. The batch now records its
//    members before the first starts; resume runs the ones that never started too.
// 10. A batch reset where one connector has no offsets reported that row "failed … nothing to
//    change" and exited 1; one reset of it exits 0. A no-op is not a failure.
// 13. `rewind a b --to-earliest` was refused ("positions move one connector at a time"); every
//    connector of a batch now gets its own targets.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { startFleet, type BatchSummaryJson, type Fleet, type RunJson } from '../support/fleet.js';

let fleet: Fleet;

before(async () => {
  fleet = await startFleet('defects-batch', 6);
});
after(async () => fleet?.remove());

const positionOf = async (name: string, file: string): Promise<unknown> =>
  (await fleet.cluster.offsets(name)).offsets.find((o) => o.partition['filename'] === file)?.offset;

test('4: a batch killed after its first connectors started: runs --batch lists every member, and runs resume --batch runs the ones that never started', { timeout: 600_000 }, async () => {
  const { cluster, prefix, sources, stateDir } = fleet;
  const marker = (name: string) => ({ filename: join(cluster.dir, `${name}-marker.txt`) });
  const input = JSON.stringify({ connectors: Object.fromEntries(sources.map((s) => [s.name, { offsets: [{ partition: marker(s.name), offset: { position: 4 } }] }])) });
  // --concurrency 2: the first connector to reach its PATCH kills the process; 4 never started.
  const killed = await runCli(['rewind', '--selector', `^${prefix}-`, '--offsets', '-', '--concurrency', '2', '--yes', '--url', cluster.url, '--state-dir', stateDir], {
    stdin: input, env: { OFFSETCTL_TEST_KILL_BEFORE_STEP: 'rewindOffsets' },
  });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  const batchId = /Batch (batch-\S+):/.exec(killed.stdout)?.[1];
  assert.ok(batchId, killed.stdout);

  const listed = await runCli(['runs', '--batch', batchId, '--output', 'json', '--state-dir', stateDir]);
  const runs = JSON.parse(listed.stdout) as RunJson[];
  assert.deepEqual(runs.map((r) => r.connector).sort(), sources.map((s) => s.name).sort(), 'every member is listed');
  assert.equal(runs.filter((r) => r.status === 'not started').length, 4, listed.stdout);
  assert.equal(runs.filter((r) => r.status === 'interrupted').length, 2, listed.stdout);
  const text = await runCli(['runs', '--batch', batchId, '--state-dir', stateDir]);
  assert.match(text.stdout, /not started/);

  const resumed = await runCli(['runs', 'resume', '--batch', batchId, '--yes', '--output', 'json', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(resumed.status, 0, resumed.stdout + resumed.stderr);
  const summary = JSON.parse(resumed.stdout) as BatchSummaryJson;
  assert.equal(summary.total, 6, resumed.stdout);
  assert.equal(summary.counts.succeeded, 6, resumed.stdout);
  for (const s of sources) {
    await cluster.waitRunning(s.name);
    assert.deepEqual(await positionOf(s.name, marker(s.name).filename), { position: 4 }, s.name);
  }
  const done = JSON.parse((await runCli(['runs', '--batch', batchId, '--output', 'json', '--state-dir', stateDir])).stdout) as RunJson[];
  assert.equal(done.filter((r) => r.status === 'succeeded').length, 6, JSON.stringify(done));
});

test('10: a batch reset where one connector has no offsets: that row is "unchanged", the batch exits 0', { timeout: 600_000 }, async () => {
  const { cluster, sources, stateDir } = fleet;
  const [empty, other] = sources as [typeof sources[0], typeof sources[0]];
  // Stopped first (a RUNNING source would read its file again and commit a new offset), then reset: no offsets left.
  assert.equal((await runCli(['stop', empty.name, '--url', cluster.url])).status, 0);
  const single = await runCli(['reset', empty.name, '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(single.status, 0, single.stderr);
  const again = await runCli(['reset', empty.name, '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(again.status, 0, `a single reset with nothing to change exits 0: ${again.stderr}`);
  const r = await runCli(['reset', empty.name, other.name, '--yes', '--output', 'json', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const summary = JSON.parse(r.stdout) as BatchSummaryJson & { counts: Record<string, number> };
  const row = summary.connectors.find((c) => c.connector === empty.name);
  assert.equal(row?.status, 'unchanged', r.stdout);
  assert.equal(summary.counts['failed'], 0);
  assert.equal(summary.connectors.find((c) => c.connector === other.name)?.status, 'succeeded');
  assert.equal((await runCli(['resume', empty.name, '--url', cluster.url])).status, 0);
});

test('13: rewind a b --to-earliest: each connector of the batch gets its own targets', { timeout: 600_000 }, async () => {
  const { cluster, sources, stateDir } = fleet;
  const [a, b] = sources.slice(2) as [typeof sources[0], typeof sources[0]];
  const r = await runCli(['rewind', a.name, b.name, '--to-earliest', '--yes', '--output', 'json', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const summary = JSON.parse(r.stdout) as BatchSummaryJson;
  assert.deepEqual(summary.connectors.map((c) => [c.connector, c.status]), [[a.name, 'succeeded'], [b.name, 'succeeded']]);
  for (const s of [a, b]) {
    await cluster.waitRunning(s.name);
    // FileStreamSource: the earliest position is 0; the source then reads its file again.
    const runs = JSON.parse((await runCli(['runs', '--output', 'json', '--state-dir', stateDir])).stdout) as RunJson[];
    assert.ok(runs.some((x) => x.connector === s.name && x.operation === 'rewind' && x.status === 'succeeded'), s.name);
  }
});
