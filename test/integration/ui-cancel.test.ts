// The console's jobs cancel through applyPlan's AbortSignal: a job cancelled after the
// connector was stopped and the snapshot stored (what the console's shutdown does to a running
// job, like Ctrl-C in the CLI) ends failed, and the connector is back as it was.
// Real parts: the sandbox's Kafka broker and Connect cluster.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Jobs, type JobEnd, type JobEvent } from '../../src/web/jobs.js';
import { planRewind } from '../../src/web/ops-bridge.js';
import { sortedOffsets } from '../support/connect.js';
import { startOpsContext, type OpsTestContext } from '../support/ops-context.js';

let ops: OpsTestContext;

before(async () => {
  ops = await startOpsContext('offsetctl-state-ui-cancel-');
});
after(async () => ops?.close());

test('cancelling a running console job stops the run and puts the connector back', async () => {
  const { cluster, ctx } = ops;
  const source = await cluster.createSource(3);
  const before = await cluster.offsets(source.name);
  const plan = await planRewind(ctx, { connector: source.name, offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] });
  const jobs = new Jobs();
  const job = jobs.start(ctx, plan, { actor: { user: 'tester', via: 'login-link' } });
  const seen: Array<JobEvent | JobEnd> = [];
  job.listeners.add((value) => {
    seen.push(value);
    if ('seq' in value && value.stepId === 'captureOffsets' && value.status === 'passed') jobs.cancelAll();
  });
  await jobs.settle();
  assert.ok(seen.some((v) => 'seq' in v && v.stepId === 'captureOffsets'), 'the job reached the snapshot step before it was cancelled');
  assert.equal(job.controller.signal.aborted, true);
  assert.equal(job.end?.status, 'failed', job.end?.message);
  assert.ok(!seen.some((v) => 'seq' in v && v.stepId === 'rewindOffsets' && v.status === 'passed'), 'the offsets were not rewound');
  assert.match(job.end?.message ?? '', /Recovery put the connector back \(RUNNING\)/);
  await cluster.waitRunning(source.name);
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(before));
  const [run] = await ctx.store.listRuns({ connector: source.name });
  assert.equal(run?.status, 'failed');
  assert.equal(job.end?.runId, run?.id);
});
