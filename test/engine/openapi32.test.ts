// OpenAPI 3.2.0 sources end to end against a loopback server: `in: querystring` encoded by the
// parameter's content media type (form, JSON, JSONPath), the QUERY method, an additionalOperations
// entry found by operationId and by operationPath, `$self` as the base of a relative $ref, a
// Media Type Object from components.mediaTypes, and the 3.2 `cookie` style.
// Real parts: a loopback HTTP server, the CLI in-process.
import { after, before, describe, it } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDocumentFile } from '../../src/arazzo/document/index.js';
import { loadSources } from '../../src/arazzo/sources/index.js';
import { runWorkflow } from '../../src/arazzo/index.js';
import { HttpClient } from '../../src/http/client.js';
import { repoRoot } from './support/engine.js';
import { startServer, type TestServer } from './support/server.js';
import { runInProcess } from '../support/in-process.js';

const doc = join(repoRoot, 'test', 'fixtures', 'arazzo', 'oas32-catalog.arazzo.yaml');
const EXPECTED = {
  list: '/items?term=widgets+%26+more&tags=%5B%22a%22%2C%22b%22%5D&page=2',
  search: '/items?%7B%22term%22%3A%22widgets%20%26%20more%22%2C%22limit%22%3A5%7D',
  copy: '/items?%24.items%5B%3F%40.name%20%3D%3D%20%27x%20y%27%5D',
};

describe('OpenAPI 3.2.0 sources', () => {
  let server: TestServer;
  const http = new HttpClient();
  let dir: string;
  before(async () => {
    const echo = (status: number) => (req: { method: string; rawUrl: string; body: string; headers: Record<string, unknown> }) => ({ status, body: { raw: req.rawUrl, method: req.method, body: req.body, cookie: req.headers['cookie'] ?? null } });
    server = await startServer({ 'GET /items': echo(200), 'QUERY /items': echo(200), 'COPY /items': echo(201) });
    dir = await mkdtemp(join(tmpdir(), 'offsetctl-oas32-'));
  });
  after(async () => {
    await server.close();
    await http.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs a querystring (form, JSON, JSONPath), a QUERY and an additionalOperations COPY end to end', async () => {
    server.requests.length = 0;
    const registry = await loadSources(await loadDocumentFile(doc), { servers: { all: server.url } });
    const result = await runWorkflow({ registry, inputs: { term: 'widgets & more' }, http });
    assert.equal(result.status, 'passed', JSON.stringify(result.steps.map((s) => [s.stepId, s.error, s.failedCriteria])));
    assert.deepEqual(server.requests.map((r) => `${r.method} ${r.rawUrl}`), [`GET ${EXPECTED.list}`, `QUERY ${EXPECTED.search}`, `COPY ${EXPECTED.copy}`]);
    assert.deepEqual(result.outputs, EXPECTED);
    const [, search, copy] = server.requests;
    assert.equal(search!.body, '{"fields":["id","name"]}');
    assert.equal(search!.headers['content-type'], 'application/json');
    assert.equal(copy!.headers['cookie'], 'session=a/b', 'the cookie style sends the value as written');
  });

  it('the CLI validates and runs the same document', async () => {
    const state = { OFFSETCTL_STATE_DIR: join(dir, 'state') };
    const validate = await runInProcess(['workflow', 'validate', doc], { env: state, timeoutMs: 60_000 });
    assert.equal(validate.status, 0, validate.stdout + validate.stderr);
    const run = await runInProcess(['workflow', 'run', doc, '--server', server.url, '--input', 'term=widgets & more', '--output', 'json'], { env: state, timeoutMs: 60_000 });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.deepEqual((JSON.parse(run.stdout) as { outputs: unknown }).outputs, EXPECTED);
  });

  it('finds additionalOperations and query operations by operationId; a $ref into another document is refused naming the resolved URI', async () => {
    const registry = await loadSources(await loadDocumentFile(doc), { servers: { all: server.url } });
    assert.deepEqual([registry.resolveOperation({ operationId: 'copyItems' }).method, registry.resolveOperation({ operationId: 'queryItems' }).method], ['COPY', 'QUERY']);
    await writeFile(join(dir, 'api.yaml'), `openapi: 3.2.0
$self: https://api.example.test/v1/openapi
info: {title: t, version: '1'}
paths:
  /a:
    get:
      operationId: a
      parameters: [{$ref: 'shared#/components/parameters/P'}]
      responses: {'200': {description: ok}}
`);
    await writeFile(join(dir, 'flow.arazzo.yaml'), `arazzo: 1.1.0
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows: [{workflowId: w, steps: [{stepId: s, operationId: a}]}]
`);
    const other = await loadSources(await loadDocumentFile(join(dir, 'flow.arazzo.yaml')), { servers: { all: server.url } });
    assert.throws(() => other.resolveOperation({ operationId: 'a' }), /\$ref "shared#\/components\/parameters\/P" points into another document \(https:\/\/api\.example\.test\/v1\/shared#\/components\/parameters\/P\), which offsetctl does not follow; bundle/);
  });

  it('an OpenAPI 3.1 description keeps 3.1 rules: a query key is no operation', async () => {
    await writeFile(join(dir, 'v31.yaml'), `openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /a:
    query: {operationId: q, responses: {'200': {description: ok}}}
`);
    await writeFile(join(dir, 'v31.arazzo.yaml'), `arazzo: 1.1.0
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./v31.yaml, type: openapi}]
workflows: [{workflowId: w, steps: [{stepId: s, operationId: q}]}]
`);
    const registry = await loadSources(await loadDocumentFile(join(dir, 'v31.arazzo.yaml')), { servers: { all: server.url } });
    assert.throws(() => registry.resolveOperation({ operationId: 'q' }), /operationId "q" is not in api/);
  });
});
