// Workflows as units: inputs (schema, defaults, $ref to components), dependsOn, steps that call
// workflows, the event stream, resume after a crash, cancellation, plan.
// Real parts: a loopback HTTP server.
import { after, before, beforeEach, describe, it } from 'node:test';
import { strict as assert } from 'node:assert';
import { ArazzoError, planWorkflow, runWorkflow, type RunEvent } from '../../src/arazzo/index.js';
import { HttpClient } from '../../src/http/client.js';
import { arazzo, registryFor } from './support/engine.js';
import { startServer, type TestServer } from './support/server.js';

const DOC = arazzo(`
  - workflowId: login
    inputs:
      type: object
      properties:
        user: {type: string, default: admin}
    steps:
      - stepId: token
        operationId: bumpCounter
        outputs: {token: 'tok-{$inputs.user}-{$response.body#/count}'}
    outputs:
      token: $steps.token.outputs.token
  - workflowId: main
    dependsOn: [login]
    inputs:
      $ref: '#/components/inputs/mainInputs'
    steps:
      - stepId: read
        operationId: getItem
        parameters:
          - {name: id, in: path, value: $inputs.id}
          - {name: Authorization, in: header, value: 'Bearer {$workflows.login.outputs.token}'}
        successCriteria: [{condition: $statusCode == 200}, {condition: $response.body#/name == 'WIDGET'}]
        outputs: {name: $response.body#/name}
      - stepId: nested
        workflowId: child
        parameters:
          - {name: label, value: $steps.read.outputs.name}
      - stepId: final
        operationId: getItem
        parameters:
          - {name: id, in: path, value: $steps.nested.outputs.echoed}
    outputs:
      name: $steps.read.outputs.name
      fromChild: $workflows.child.outputs.echoed
      limit: $inputs.limit
  - workflowId: child
    inputs:
      type: object
      required: [label]
      properties: {label: {type: string}}
    steps:
      - stepId: echo
        operationId: getItem
        parameters: [{name: id, in: path, value: $inputs.label}]
        outputs: {echoed: $response.body#/id}
    outputs:
      echoed: $steps.echo.outputs.echoed
`, `components:
  inputs:
    mainInputs:
      type: object
      required: [id]
      properties:
        id: {type: string}
        limit: {type: integer, default: 5}
        offsets: {type: array}
`);

