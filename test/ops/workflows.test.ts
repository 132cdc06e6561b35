// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { loadDocumentFile, validateArazzo } from '../../src/arazzo/document/index.js';
import type { Workflow } from '../../src/arazzo/types.js';
import { RECOVERY, RESET, REWIND, ROLLBACK } from '../../src/ops/workflows/operations.js';
import { resumePointFor } from '../../src/ops/plan/plan.js';
import { WORKFLOW_FILES } from '../../src/ops/workflows/workflow-files.js';
import type { StepRecord } from '../../src/store/index.js';

async function workflowOf(kind: keyof typeof WORKFLOW_FILES): Promise<Workflow> {
  const doc = await loadDocumentFile(WORKFLOW_FILES[kind].file);
  assert.deepEqual(validateArazzo(doc).filter((d) => d.severity === 'error'), []);
  const value = doc.value as { workflows: Workflow[]; sourceDescriptions: Array<{ name: string; url: string }> };
  assert.deepEqual(value.sourceDescriptions.map((s) => [s.name, s.url]), [['kafkaConnect', '../openapi/kafka-connect.yaml']]);
  const wf = value.workflows.find((w) => w.workflowId === WORKFLOW_FILES[kind].workflowId);
  assert.ok(wf, `${kind}: workflow ${WORKFLOW_FILES[kind].workflowId}`);
  return wf;
}

test('the shipped workflows validate and name the steps and outputs ops relies on', async () => {
  for (const spec of [REWIND, RESET, ROLLBACK, RECOVERY]) {
    const wf = await workflowOf(spec.workflow);
    const ids = wf.steps.map((s) => s.stepId);
    for (const id of [spec.initialStateStep, spec.stopStep, spec.snapshotStep, spec.mutatingStep, spec.waitForRunningStep, 'readFinalState']) {
      assert.ok(ids.includes(id), `${spec.workflow} has step ${id}`);
    }
    // The snapshot is taken after the wait for STOPPED and before the change, never after.
    assert.ok(ids.indexOf('waitForStopped') < ids.indexOf(spec.snapshotStep));
    assert.ok(ids.indexOf(spec.snapshotStep) < ids.indexOf(spec.mutatingStep));
    const snapshot = wf.steps.find((s) => s.stepId === spec.snapshotStep);
    assert.equal(snapshot?.outputs?.[spec.snapshotOutput], '$response.body#/offsets');
    if (spec.verify) assert.ok(wf.steps.find((s) => s.stepId === spec.verify!.step)?.outputs?.[spec.verify.output]);
  }
});

test('rewind and reset keep the seed outputs other tools rely on, and need only connectorName (+ offsets)', async () => {
  const rewind = await workflowOf('rewind');
  assert.deepEqual(Object.keys(rewind.outputs ?? {}).filter((k) => ['previousOffsets', 'rewoundOffsets', 'connectorState'].includes(k)).sort(), ['connectorState', 'previousOffsets', 'rewoundOffsets']);
  assert.deepEqual((rewind.inputs as { required: string[] }).required, ['connectorName', 'offsets']);
  const reset = await workflowOf('reset');
  assert.deepEqual(Object.keys(reset.outputs ?? {}).filter((k) => ['offsetsBeforeReset', 'offsetsAfterReset', 'connectorState'].includes(k)).sort(), ['connectorState', 'offsetsAfterReset', 'offsetsBeforeReset']);
  assert.deepEqual((reset.inputs as { required: string[] }).required, ['connectorName']);
});

test('the change steps retry on 409 and on the "can be safely retried" 500', async () => {
  for (const spec of [REWIND, RESET, ROLLBACK]) {
    const wf = await workflowOf(spec.workflow);
    const step = wf.steps.find((s) => s.stepId === spec.mutatingStep)!;
    const actions = (step.onFailure ?? []) as Array<{ type: string; criteria?: Array<{ condition: string }> }>;
    const conditions = actions.filter((a) => a.type === 'retry').map((a) => (a.criteria ?? []).map((c) => c.condition).join(' & '));
    assert.ok(conditions.some((c) => c.includes('$statusCode == 409')), `${spec.mutatingStep} retries 409`);
    assert.ok(conditions.some((c) => c.includes('$statusCode == 500') && c.includes('can be safely retried')), `${spec.mutatingStep} retries the retriable 500`);
  }
});

