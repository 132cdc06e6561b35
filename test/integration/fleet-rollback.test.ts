// A batch undone by a batch: reset two connectors by name (left STOPPED), then roll both back
// with one --selector: each to its own latest snapshot, offsets and RUNNING state restored.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { runInProcess } from '../support/in-process.js';
import { sortedOffsets, stillSet, type OffsetsBody } from '../support/connect.js';
import { startFleet, type BatchSummaryJson, type Fleet } from '../support/fleet.js';

let fleet: Fleet;

before(async () => {
  fleet = await startFleet('fleet-rollback', 2);
});
after(async () => fleet?.remove());

test('reset of two named connectors (--leave-stopped), then rollback --selector restores both', async () => {
  const { cluster, prefix, sources, stateDir } = fleet;
  const before = new Map<string, OffsetsBody['offsets']>();
  for (const s of sources) before.set(s.name, sortedOffsets(await cluster.offsets(s.name)));
  const reset = await runInProcess(['reset', ...sources.map((s) => s.name), '--leave-stopped', '--yes', '--output', 'json', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(reset.status, 0, reset.stderr);
  const resetSummary = JSON.parse(reset.stdout) as BatchSummaryJson;
  assert.deepEqual(resetSummary.connectors.map((c) => [c.status, c.finalState]), [['succeeded', 'STOPPED'], ['succeeded', 'STOPPED']]);
  for (const s of sources) {
    assert.deepEqual(stillSet((await cluster.offsets(s.name)).offsets), []);
    assert.equal((await cluster.status(s.name)).connector.state, 'STOPPED');
  }

  const rollback = await runInProcess(['rollback', '--selector', `^${prefix}-`, '--yes', '--output', 'json', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(rollback.status, 0, rollback.stderr);
  const summary = JSON.parse(rollback.stdout) as BatchSummaryJson;
  assert.equal(summary.operation, 'rollback');
  assert.deepEqual(summary.connectors.map((c) => [c.connector, c.status, c.finalState]), sources.map((s) => [s.name, 'succeeded', 'RUNNING']));
  assert.notEqual(summary.batchId, resetSummary.batchId);
  for (const s of sources) {
    await cluster.waitRunning(s.name);
    assert.deepEqual(sortedOffsets(await cluster.offsets(s.name)), before.get(s.name), s.name);
  }
});
