// The ops API as any face uses it (the CLI is one, the web console another): plans are plain
// data and change nothing; applyPlan reports through events and honours an abort signal.
// Real parts: the sandbox's Kafka broker and Connect cluster.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { OpsError, planReset, planResume, planRewind, planRollback, type OpsEvent } from '../../src/ops/index.js';
import { applyPlan } from '../../src/ops/run/index.js';
import { EXIT_STATUS } from '../../src/cli/exit-status.js';
import { sortedOffsets, uniqueName } from '../support/connect.js';
import { startOpsContext, type OpsTestContext } from '../support/ops-context.js';

let ops: OpsTestContext;

before(async () => {
  ops = await startOpsContext('offsetctl-state-api-');
});
after(async () => ops?.close());

test('a plan is JSON data, and planning changes nothing on the cluster or in the store', async () => {
  const { cluster, ctx } = ops;
  const source = await cluster.createSource(3);
  const before = await cluster.offsets(source.name);
  const target = { offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] };
  const plans = [
    await planRewind(ctx, { connector: source.name, offsets: target }),
    await planReset(ctx, { connector: source.name, resumeAfter: 'never' }),
  ];
  for (const plan of plans) assert.deepEqual(JSON.parse(JSON.stringify(plan)), plan, `${plan.operation} plan survives JSON`);
  const [rewind, reset] = plans;
  assert.equal(rewind?.connectorType, 'source');
  assert.equal(rewind?.stateBefore, 'RUNNING');
  assert.deepEqual(rewind?.targetOffsets, target.offsets);
  assert.deepEqual(rewind?.diff.counts, { changed: 1, added: 0, removed: 0, unchanged: 0 });
  assert.equal(rewind?.nothingToChange, false);
  assert.deepEqual(rewind?.warnings, []);
  assert.equal(reset?.stateAfter, 'STOPPED');
  assert.deepEqual(reset?.diff.counts.removed, 1);
  assert.deepEqual(await cluster.offsets(source.name), before);
  assert.equal((await cluster.status(source.name)).connector.state, 'RUNNING');
  assert.deepEqual(await ctx.store.listRuns(), []);
  assert.deepEqual(await ctx.store.listSnapshots(), []);
});

test('refusals are OpsErrors whose codes exit 2', async () => {
  const { cluster, ctx } = ops;
  const source = await cluster.createSource(2);
  const refusals = [
    () => planRewind(ctx, { connector: source.name, offsets: { offsets: [{ partition: { filename: 1 }, offset: { position: 'x' } }] } }),
    () => planRewind(ctx, { connector: 'no-such-connector-here', offsets: [] }),
    () => planRollback(ctx, { connector: source.name }),
    () => planResume(ctx, { runId: 'run-nope' }),
  ];
  for (const p of refusals) {
    await assert.rejects(p(), (err: unknown) => {
      assert.ok(err instanceof OpsError, String(err));
      assert.equal(EXIT_STATUS[err.code], 2, err.code);
      return true;
    });
  }
});

test('applyPlan runs the plan, reports through events, and the rollback plan restores it exactly', async () => {
  const { cluster, ctx } = ops;
  const source = await cluster.createSource(4);
  const before = await cluster.offsets(source.name);
  const other = { filename: join(cluster.dir, 'api-other.txt') };
  const plan = await planRewind(ctx, { connector: source.name, offsets: [{ partition: other, offset: { position: 2 } }] });
  const events: OpsEvent[] = [];
  const outcome = await applyPlan(ctx, plan, { onEvent: (e) => events.push(e) });
  assert.equal(outcome.status, 'succeeded', outcome.message);
  assert.deepEqual(JSON.parse(JSON.stringify(outcome)), outcome);
  assert.equal(events[0]?.type, 'ops.run.started');
  assert.ok(events.some((e) => e.type === 'step.finished' && e.stepId === 'rewindOffsets' && e.status === 'passed'));
  await cluster.waitRunning(source.name);

  const rollback = await planRollback(ctx, { connector: source.name });
  assert.equal(rollback.snapshotId, outcome.snapshotId);
  assert.equal((await applyPlan(ctx, rollback)).status, 'succeeded');
  await cluster.waitRunning(source.name);
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(before));
});

test('an abort signal cancels the run, and the connector is put back as it was; a batch id is in the run from its first step', async () => {
  const { cluster, ctx } = ops;
  const source = await cluster.createSource(3);
  const before = await cluster.offsets(source.name);
  const plan = await planRewind(ctx, { connector: source.name, offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] });
  const controller = new AbortController();
  const batchId = uniqueName('batch-test');
  const atFirstStep: Array<unknown> = [];
  // Cancel once the connector is stopped and the snapshot stored: the moment Ctrl-C hurts most.
  const outcome = await applyPlan(ctx, plan, {
    signal: controller.signal, batchId,
    beforeStep: async (_stepId, runId) => { if (atFirstStep.length === 0) atFirstStep.push((await ctx.store.getRun(runId)).context.batchId); },
    onEvent: (e) => { if (e.type === 'step.finished' && e.stepId === 'captureOffsets') controller.abort(); },
  });
  assert.deepEqual(atFirstStep, [batchId], 'the batch id is recorded when the run is opened, before its first step');
  assert.deepEqual((await ctx.store.listRuns({ batchId })).map((r) => r.id), [outcome.runId]);
  assert.equal(outcome.status, 'failed');
  assert.equal(outcome.recovery?.succeeded, true, outcome.message);
  await cluster.waitRunning(source.name);
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(before));
  assert.equal((await ctx.store.listRuns({ connector: source.name }))[0]?.status, 'failed');
});
