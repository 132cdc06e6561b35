// Real parts: none (the code under test, in this process).
import { describe, it } from 'node:test';
import { strict as assert } from 'node:assert';
import type { RunEvent, WorkflowResult } from '../../arazzo/index.js';
import { refusalResult, renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { createTextProgress, renderTextSummary } from './text.js';

const failed: WorkflowResult = {
  workflowId: 'wf',
  status: 'failed',
  outputs: { a: 1 },
  steps: [
    { workflowId: 'wf', stepId: 'ok', kind: 'operation', attempt: 1, status: 'passed', outputs: {}, failedCriteria: [], durationMs: 5 },
    {
      workflowId: 'wf', stepId: 'bad<&>', kind: 'operation', attempt: 2, status: 'failed', outputs: {}, durationMs: 7,
      request: { method: 'GET', url: 'http://h/x?a=1&b=2' }, response: { status: 500, durationMs: 6 },
      failedCriteria: [{ passed: false, type: 'simple', condition: '$statusCode == 200', message: '$statusCode == 200: left was 500' }],
    },
  ],
  error: { code: 'E_STEP_FAILED', message: 'step "bad" failed' },
};

describe('renderers', () => {
  it('JUnit has one escaped test case per step execution with the failure message', () => {
    const xml = renderJunit(failed);
    assert.equal(xml.match(/<testcase /g)?.length, 2);
    assert.match(xml, /name="bad&lt;&amp;&gt; \(attempt 2\)"/);
    assert.match(xml, /<failure message="\$statusCode == 200: left was 500" type="E_CRITERIA">GET http:\/\/h\/x\?a=1&amp;b=2 → 500/);
    assert.match(xml, /tests="2" failures="1"/);
  });

  it('a refusal still yields one JSON document and one failing JUnit case', () => {
    const refused = refusalResult('wf', Object.assign(new Error('input "x": is required'), { code: 'E_INPUTS' }));
    assert.deepEqual(JSON.parse(renderJson(refused)), { workflowId: 'wf', status: 'failed', outputs: {}, steps: [], error: { code: 'E_INPUTS', message: 'input "x": is required' } });
    assert.match(renderJunit(refused), /<testcase classname="wf" name="\(run\)"[\s\S]*type="E_INPUTS"/);
  });

  it('text progress prints each step with request, status, duration and failed criteria', () => {
    let out = '';
    const listener = createTextProgress((t) => void (out += t));
    const at = '2026-01-01T00:00:00.000Z';
    const events: RunEvent[] = [
      { type: 'workflow.started', workflowId: 'wf', inputs: {}, at },
      { type: 'step.started', workflowId: 'wf', stepId: 's', attempt: 1, at },
      { type: 'request.sent', workflowId: 'wf', stepId: 's', method: 'PUT', url: 'http://h/s', headers: {}, at },
      { type: 'response.received', workflowId: 'wf', stepId: 's', status: 404, headers: {}, durationMs: 12.4, at },
      { type: 'criterion.evaluated', workflowId: 'wf', stepId: 's', source: 'successCriteria', result: { passed: false, type: 'simple', condition: '$statusCode == 204', message: '$statusCode == 204: left was 404' }, at },
      { type: 'step.finished', workflowId: 'wf', stepId: 's', status: 'failed', outputs: {}, at },
    ];
    for (const e of events) void listener(e);
    assert.equal(out, 'FAIL s  PUT http://h/s → 404 (12 ms)\n       criterion failed: $statusCode == 204: left was 404\n');
  });

  it('a failed execution followed by a retry is a poll: "wait" in progress, counted apart in the summary', () => {
    let out = '';
    const listener = createTextProgress((t) => void (out += t));
    const at = '2026-01-01T00:00:00.000Z';
    const events: RunEvent[] = [
      { type: 'workflow.started', workflowId: 'wf', inputs: {}, at },
      { type: 'step.started', workflowId: 'wf', stepId: 'poll', attempt: 1, at },
      { type: 'action.taken', workflowId: 'wf', stepId: 'poll', action: { name: 'again', type: 'retry', retryLimit: 5 }, reason: 'onFailure: retry 1 of 5', at },
      { type: 'step.finished', workflowId: 'wf', stepId: 'poll', status: 'failed', outputs: {}, at },
    ];
    for (const e of events) void listener(e);
    assert.match(out, /^wait poll\n/);
    const result: WorkflowResult = {
      workflowId: 'wf',
      status: 'passed',
      outputs: {},
      steps: [
        { workflowId: 'wf', stepId: 'poll', kind: 'operation', attempt: 1, status: 'failed', outputs: {}, failedCriteria: [], durationMs: 1, action: { name: 'again', type: 'retry' } },
        { workflowId: 'wf', stepId: 'poll', kind: 'operation', attempt: 2, status: 'passed', outputs: {}, failedCriteria: [], durationMs: 1 },
      ],
    };
    assert.match(renderTextSummary(result), /workflow wf passed \(2 step executions, 0 failed, 1 waiting \(retried\)\)/);
  });
});