test('every wait polls at most 50 ms apart for its first 2 s, 100 ms up to 6 s, and gives up after 60-70 s', async () => {
  // A stop or resume usually takes 0.1-3 s (a task finishing its poll, a rebalance): a coarser
  // ladder there is time the operator waits after Kafka Connect is done (BENCHMARKS.md, figure 5).
  for (const kind of ['rewind', 'reset', 'restore'] as const) {
    const wf = await workflowOf(kind);
    const waits = wf.steps.filter((s) => /^waitFor/.test(s.stepId));
    assert.deepEqual(waits.map((s) => s.stepId).sort(), ['waitForPaused', 'waitForRunning', 'waitForStopped'], kind);
    for (const wait of waits) {
      const retries = ((wait.onFailure ?? []) as Array<{ type: string; retryAfter?: number; retryLimit?: number }>).filter((a) => a.type === 'retry');
      // The engine takes each retry action until its retryLimit is spent, then the next one.
      const delays = retries.flatMap((a) => Array.from({ length: a.retryLimit ?? 1 }, () => a.retryAfter ?? 0));
      let elapsed = 0; // ms, counted in integers (0.05 + 0.1 + … drifts in floating point)
      for (const d of delays.map((x) => Math.round(x * 1000))) {
        if (elapsed < 2000) assert.ok(d <= 50, `${kind} ${wait.stepId}: a ${d} ms gap at ${elapsed} ms`);
        if (elapsed < 6000) assert.ok(d <= 100, `${kind} ${wait.stepId}: a ${d} ms gap at ${elapsed} ms`);
        elapsed += d;
      }
      assert.ok(elapsed >= 60_000 && elapsed <= 70_000, `${kind} ${wait.stepId}: gives up after ${elapsed} ms`);
      assert.ok(delays.every((d, i) => i === 0 || d >= delays[i - 1]!), `${kind} ${wait.stepId}: the gaps only grow`);
    }
  }
});

const step = (stepId: string, seq: number, status: 'passed' | 'failed' = 'passed', workflowId = 'rewind-connector-offsets'): StepRecord =>
  ({ seq, workflowId, stepId, status, outputs: { seq }, finishedAt: '2026-01-01T00:00:00Z' });

test('an interrupted run resumes after its last finished step, re-running decision steps', () => {
  const wf = { workflowId: 'rewind-connector-offsets', stepOrder: ['readInitialState', 'stopConnector', 'waitForStopped', 'captureOffsets', 'rewindOffsets', 'verifyOffsets', 'decideFinalState', 'resumeConnector', 'readFinalState'], decisionSteps: new Set(['decideFinalState']) };
  assert.equal(resumePointFor(wf, []), undefined);
  const killedBeforePatch = [step('readInitialState', 1), step('stopConnector', 2), step('waitForStopped', 3, 'failed'), step('waitForStopped', 4), step('captureOffsets', 5)];
  const point = resumePointFor(wf, killedBeforePatch);
  assert.equal(point?.stepId, 'rewindOffsets');
  assert.deepEqual(Object.keys(point?.steps ?? {}), ['readInitialState', 'stopConnector', 'waitForStopped', 'captureOffsets']);
  assert.deepEqual(point?.steps.waitForStopped?.outputs, { seq: 4 });
  assert.equal(resumePointFor(wf, [...killedBeforePatch, step('rewindOffsets', 6), step('verifyOffsets', 7), step('decideFinalState', 8)])?.stepId, 'decideFinalState');
  // Steps of the recovery workflow do not count.
  assert.equal(resumePointFor(wf, [...killedBeforePatch, step('restoreOffsets', 9, 'passed', 'restore-connector-offsets')])?.stepId, 'rewindOffsets');
});
