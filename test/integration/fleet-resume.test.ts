// A batch killed half-way (kill -9 through the OFFSETCTL_TEST_KILL_BEFORE_STEP hook: the first
// connector to reach its PATCH kills the whole process) leaves every started run interrupted
// under the batch id; `runs resume --batch <id>` finishes them all.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { startFleet, type BatchSummaryJson, type Fleet, type RunJson } from '../support/fleet.js';

let fleet: Fleet;

before(async () => {
  fleet = await startFleet('fleet-resume', 3);
});
after(async () => fleet?.remove());

test('runs resume --batch finishes every interrupted run of a killed batch', async () => {
  const { cluster, prefix, sources, stateDir } = fleet;
  const elsewhere = (name: string) => ({ filename: join(cluster.dir, `${name}-elsewhere.txt`) });
  const input = JSON.stringify({ connectors: Object.fromEntries(sources.map((s) => [s.name, { offsets: [{ partition: elsewhere(s.name), offset: { position: 5 } }] }])) });
  const killed = await runCli(['rewind', '--selector', `^${prefix}-`, '--offsets', '-', '--concurrency', '3', '--yes', '--url', cluster.url, '--state-dir', stateDir], {
    stdin: input, env: { OFFSETCTL_TEST_KILL_BEFORE_STEP: 'rewindOffsets' },
  });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  const batchId = /Batch (batch-\S+):/.exec(killed.stdout)?.[1];
  assert.ok(batchId, killed.stdout);

  const runs = JSON.parse((await runCli(['runs', '--batch', batchId, '--output', 'json', '--state-dir', stateDir])).stdout) as RunJson[];
  assert.equal(runs.length, 3);
  assert.ok(runs.every((r) => r.status === 'interrupted'), JSON.stringify(runs));

  const resumed = await runCli(['runs', 'resume', '--batch', batchId, '--output', 'json', '--state-dir', stateDir]);
  assert.equal(resumed.status, 0, resumed.stderr);
  const summary = JSON.parse(resumed.stdout) as BatchSummaryJson;
  assert.equal(summary.operation, 'resume');
  assert.equal(summary.counts.succeeded, 3, resumed.stdout);
  for (const s of sources) {
    await cluster.waitRunning(s.name);
    const written = (await cluster.offsets(s.name)).offsets.find((o) => o.partition.filename === elsewhere(s.name).filename);
    assert.deepEqual(written?.offset, { position: 5 }, s.name);
  }
  const after = JSON.parse((await runCli(['runs', '--batch', batchId, '--output', 'json', '--state-dir', stateDir])).stdout) as RunJson[];
  assert.ok(after.every((r) => r.status === 'succeeded'), JSON.stringify(after));

  const again = await runCli(['runs', 'resume', '--batch', batchId, '--state-dir', stateDir]);
  assert.equal(again.status, 2);
  assert.match(again.stderr, /nothing to resume/);
});