describe('workflows', () => {
  let server: TestServer;
  let counter = 0;
  const http = new HttpClient();
  before(async () => {
    server = await startServer({
      'POST /counter': () => ({ body: { count: ++counter } }),
      'GET /items/*': (req) => ({ body: { id: decodeURIComponent(req.path.slice('/items/'.length)), name: 'widget' } }),
    });
  });
  beforeEach(() => {
    counter = 0;
  });
  after(async () => {
    await server.close();
    await http.close();
  });

  it('runs dependsOn first, calls a workflow with step parameters as inputs, applies defaults', async () => {
    const registry = await registryFor(DOC, server.url);
    const before = server.requests.length;
    const result = await runWorkflow({ registry, workflowId: 'main', inputs: { id: 'w1' }, http });
    assert.equal(result.status, 'passed', JSON.stringify(result.error));
    assert.deepEqual(result.outputs, { name: 'widget', fromChild: 'widget', limit: 5 });
    const sent = server.requests.slice(before);
    assert.deepEqual(sent.map((r) => `${r.method} ${r.path}`), ['POST /counter', 'GET /items/w1', 'GET /items/widget', 'GET /items/widget']);
    assert.equal(sent[1]!.headers['authorization'], 'Bearer tok-admin-1');
    assert.deepEqual(result.steps.map((s) => `${s.workflowId}/${s.stepId}`), ['login/token', 'main/read', 'child/echo', 'main/nested', 'main/final']);
    assert.deepEqual(result.steps[3]!.outputs, { echoed: 'widget' }, "the callee's outputs are the step's outputs");
  });

  it('refuses invalid inputs before any request, naming the input and the rule', async () => {
    const registry = await registryFor(DOC, server.url);
    const before = server.requests.length;
    await assert.rejects(runWorkflow({ registry, workflowId: 'main', inputs: { id: 'x', offsets: 'nope' }, http }), (err: unknown) => {
      assert.ok(err instanceof ArazzoError);
      assert.equal(err.code, 'E_INPUTS');
      assert.match(err.message, /input "offsets": must be array/);
      return true;
    });
    await assert.rejects(runWorkflow({ registry, workflowId: 'main', inputs: {}, http }), /input "id": is required/);
    assert.equal(server.requests.length, before, 'nothing was sent');
  });

  it('emits events in order and awaits the listener before the next step', async () => {
    const registry = await registryFor(DOC, server.url);
    const events: RunEvent[] = [];
    let pendingFlush = false;
    const result = await runWorkflow({
      registry,
      workflowId: 'child',
      inputs: { label: 'x' },
      http,
      onEvent: async (e) => {
        assert.equal(pendingFlush, false, 'the runner waited for the previous listener call');
        pendingFlush = true;
        await new Promise((r) => setTimeout(r, 2));
        pendingFlush = false;
        events.push(e);
      },
    });
    assert.equal(result.status, 'passed');
    assert.deepEqual(events.map((e) => e.type), ['workflow.started', 'step.started', 'request.sent', 'response.received', 'step.finished', 'workflow.finished']);
    assert.ok(events.every((e) => !Number.isNaN(Date.parse(e.at))));
    const sentEvent = events[2] as Extract<RunEvent, { type: 'request.sent' }>;
    assert.equal(sentEvent.method, 'GET');
    assert.match(sentEvent.url, /\/items\/x$/);
  });

  it('redacts credentials in request.sent events and reports criterion results', async () => {
    const registry = await registryFor(DOC, server.url);
    const events: RunEvent[] = [];
    await runWorkflow({ registry, workflowId: 'main', inputs: { id: 'w1' }, http, onEvent: (e) => void events.push(e) });
    const read = events.find((e): e is Extract<RunEvent, { type: 'request.sent' }> => e.type === 'request.sent' && e.stepId === 'read');
    assert.equal(read?.headers['Authorization'], '***');
    const criteria = events.filter((e): e is Extract<RunEvent, { type: 'criterion.evaluated' }> => e.type === 'criterion.evaluated');
    assert.deepEqual(criteria.map((c) => c.result.passed), [true, true]);
  });

  it('resumes at a step with earlier outputs preloaded, skipping dependsOn', async () => {
    const registry = await registryFor(DOC, server.url);
    const before = server.requests.length;
    const result = await runWorkflow({
      registry,
      workflowId: 'main',
      inputs: { id: 'w1' },
      http,
      resume: { stepId: 'final', steps: { read: { outputs: { name: 'widget' } }, nested: { outputs: { echoed: 'resumed' } } } },
    });
    assert.equal(result.status, 'passed', JSON.stringify(result.error));
    assert.deepEqual(server.requests.slice(before).map((r) => r.path), ['/items/resumed']);
    assert.equal(result.outputs['name'], 'widget');
  });

  it('stops when the signal aborts', async () => {
    const registry = await registryFor(DOC, server.url);
    const abort = new AbortController();
    abort.abort();
    const result = await runWorkflow({ registry, workflowId: 'child', inputs: { label: 'x' }, http, signal: abort.signal });
    assert.equal(result.status, 'failed');
    assert.equal(result.error?.code, 'E_ABORTED');
  });

  it('fails a workflow step whose callee gets invalid inputs, as a step failure', async () => {
    const registry = await registryFor(arazzo(`
  - workflowId: caller
    steps:
      - stepId: call
        workflowId: child
        parameters: [{name: label, value: 42}]
  - workflowId: child
    inputs: {type: object, properties: {label: {type: string}}}
    steps:
      - stepId: echo
        operationId: getItem
        parameters: [{name: id, in: path, value: $inputs.label}]
`), server.url);
    const result = await runWorkflow({ registry, workflowId: 'caller', inputs: {}, http });
    assert.equal(result.status, 'failed');
    assert.equal(result.error?.code, 'E_INPUTS');
    assert.match(result.error!.message, /input "label": must be string/);
  });

  it('fails with E_DEPENDENCY without running a step when a dependsOn workflow fails', async () => {
    const registry = await registryFor(arazzo(`
  - workflowId: prepare
    steps:
      - stepId: missing
        operationId: getItem
        parameters: [{name: id, in: path, value: nope}]
        successCriteria: [{condition: $response.body#/name == 'other'}]
  - workflowId: main
    dependsOn: [prepare]
    steps:
      - stepId: read
        operationId: getItem
        parameters: [{name: id, in: path, value: x}]
`), server.url);
    const result = await runWorkflow({ registry, workflowId: 'main', inputs: {}, http });
    assert.equal(result.status, 'failed');
    assert.equal(result.error?.code, 'E_DEPENDENCY');
    assert.match(result.error!.message, /depends on "prepare", which failed/);
    assert.deepEqual(result.steps.map((s) => s.stepId), ['missing']);
  });

  it('needs a workflow id when the document has several workflows', async () => {
    const registry = await registryFor(DOC, server.url);
    await assert.rejects(runWorkflow({ registry, inputs: {}, http }), (err: unknown) => err instanceof ArazzoError && err.code === 'E_WORKFLOW_NOT_FOUND' && /login, main, child.*say which one to run/.test(err.message) && err.hint?.kind === 'choose-workflow');
  });

  it('plans requests without sending, showing unknown runtime values as their expressions', async () => {
    const registry = await registryFor(DOC, server.url);
    const before = server.requests.length;
    const plan = await planWorkflow({ registry, workflowId: 'main', inputs: { id: 'w 1' } });
    assert.equal(server.requests.length, before);
    assert.deepEqual(plan.steps.map((s) => s.stepId), ['read', 'nested', 'final']);
    assert.equal(plan.steps[0]!.request?.url, `${server.url}/items/w 1`);
    assert.equal(plan.steps[0]!.operation, 'GET /items/{id} (api)');
    assert.equal(plan.steps[1]!.calls?.workflowId, 'child');
    assert.equal(plan.steps[2]!.request?.url, `${server.url}/items/{$steps.nested.outputs.echoed}`);
    assert.deepEqual(plan.dependsOn, ['login']);
  });
});
