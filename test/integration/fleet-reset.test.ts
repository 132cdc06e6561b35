// A batch reset of 20 connectors: one batch id, 20 journaled runs, every connector's offsets
// deleted (read back by Connect while it was stopped) and the connector RUNNING again — which,
// for a FileStreamSource, means it re-read its file from the start into its topic.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { runInProcess } from '../support/in-process.js';
import { waitFor } from '../support/connect.js';
import { endOffsets, sandboxBootstrap, startFleet, type BatchSummaryJson, type Fleet, type RunJson } from '../support/fleet.js';

const COUNT = 20;
const LINES = 3;
let fleet: Fleet;

before(async () => {
  fleet = await startFleet('fleet-reset', COUNT, LINES);
});
after(async () => fleet?.remove());

test('reset --selector of 20 connectors resets every one, puts every one back RUNNING, under one batch id', async () => {
  const { cluster, prefix, sources, stateDir } = fleet;
  const bootstrap = sandboxBootstrap();
  const topics = sources.map((s) => s.topic);
  const before = await endOffsets(bootstrap, topics);
  for (const t of topics) assert.equal(before.get(t), LINES, `${t} holds the file once before the reset`);

  const r = await runInProcess(['reset', '--selector', `^${prefix}-`, '--concurrency', '10', '--yes', '--output', 'json', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(r.stdout) as BatchSummaryJson;
  assert.equal(summary.operation, 'reset');
  assert.equal(summary.total, COUNT);
  assert.equal(summary.counts.succeeded, COUNT, r.stdout);
  assert.deepEqual(summary.connectors.map((c) => c.connector), sources.map((s) => s.name));
  for (const c of summary.connectors) {
    assert.equal(c.finalState, 'RUNNING', `${c.connector}: ${c.message}`);
    assert.ok(c.runId && c.snapshotId, `${c.connector} has its own run and snapshot`);
  }
  assert.equal(new Set(summary.connectors.map((c) => c.runId)).size, COUNT);

  const runs = JSON.parse((await runInProcess(['runs', '--batch', summary.batchId, '--output', 'json', '--state-dir', stateDir])).stdout) as RunJson[];
  assert.equal(runs.length, COUNT);
  assert.deepEqual(new Set(runs.map((x) => x.batchId)), new Set([summary.batchId]));
  assert.ok(runs.every((x) => x.operation === 'reset' && x.status === 'succeeded' && x.connectorState === 'RUNNING'));

  // Each run's journal has its own DELETE of the offsets, passed.
  for (const run of runs) {
    const shown = JSON.parse((await runInProcess(['runs', 'show', run.id, '--output', 'json', '--state-dir', stateDir])).stdout) as { steps: Array<{ stepId: string; status: string }> };
    assert.ok(shown.steps.some((s) => s.stepId === 'resetOffsets' && s.status === 'passed'), `${run.connector}: ${JSON.stringify(shown.steps)}`);
  }
  // With its offset gone, every source read its file again from the start.
  await waitFor('every source to re-read its file', async () => {
    const now = await endOffsets(bootstrap, topics);
    return topics.every((t) => now.get(t) === 2 * LINES);
  }, 90_000, 1000);
  for (const s of sources) assert.equal((await cluster.status(s.name)).connector.state, 'RUNNING');
});
