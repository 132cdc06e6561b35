// Requests as they arrive at a real server: parameter styles, workflow-level and reusable
// parameters, bodies of each content type, replacements.
// Real parts: a loopback HTTP server.
import { after, before, describe, it } from 'node:test';
import { strict as assert } from 'node:assert';
import { runWorkflow } from '../../src/arazzo/index.js';
import { HttpClient } from '../../src/http/client.js';
import { arazzo, registryFor } from './support/engine.js';
import { startServer, type TestServer } from './support/server.js';

describe('requests built from steps', () => {
  let server: TestServer;
  const http = new HttpClient();
  before(async () => {
    server = await startServer({
      'GET /items/*': () => ({ body: { ok: true } }),
      'GET /label/*': () => ({ body: {} }),
      'GET /matrix/*': () => ({ body: {} }),
      'GET /search': () => ({ body: {} }),
      'POST /items': (req) => ({ status: 201, body: { received: JSON.parse(req.body) as unknown } }),
      'POST /forms': () => ({ body: {} }),
      'POST /notes': () => ({ body: {} }),
      'POST /orders.xml': () => ({ body: '<ok/>', headers: { 'content-type': 'application/xml' } }),
    });
  });
  after(async () => {
    await server.close();
    await http.close();
  });

  async function run(workflows: string, inputs: Record<string, unknown> = {}, components = '') {
    const registry = await registryFor(arazzo(workflows, components), server.url);
    const before = server.requests.length;
    const result = await runWorkflow({ registry, inputs, http });
    return { result, sent: server.requests.slice(before) };
  }

  it('serializes path parameters in simple, label and matrix style, percent-encoded', async () => {
    const { result, sent } = await run(`
  - workflowId: paths
    steps:
      - stepId: simple
        operationId: getItem
        parameters:
          - {name: id, in: path, value: $inputs.id}
          - {name: plain, in: query, value: 'q v'}
          - {name: X-Trace, in: header, value: t-1}
        outputs:
          url: $url
          method: $method
          id: $request.path.id
          plain: $request.query.plain
          trace: $request.header.x-trace
      - stepId: label
        operationId: getLabel
        parameters: [{name: id, in: path, value: [3, 4, 5]}]
      - stepId: matrix
        operationId: getMatrix
        parameters: [{name: id, in: path, value: [3, 4]}]
`, { id: 'a b/c' });
    assert.equal(result.status, 'passed', JSON.stringify(result.error));
    assert.deepEqual(sent.map((r) => r.rawUrl), ['/items/a%20b%2Fc?plain=q%20v', '/label/.3,4,5', '/matrix/;id=3;id=4']);
    assert.deepEqual(result.steps[0]!.outputs, { url: `${server.url}/items/a%20b%2Fc?plain=q%20v`, method: 'GET', id: 'a b/c', plain: 'q v', trace: 't-1' });
  });

  it('serializes query, header and cookie parameters per style and explode', async () => {
    const { result, sent } = await run(`
  - workflowId: query
    steps:
      - stepId: search
        operationId: search
        parameters:
          - {name: tags, in: query, value: [a, b]}
          - {name: ids, in: query, value: [1, 2]}
          - {name: spaced, in: query, value: [x, y]}
          - {name: piped, in: query, value: [x, y]}
          - {name: filter, in: query, value: {color: red, size: 2}}
          - {name: redirect, in: query, value: 'http://h/p?q=1'}
          - {name: plain, in: query, value: 'a&b=c'}
          - {name: X-Trace, in: header, value: [t1, t2]}
          - {name: session, in: cookie, value: 'abc;1'}
          - {name: X-Undeclared, in: header, value: 'still sent'}
          - {name: missing, in: query, value: $inputs.notGiven}
`);
    assert.equal(result.status, 'passed', JSON.stringify(result.error));
    const req = sent[0]!;
    const query = req.rawUrl.slice(req.rawUrl.indexOf('?') + 1).split('&');
    assert.deepEqual(query, [
      'tags=a', 'tags=b', 'ids=1,2', 'spaced=x%20y', 'piped=x%7Cy',
      'filter%5Bcolor%5D=red', 'filter%5Bsize%5D=2', 'redirect=http://h/p?q=1', 'plain=a%26b%3Dc',
    ]);
    assert.equal(req.headers['x-trace'], 't1,t2');
    assert.equal(req.headers['x-undeclared'], 'still sent');
    assert.equal(req.headers['cookie'], 'session=abc%3B1');
  });

  it('lets a step parameter override the workflow parameter with the same name and in, and applies $components parameters with a value override', async () => {
    const { result, sent } = await run(`
  - workflowId: merged
    parameters:
      - {name: X-Trace, in: header, value: from-workflow}
      - {name: plain, in: query, value: from-workflow}
      - reference: $components.parameters.session
    steps:
      - stepId: search
        operationId: search
        parameters:
          - {name: plain, in: query, value: from-step}
          - {reference: $components.parameters.tags, value: [overridden]}
`, {}, `components:
  parameters:
    session: {name: session, in: cookie, value: s1}
    tags: {name: tags, in: query, value: [default]}
`);
    assert.equal(result.status, 'passed', JSON.stringify(result.error));
    const [req] = sent;
    assert.equal(req!.query.get('plain'), 'from-step');
    assert.deepEqual(req!.query.getAll('tags'), ['overridden']);
    assert.equal(req!.headers['x-trace'], 'from-workflow');
    assert.equal(req!.headers['cookie'], 'session=s1');
  });

  it('fails the step with E_REQUEST when a path parameter is missing, without sending', async () => {
    const { result, sent } = await run(`
  - workflowId: nopath
    steps:
      - stepId: get
        operationId: getItem
`);
    assert.equal(result.status, 'failed');
    assert.equal(result.error?.code, 'E_REQUEST');
    assert.match(result.error!.message, /path parameter "id"/);
    assert.equal(sent.length, 0);
  });

  it('sends JSON payloads with expressions at any depth, replacements applied without touching the inputs', async () => {
    const order = { item: { name: 'n', tags: ['a'] } };
    const { result, sent } = await run(`
  - workflowId: json
    steps:
      - stepId: create
        operationId: createItem
        requestBody:
          payload:
            order: $inputs.order
            nested: {deep: [{value: $inputs.count}], text: 'count={$inputs.count}'}
          replacements:
            - {target: /order/item/name, value: $inputs.name}
            - {target: /order/item/tags/-, value: b}
        successCriteria: [{condition: $statusCode == 201}]
        outputs:
          echoed: $response.body#/received/order/item/name
          sentCount: $request.body#/nested/deep/0/value
`, { order, count: 3, name: 'replaced' });
    assert.equal(result.status, 'passed', JSON.stringify(result.error));
    const [req] = sent;
    assert.equal(req!.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(req!.body), { order: { item: { name: 'replaced', tags: ['a', 'b'] } }, nested: { deep: [{ value: 3 }], text: 'count=3' } });
    assert.deepEqual(order, { item: { name: 'n', tags: ['a'] } }, 'the input object is not mutated');
    assert.deepEqual(result.steps[0]!.outputs, { echoed: 'replaced', sentCount: 3 });
  });

  it('applies replacements to JSON written as a templated string', async () => {
    const { result, sent } = await run(`
  - workflowId: templated
    steps:
      - stepId: create
        operationId: createItem
        requestBody:
          contentType: application/json
          payload: '{"petId": "{$inputs.id}", "quantity": 1}'
          replacements: [{target: /quantity, value: 10}]
`, { id: 'p1' });
    assert.equal(result.status, 'passed', JSON.stringify(result.error));
    assert.deepEqual(JSON.parse(sent[0]!.body), { petId: 'p1', quantity: 10 });
  });

  it('lets a Content-Type header parameter win over the body content type', async () => {
    const { result, sent } = await run(`
  - workflowId: ctype
    steps:
      - stepId: create
        operationId: createItem
        parameters: [{name: content-type, in: header, value: application/merge-patch+json}]
        requestBody: {payload: {a: 1}}
`);
    assert.equal(result.status, 'passed', JSON.stringify(result.error));
    assert.equal(sent[0]!.headers['content-type'], 'application/merge-patch+json');
    assert.equal(sent[0]!.body, '{"a":1}');
  });

  it('sends form-urlencoded, text and XML bodies with the operation content type when the step gives none', async () => {
    const { result, sent } = await run(`
  - workflowId: bodies
    steps:
      - stepId: form
        operationId: postForm
        requestBody:
          payload: {client_id: $inputs.id, scope: 'a b', list: [x, y]}
      - stepId: note
        operationId: postNote
        requestBody:
          payload: 'note for {$inputs.id}'
      - stepId: xml
        operationId: postXml
        requestBody:
          payload: '<order><id>0</id><qty a="1">1</qty></order>'
          replacements:
            - {target: /order/id, value: $inputs.id}
            - {target: /order/qty/@a, value: 7}
`, { id: 'c&1' });
    assert.equal(result.status, 'passed', JSON.stringify(result.error));
    const [form, note, xml] = sent;
    assert.equal(form!.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(form!.body, 'client_id=c%261&scope=a+b&list=x&list=y');
    assert.equal(note!.headers['content-type'], 'text/plain');
    assert.equal(note!.body, 'note for c&1');
    assert.equal(xml!.headers['content-type'], 'application/xml');
    assert.equal(xml!.body, '<order><id>c&amp;1</id><qty a="7">1</qty></order>');
  });
});
