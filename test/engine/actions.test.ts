// Success and failure actions against a real server: end, goto (step and workflow), retry with
// retryAfter and Retry-After, retry limits falling through, the step budget, transport errors.
// Real parts: a loopback HTTP server.
import { after, before, beforeEach, describe, it } from 'node:test';
import { strict as assert } from 'node:assert';
import { runWorkflow } from '../../src/arazzo/index.js';
import { HttpClient } from '../../src/http/client.js';
import { arazzo, registryFor } from './support/engine.js';
import { startServer, type Reply, type TestServer } from './support/server.js';

describe('actions', () => {
  let server: TestServer;
  let counter = 0;
  let flakyFailures = 0;
  let retryAfterHeader: string | undefined;
  const http = new HttpClient();
  before(async () => {
    server = await startServer({
      'POST /counter': () => ({ body: { count: ++counter } }),
      'GET /status': () => ({ body: { state: 'RUNNING' } }),
      'GET /flaky': (): Reply => {
        if (flakyFailures > 0) {
          flakyFailures -= 1;
          return { status: 503, headers: retryAfterHeader ? { 'retry-after': retryAfterHeader } : {}, body: { error: 'busy' } };
        }
        return { body: { ok: true } };
      },
    });
  });
  beforeEach(() => {
    counter = 0;
    flakyFailures = 0;
    retryAfterHeader = undefined;
  });
  after(async () => {
    await server.close();
    await http.close();
  });

  const run = async (workflows: string, extra: { maxSteps?: number; components?: string; serverUrl?: string; workflowId?: string } = {}) =>
    runWorkflow({
      registry: await registryFor(arazzo(workflows, extra.components ?? ''), extra.serverUrl ?? server.url),
      inputs: {},
      http,
      ...(extra.maxSteps ? { maxSteps: extra.maxSteps } : {}),
      ...(extra.workflowId ? { workflowId: extra.workflowId } : {}),
    });
  const executed = (result: Awaited<ReturnType<typeof run>>) => result.steps.map((s) => `${s.stepId}:${s.status}`);

  it('goto loops back to a step until an action criterion sees the response, then end finishes with the outputs so far', async () => {
    const result = await run(`
  - workflowId: poll
    steps:
      - stepId: bump
        operationId: bumpCounter
        successCriteria: [{condition: $statusCode == 200}]
        outputs: {count: $response.body#/count}
        onSuccess:
          - {name: done, type: end, criteria: [{condition: $response.body#/count >= 3}]}
          - {name: again, type: goto, stepId: bump}
      - stepId: never
        operationId: getStatus
    outputs:
      count: $steps.bump.outputs.count
`);
    assert.equal(result.status, 'passed');
    assert.deepEqual(executed(result), ['bump:passed', 'bump:passed', 'bump:passed']);
    assert.deepEqual(result.outputs, { count: 3 });
    assert.deepEqual(result.steps.map((s) => s.action?.name), ['again', 'again', 'done']);
  });

  it('retries after retryAfter seconds (fractional) and passes when the server recovers', async () => {
    flakyFailures = 2;
    const started = Date.now();
    const result = await run(`
  - workflowId: retry
    steps:
      - stepId: flaky
        operationId: getFlaky
        successCriteria: [{condition: $statusCode == 200}]
        onFailure:
          - {name: busy, type: retry, retryAfter: 0.15, retryLimit: 3, criteria: [{condition: $statusCode == 503}]}
`);
    const elapsed = Date.now() - started;
    assert.equal(result.status, 'passed');
    assert.deepEqual(result.steps.map((s) => s.attempt), [1, 2, 3]);
    assert.ok(elapsed >= 300, `two waits of 0.15 s, took ${elapsed} ms`);
  });

  it('lets an HTTP Retry-After header win over retryAfter', async () => {
    flakyFailures = 1;
    retryAfterHeader = '0';
    const started = Date.now();
    const result = await run(`
  - workflowId: header
    steps:
      - stepId: flaky
        operationId: getFlaky
        successCriteria: [{condition: $statusCode == 200}]
        onFailure: [{name: busy, type: retry, retryAfter: 30}]
`);
    assert.equal(result.status, 'passed');
    assert.ok(Date.now() - started < 5000, 'the 30 s retryAfter was overruled by Retry-After: 0');
  });

  it('retries once when retryLimit is omitted, then runs the next matching failure action', async () => {
    flakyFailures = 10;
    const result = await run(`
  - workflowId: fallthrough
    steps:
      - stepId: flaky
        operationId: getFlaky
        successCriteria: [{condition: $statusCode == 200}]
        onFailure:
          - {name: once, type: retry}
          - {name: recover, type: goto, stepId: cleanup}
      - stepId: skipped
        operationId: getStatus
      - stepId: cleanup
        operationId: bumpCounter
`);
    assert.equal(result.status, 'passed');
    assert.deepEqual(executed(result), ['flaky:failed', 'flaky:failed', 'cleanup:passed']);
    assert.deepEqual(result.steps.map((s) => s.action?.name), ['once', 'recover', undefined]);
  });

  it('fails the workflow when no failure action matches, naming the failed criterion', async () => {
    flakyFailures = 1;
    const result = await run(`
  - workflowId: nomatch
    steps:
      - stepId: flaky
        operationId: getFlaky
        successCriteria: [{condition: $statusCode == 200}]
        onFailure: [{name: onlyOn500, type: retry, criteria: [{condition: $statusCode == 500}]}]
      - stepId: after
        operationId: getStatus
`);
    assert.equal(result.status, 'failed');
    assert.equal(result.error?.code, 'E_STEP_FAILED');
    assert.match(result.error!.message, /flaky.*HTTP 503.*\$statusCode == 200/);
    assert.deepEqual(executed(result), ['flaky:failed']);
  });

  it('a retry that names a step runs it first, then retries the failed step', async () => {
    flakyFailures = 1;
    const result = await run(`
  - workflowId: sidestep
    steps:
      - stepId: flaky
        operationId: getFlaky
        successCriteria: [{condition: $statusCode == 200}]
        onFailure: [{name: refresh, type: retry, stepId: refresh}]
      - stepId: refresh
        operationId: bumpCounter
        onSuccess: [{name: stop, type: end}]
`);
    assert.equal(result.status, 'passed');
    assert.deepEqual(executed(result), ['flaky:failed', 'refresh:passed', 'flaky:passed', 'refresh:passed']);
  });

  it('uses workflow-level failureActions from components for steps without their own, and a failure end fails the workflow', async () => {
    flakyFailures = 5;
    const result = await run(`
  - workflowId: shared
    failureActions:
      - reference: $components.failureActions.giveUp
    steps:
      - stepId: flaky
        operationId: getFlaky
        successCriteria: [{condition: $statusCode == 200}]
`, { components: `components:
  failureActions:
    giveUp: {name: giveUp, type: end}
` });
    assert.equal(result.status, 'failed');
    assert.equal(result.steps[0]!.action?.name, 'giveUp');
    assert.match(result.error!.message, /ended the workflow/);
  });

  it('goto a workflow transfers control for good', async () => {
    const result = await run(`
  - workflowId: first
    steps:
      - stepId: status
        operationId: getStatus
        onSuccess: [{name: jump, type: goto, workflowId: second}]
      - stepId: notRun
        operationId: getStatus
  - workflowId: second
    steps:
      - stepId: bump
        operationId: bumpCounter
        outputs: {count: $response.body#/count}
    outputs: {count: $steps.bump.outputs.count}
`, { workflowId: 'first' });
    assert.equal(result.status, 'passed');
    assert.deepEqual(result.steps.map((s) => `${s.workflowId}/${s.stepId}`), ['first/status', 'second/bump']);
  });

  it('counts any response as success when a step has no success criteria', async () => {
    flakyFailures = 1;
    const result = await run(`
  - workflowId: nocriteria
    steps:
      - stepId: flaky
        operationId: getFlaky
        outputs: {status: $statusCode}
`);
    assert.equal(result.status, 'passed');
    assert.deepEqual(result.steps[0]!.outputs, { status: 503 });
  });

  it('a retry that names a workflow runs it with the current inputs, then retries', async () => {
    flakyFailures = 1;
    const result = await run(`
  - workflowId: main
    steps:
      - stepId: flaky
        operationId: getFlaky
        successCriteria: [{condition: $statusCode == 200}]
        onFailure: [{name: heal, type: retry, workflowId: heal}]
  - workflowId: heal
    steps:
      - stepId: bump
        operationId: bumpCounter
`, { workflowId: 'main' });
    assert.equal(result.status, 'passed');
    assert.deepEqual(result.steps.map((s) => `${s.workflowId}/${s.stepId}:${s.status}`), ['main/flaky:failed', 'heal/bump:passed', 'main/flaky:passed']);
  });

  it('cancels a run during a retry wait', async () => {
    flakyFailures = 5;
    const abort = new AbortController();
    const registry = await registryFor(arazzo(`
  - workflowId: waits
    steps:
      - stepId: flaky
        operationId: getFlaky
        successCriteria: [{condition: $statusCode == 200}]
        onFailure: [{name: later, type: retry, retryAfter: 30}]
`), server.url);
    const started = Date.now();
    setTimeout(() => abort.abort(), 100);
    const result = await runWorkflow({ registry, inputs: {}, http, signal: abort.signal });
    assert.equal(result.status, 'failed');
    assert.equal(result.error?.code, 'E_ABORTED');
    assert.ok(Date.now() - started < 5000);
  });

  it('stops an endless goto loop with the step budget and says how to raise it', async () => {
    const result = await run(`
  - workflowId: endless
    steps:
      - stepId: spin
        operationId: getStatus
        onSuccess: [{name: again, type: goto, stepId: spin}]
`, { maxSteps: 25 });
    assert.equal(result.status, 'failed');
    assert.equal(result.error?.code, 'E_STEP_BUDGET');
    assert.match(result.error!.message, /25 step executions.*"endless\/spin" ran 25 times.*raise the step budget/);
    assert.deepEqual(result.error!.hint, { kind: 'raise-step-budget' });
    assert.equal(result.steps.length, 25);
  });

  it('treats connection refused as a step failure with E_HTTP that a retry action can handle', async () => {
    const dead = await startServer();
    const deadUrl = dead.url;
    await dead.close();
    const result = await run(`
  - workflowId: refused
    steps:
      - stepId: status
        operationId: getStatus
        onFailure: [{name: again, type: retry, retryLimit: 2}]
`, { serverUrl: deadUrl });
    assert.equal(result.status, 'failed');
    assert.equal(result.error?.code, 'E_HTTP');
    assert.match(result.error!.message, /connection refused/);
    assert.equal(result.steps.length, 3);
  });
});
