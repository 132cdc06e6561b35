// Arazzo 1.1 at run time against a loopback server: step dependsOn with concurrency and
// deterministic reports, Selector Objects, typed replacement targets, `in: querystring`, step
// `timeout`, action `parameters`, embedded expressions in regex conditions, cross-workflow dependsOn.
// Real parts: a loopback HTTP server.
import { after, before, describe, it } from 'node:test';
import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { planWorkflow, runWorkflow } from '../../src/arazzo/index.js';
import { HttpClient } from '../../src/http/client.js';
import { arazzo, registryFor } from './support/engine.js';
import { startServer, type TestServer } from './support/server.js';

const v11 = (workflows: string, components = ''): string => arazzo(workflows, components).replace('arazzo: 1.0.1', 'arazzo: 1.1.0');

describe('Arazzo 1.1 runtime', () => {
  let server: TestServer;
  const http = new HttpClient();
  let inFlight = 0;
  let maxInFlight = 0;
  const delays: Record<string, number> = { slow: 150, fast: 30, hang: 2000 };
  before(async () => {
    server = await startServer({
      'GET /items/*': async (req) => {
        const id = decodeURIComponent(req.path.slice('/items/'.length));
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await sleep(delays[id.split('-')[0]!] ?? 0);
        inFlight -= 1;
        return { body: { id, name: `name of ${id}`, tags: [{ k: 'a', v: 1 }, { k: 'b', v: 2 }] } };
      },
      'POST /items': (req) => ({ status: 201, body: JSON.parse(req.body) as unknown }),
      'GET /search': (req) => ({ body: { raw: req.rawUrl } }),
      'POST /orders.xml': () => ({ headers: { 'content-type': 'application/xml' }, body: '<order><id>77</id><line>a</line><line>b</line></order>' }),
    });
  });
  after(async () => {
    await server.close();
    await http.close();
  });

  const reset = (): void => {
    inFlight = 0;
    maxInFlight = 0;
  };

  const FAN = v11(`
  - workflowId: fan
    steps:
      - stepId: join
        operationId: getItem
        dependsOn: [a]
        parameters: [{name: id, in: path, value: 'fast-{$steps.a.outputs.id}-{$steps.b.outputs.id}'}]
        outputs: {id: $response.body#/id}
      - stepId: a
        operationId: getItem
        parameters: [{name: id, in: path, value: slow-a}]
        outputs: {id: $response.body#/id}
      - stepId: b
        operationId: getItem
        parameters: [{name: id, in: path, value: fast-b}]
        outputs: {id: $response.body#/id}
    outputs: {joined: $steps.join.outputs.id}
`);

  it('dependsOn: independent steps run concurrently up to --concurrency, references are implicit dependencies, the report is in document order', async () => {
    const registry = await registryFor(FAN, server.url);
    reset();
    const parallel = await runWorkflow({ registry, inputs: {}, http, concurrency: 4 });
    assert.equal(parallel.status, 'passed', JSON.stringify(parallel.error));
    assert.equal(maxInFlight, 2, 'a and b were in flight together');
    assert.equal(parallel.outputs['joined'], 'fast-slow-a-fast-b', 'join ran after both, although it is listed first');
    // b finishes before a, but the result lists steps in document order.
    assert.deepEqual(parallel.steps.map((s) => s.stepId), ['join', 'a', 'b']);
    const paths = server.requests.slice(-3).map((r) => r.path);
    assert.equal(paths[2], '/items/fast-slow-a-fast-b');
    const plan = await planWorkflow({ registry, inputs: {} });
    assert.deepEqual(plan.steps.map((p) => [p.stepId, p.waitsFor]), [['join', ['a', 'b']], ['a', []], ['b', []]]);
    reset();
    const sequential = await runWorkflow({ registry, inputs: {}, http, concurrency: 1 });
    assert.equal(sequential.status, 'passed');
    assert.equal(maxInFlight, 1);
    assert.deepEqual(sequential.steps.map((s) => s.stepId), ['join', 'a', 'b']);
  });

  it('a dependsOn workflow called from a dependsOn step reports its steps with the calling step, in document order', async () => {
    const doc = v11(`
  - workflowId: main
    steps:
      - stepId: a
        operationId: getItem
        parameters: [{name: id, in: path, value: slow-a}]
      - stepId: callChild
        workflowId: child
      - stepId: after
        operationId: getItem
        dependsOn: [a, callChild]
        parameters: [{name: id, in: path, value: fast-after}]
  - workflowId: child
    steps:
      - stepId: c1
        operationId: getItem
        parameters: [{name: id, in: path, value: fast-c1}]
      - stepId: c2
        operationId: getItem
        dependsOn: [c1]
        parameters: [{name: id, in: path, value: fast-c2}]
`);
    const result = await runWorkflow({ registry: await registryFor(doc, server.url), workflowId: 'main', inputs: {}, http });
    assert.equal(result.status, 'passed', JSON.stringify(result.error));
    // The child finishes long before the slow step a, yet a comes first: document order, not finishing order.
    assert.deepEqual(result.steps.map((s) => `${s.workflowId}/${s.stepId}`), ['main/a', 'child/c1', 'child/c2', 'main/callChild', 'main/after']);
  });

  it('a failed prerequisite stops the steps that wait for it; the workflow fails with that step', async () => {
    const doc = v11(`
  - workflowId: w
    steps:
      - stepId: a
        operationId: getItem
        parameters: [{name: id, in: path, value: fast-a}]
        successCriteria: [{condition: $statusCode == 418}]
      - stepId: b
        operationId: getItem
        dependsOn: [a]
        parameters: [{name: id, in: path, value: fast-b}]
`);
    const result = await runWorkflow({ registry: await registryFor(doc, server.url), inputs: {}, http });
    assert.equal(result.status, 'failed');
    assert.match(result.error!.message, /step "a"/);
    assert.deepEqual(result.steps.map((s) => s.stepId), ['a']);
  });

  it('Selector Objects in outputs and parameter values (jsonpath, jsonpointer, xpath), typed replacement targets (jsonpath)', async () => {
    const doc = v11(`
  - workflowId: w
    steps:
      - stepId: read
        operationId: getItem
        parameters: [{name: id, in: path, value: fast-1}]
        outputs:
          name: {context: $response.body, selector: $.name, type: jsonpath}
          values: {context: $response.body, selector: '$.tags[*].v', type: {type: jsonpath, version: rfc9535}}
          second: {context: $response.body, selector: /tags/1/k, type: jsonpointer}
          none: {context: $response.body, selector: $.missing, type: jsonpath}
      - stepId: xml
        operationId: postXml
        requestBody: {payload: '<q/>'}
        outputs:
          id: {context: $response.body, selector: /order/id, type: xpath}
          lines: {context: $response.body, selector: '/order/line', type: {type: xpath, version: xpath-30}}
      - stepId: create
        operationId: createItem
        requestBody:
          payload:
            label: {context: $steps.read.outputs.values, selector: '$[1]', type: jsonpath}
            items: [{sku: A, qty: 1}, {sku: B, qty: 1}]
          replacements:
            - {target: '$.items[?@.sku == "B"].qty', targetSelectorType: jsonpath, value: {context: $steps.xml.outputs.id, selector: $, type: jsonpath}}
        outputs: {body: $response.body}
`);
    const result = await runWorkflow({ registry: await registryFor(doc, server.url), inputs: {}, http });
    assert.equal(result.status, 'passed', JSON.stringify(result.error));
    assert.deepEqual(result.steps[0]!.outputs, { name: 'name of fast-1', values: [1, 2], second: 'b', none: undefined });
    assert.deepEqual(result.steps[1]!.outputs, { id: '77', lines: ['a', 'b'] });
    assert.deepEqual(result.steps[2]!.outputs['body'], { label: 2, items: [{ sku: 'A', qty: 1 }, { sku: 'B', qty: 77 }] });
  });

  it('a selector-shaped object in a 1.0 document stays a literal payload', async () => {
    const doc = arazzo(`
  - workflowId: w
    steps:
      - stepId: create
        operationId: createItem
        requestBody: {payload: {v: {context: $inputs.x, selector: $.a, type: jsonpath}}}
        outputs: {body: $response.body}
`);
    const result = await runWorkflow({ registry: await registryFor(doc, server.url), inputs: { x: { a: 1 } }, http });
    assert.deepEqual(result.steps[0]!.outputs['body'], { v: { context: { a: 1 }, selector: '$.a', type: 'jsonpath' } });
  });

  it('in: querystring sends the whole query string (embedded expressions substituted, unsafe characters encoded) and refuses query parameters beside it', async () => {
    const doc = v11(`
  - workflowId: w
    steps:
      - stepId: s
        operationId: search
        parameters: [{name: q, in: querystring, value: 'filter=active&sort=desc&name={$inputs.name}'}]
        outputs: {raw: $response.body#/raw}
  - workflowId: both
    steps:
      - stepId: s
        operationId: search
        parameters: [{name: q, in: querystring, value: 'a=1'}, {name: plain, in: query, value: x}]
`);
    const registry = await registryFor(doc, server.url);
    const result = await runWorkflow({ registry, workflowId: 'w', inputs: { name: 'a b' }, http });
    assert.equal(result.outputs['raw'] ?? result.steps[0]!.outputs['raw'], '/search?filter=active&sort=desc&name=a%20b');
    const both = await runWorkflow({ registry, workflowId: 'both', inputs: {}, http });
    assert.equal(both.status, 'failed');
    assert.match(both.error!.message, /querystring .* cannot be combined with in: query/);
  });

  it('step timeout aborts a slow request and fails the step with E_TIMEOUT (failure actions apply)', async () => {
    const doc = v11(`
  - workflowId: w
    steps:
      - stepId: slow
        operationId: getItem
        timeout: 100
        parameters: [{name: id, in: path, value: hang-1}]
        onFailure: [{name: again, type: retry, retryLimit: 1}]
`);
    const started = Date.now();
    const result = await runWorkflow({ registry: await registryFor(doc, server.url), inputs: {}, http });
    assert.ok(Date.now() - started < 1500, 'did not wait for the 2 s responses');
    assert.equal(result.status, 'failed');
    assert.deepEqual(result.steps.map((s) => s.error?.code), ['E_TIMEOUT', 'E_TIMEOUT']);
    assert.equal(result.steps[0]!.action?.type, 'retry');
  });

  it('failure and success actions that call a workflow pass their parameters as its inputs', async () => {
    const doc = v11(`
  - workflowId: main
    steps:
      - stepId: s
        operationId: getItem
        parameters: [{name: id, in: path, value: fast-main}]
        successCriteria: [{condition: $statusCode == 500}]
        onFailure:
          - {name: handle, type: goto, workflowId: handler, parameters: [{name: reason, value: 'status {$statusCode} for {$response.body#/id}'}]}
  - workflowId: handler
    inputs: {type: object, required: [reason], properties: {reason: {type: string}}}
    steps:
      - stepId: h
        operationId: getItem
        parameters: [{name: id, in: path, value: $inputs.reason}]
        outputs: {id: $response.body#/id}
    outputs: {id: $steps.h.outputs.id}
`);
    const result = await runWorkflow({ registry: await registryFor(doc, server.url), workflowId: 'main', inputs: {}, http });
    assert.equal(result.status, 'passed', JSON.stringify(result.error));
    assert.equal(result.steps.at(-1)!.outputs['id'], 'status 200 for fast-main');
  });

  it('regex conditions substitute embedded {$...} before matching (1.1); the same text is literal in 1.0', async () => {
    const wf = `
  - workflowId: w
    steps:
      - stepId: s
        operationId: getItem
        parameters: [{name: id, in: path, value: fast-x}]
        successCriteria: [{context: $response.body#/id, condition: '^{$inputs.prefix}-x$', type: regex}]
`;
    const passed = await runWorkflow({ registry: await registryFor(v11(wf), server.url), inputs: { prefix: 'fast' }, http });
    assert.equal(passed.status, 'passed', JSON.stringify(passed.error));
    const failed = await runWorkflow({ registry: await registryFor(v11(wf), server.url), inputs: { prefix: 'slow' }, http });
    assert.match(failed.steps[0]!.failedCriteria[0]!.message!, /after substitution: \^slow-x\$/);
  });

  it("dependsOn another workflow's step needs that step to have passed earlier in the run", async () => {
    const doc = v11(`
  - workflowId: w
    steps:
      - stepId: s
        operationId: getItem
        dependsOn: [$workflows.other.steps.o]
        parameters: [{name: id, in: path, value: fast-1}]
  - workflowId: other
    steps:
      - stepId: o
        operationId: getItem
        parameters: [{name: id, in: path, value: fast-2}]
`);
    const result = await runWorkflow({ registry: await registryFor(doc, server.url), workflowId: 'w', inputs: {}, http });
    assert.equal(result.status, 'failed');
    assert.equal(result.error!.code, 'E_DEPENDENCY');
    assert.match(result.error!.message, /\$workflows\.other\.steps\.o, which has not completed/);
  });
});
