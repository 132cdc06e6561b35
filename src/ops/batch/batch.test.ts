// The batch's phases over an in-memory ConnectorOps (the per-connector operations are tested
// against the sandbox in test/integration/fleet-*.test.ts; here: ordering, limits, summaries).
// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { applyBatch, newBatchId, parseConcurrency, planBatch, summarize, type BatchPlan, type ConnectorOps } from './batch.js';
import { OpsError } from '../errors.js';
import type { OperationOutcome } from '../run/run-operation.js';

function planOf(connector: string): BatchPlan {
  return { operation: 'reset', connector, connectorType: 'source', stateBefore: 'RUNNING', diff: { counts: { unchanged: 0, changed: 0, added: 0, removed: 1 } }, warnings: [], nothingToChange: false };
}

function opsWith(behaviour: { refuse?: Set<string>; fail?: Set<string>; throwIn?: Set<string>; delayMs?: number }) {
  const log: string[] = [];
  let running = 0;
  let maxRunning = 0;
  const ops: ConnectorOps = {
    plan: async (c) => {
      if (behaviour.refuse?.has(c)) throw new OpsError('E_PREFLIGHT', `${c} cannot be changed`);
      return planOf(c);
    },
    apply: async (plan, options) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      log.push(`${plan.connector}@${options.batchId}`);
      await sleep(behaviour.delayMs ?? 5);
      running--;
      if (behaviour.throwIn?.has(plan.connector)) throw new OpsError('E_PREFLIGHT', 'lock taken since the pre-flight');
      const failed = behaviour.fail?.has(plan.connector) ?? false;
      const outcome: OperationOutcome = {
        operation: 'reset', connector: plan.connector, clusterUrl: 'http://x', status: failed ? 'failed' : 'succeeded', runId: `run-${plan.connector}`,
        connectorState: 'RUNNING', message: failed ? 'reset failed at step resetOffsets' : 'done', warnings: [],
        ...(failed ? { failedStep: 'resetOffsets', recovery: { restoredOffsets: [], targetState: 'RUNNING', succeeded: true, offsetsWritten: false } } : {}),
      };
      return outcome;
    },
    state: async () => 'RUNNING',
  };
  return { ops, log, maxRunning: () => maxRunning };
}

test('one pre-flight refusal refuses the batch, naming every refused connector; nothing is applied', async () => {
  const { ops, log } = opsWith({ refuse: new Set(['b', 'd']) });
  await assert.rejects(planBatch(ops, ['a', 'b', 'c', 'd'], { concurrency: 2 }), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'E_PREFLIGHT');
    assert.match(err.message, /pre-flight refused 2 of 4 connector\(s\); nothing was changed \(pass --skip-invalid/);
    assert.match(err.message, /\n {2}b: b cannot be changed\n {2}d: d cannot be changed/);
    return true;
  });
  assert.deepEqual(log, []);
});

test('with skipInvalid the refused are skipped and listed; when all are refused the batch is still refused', async () => {
  const { ops } = opsWith({ refuse: new Set(['b']) });
  const planned = await planBatch(ops, ['a', 'b', 'c'], { concurrency: 2, skipInvalid: true });
  assert.deepEqual(planned.plans.map((p) => p.connector), ['a', 'c']);
  assert.deepEqual(planned.skipped.map((s) => [s.connector, s.status, s.finalState]), [['b', 'skipped', 'RUNNING']]);
  const all = opsWith({ refuse: new Set(['a']) });
  await assert.rejects(planBatch(all.ops, ['a'], { concurrency: 1, skipInvalid: true }), /every connector was refused/);
});

test('apply runs at most `concurrency` at once, tags each with the batch id, and one failure does not stop the others', async () => {
  const { ops, log, maxRunning } = opsWith({ fail: new Set(['c']), throwIn: new Set(['e']), delayMs: 20 });
  const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  const rows = await applyBatch(ops, names.map(planOf), 'batch-1', { concurrency: 3 });
  assert.equal(maxRunning(), 3);
  assert.deepEqual(log.map((l) => l.split('@')[1]), names.map(() => 'batch-1'));
  assert.deepEqual(rows.map((r) => [r.connector, r.status]), [['a', 'succeeded'], ['b', 'succeeded'], ['c', 'failed'], ['d', 'succeeded'], ['e', 'refused'], ['f', 'succeeded'], ['g', 'succeeded']]);
  assert.equal(rows[2]?.recovered, true);
  assert.equal(rows[2]?.failedStep, 'resetOffsets');
  const summary = summarize('batch-1', 'reset', names, rows);
  assert.deepEqual(summary.counts, { succeeded: 5, unchanged: 0, failed: 1, skipped: 0, refused: 1, cancelled: 0 });
});

test('after an abort no further connector starts; those are reported cancelled with their state', async () => {
  const { ops, log } = opsWith({ delayMs: 30 });
  const controller = new AbortController();
  const rows = await applyBatch(ops, ['a', 'b', 'c', 'd'].map(planOf), 'batch-2', {
    concurrency: 2, signal: controller.signal, onEvent: (e) => { if (e.type === 'started' && e.connector === 'b') controller.abort(); },
  });
  assert.deepEqual(log.map((l) => l.split('@')[0]), ['a', 'b']);
  assert.deepEqual(rows.map((r) => r.status), ['succeeded', 'succeeded', 'cancelled', 'cancelled']);
  assert.equal(rows[3]?.finalState, 'RUNNING');
});

test('--concurrency must be a whole number from 1 to 64; batch ids sort by time', () => {
  assert.equal(parseConcurrency(undefined), 4);
  assert.equal(parseConcurrency('12'), 12);
  for (const bad of ['0', '-1', '2.5', 'x', '65', '']) assert.throws(() => parseConcurrency(bad), /--concurrency/);
  assert.match(newBatchId(new Date('2026-11-30T16:00:00Z')), /^batch-20261130-160000-[0-9a-f]{4}$/);
});

test('a connector with nothing to change is "unchanged", not failed (issue 20, point 10), and the members are recorded before the first starts (point 4)', async () => {
  const recorded: string[][] = [];
  const started: string[] = [];
  const ops: ConnectorOps = {
    plan: async (c) => planOf(c),
    apply: async (p) => {
      started.push(p.connector);
      assert.equal(recorded.length, 1, 'recorded before any apply');
      return { operation: 'reset', connector: p.connector, clusterUrl: 'http://x', status: p.connector === 'empty' ? 'unchanged' : 'succeeded', connectorState: 'RUNNING', message: 'm', warnings: [] };
    },
    state: async () => 'RUNNING',
    record: async (_id, plans) => void recorded.push(plans.map((p) => p.connector)),
  };
  const rows = await applyBatch(ops, [planOf('empty'), planOf('full')], 'batch-t', { concurrency: 1 });
  assert.deepEqual(recorded, [['empty', 'full']]);
  assert.deepEqual(rows.map((r) => [r.connector, r.status]), [['empty', 'unchanged'], ['full', 'succeeded']]);
  assert.equal(summarize('batch-t', 'reset', ['empty', 'full'], rows).counts.failed, 0);
});
