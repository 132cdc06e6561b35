// Real parts: a loopback HTTP server.
import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { loadDocumentFile, parseDocumentText } from '../document/index.js';
import { ArazzoError, type ArazzoHint } from '../errors.js';
import { describeOperation, loadSources } from './index.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const seeds = resolve(repoRoot, 'examples/seeds');
const fixture = (name: string) => resolve(repoRoot, 'test/fixtures/openapi', name);
const CONNECTORS = fixture('kafka-connect-connectors.openapi.yaml');
const OFFSETS = fixture('kafka-connect-offsets.openapi.yaml');
const ALL = fixture('kafka-connect.openapi.yaml');

function isError(code: string, ...patterns: Array<RegExp | ArazzoHint>) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof ArazzoError, String(err));
    assert.equal(err.code, code, err.message);
    // The engine names no CLI flag: the fix is a neutral hint the CLI turns into flag advice.
    assert.doesNotMatch(err.message, /--[a-z]/, err.message);
    for (const pattern of patterns) {
      if (pattern instanceof RegExp) assert.match(err.message, pattern);
      else assert.deepEqual(err.hint, pattern);
    }
    return true;
  };
}

async function tempDir(files: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'offsetctl-sources-'));
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), typeof content === 'string' ? content : stringify(content));
  return dir;
}

function flow(sources: Array<{ name: string; url: string; type?: string }>, steps: unknown[], workflowId = 'main'): Record<string, unknown> {
  return { arazzo: '1.0.1', info: { title: 't', version: '1' }, sourceDescriptions: sources, workflows: [{ workflowId, steps }] };
}

async function openapiText(path: string): Promise<string> {
  return readFile(path, 'utf8');
}

test('the rewind seed resolves all six steps across two sources mapped with --source', async () => {
  const doc = await loadDocumentFile(resolve(seeds, 'rewind-connector-offsets.arazzo.yaml'));
  const sources = await loadSources(doc, { overrides: { connectorsApi: CONNECTORS, offsetsApi: OFFSETS } });
  assert.deepEqual(sources.checkOperations(), []);
  assert.deepEqual([...sources.openapi.keys()], ['connectorsApi', 'offsetsApi']);
  const steps = (doc.value as any).workflows[0].steps as Array<{ operationId: string }>;
  assert.deepEqual(
    steps.map((s) => describeOperation(sources.resolveOperation(s))),
    [
      'PUT /connectors/{connector}/stop (connectorsApi)',
      'GET /connectors/{connector}/offsets (offsetsApi)',
      'PATCH /connectors/{connector}/offsets (offsetsApi)',
      'GET /connectors/{connector}/offsets (offsetsApi)',
      'PUT /connectors/{connector}/resume (connectorsApi)',
      'GET /connectors/{connector}/status (connectorsApi)',
    ],
  );
});

test('resolved operations carry merged parameters, request body, responses and the server', async () => {
  const doc = await loadDocumentFile(resolve(seeds, 'rewind-connector-offsets.arazzo.yaml'));
  const sources = await loadSources(doc, { overrides: { connectorsApi: CONNECTORS, offsetsApi: OFFSETS } });
  const stop = sources.resolveOperation({ operationId: 'stopConnector' });
  // OpenAPI 3.0 server variables take their defaults; the path-level parameter comes through its $ref.
  assert.equal(stop.serverUrl, 'http://localhost:8083');
  assert.equal(stop.operationId, 'stopConnector');
  assert.deepEqual(stop.parameters, [{ name: 'connector', in: 'path', required: true, schema: { type: 'string' } }]);
  const status = sources.resolveOperation({ operationId: 'getConnectorStatus' });
  assert.deepEqual(status.parameters.map((p) => [p.name, p.in, p.style, p.explode]), [['connector', 'path', undefined, undefined], ['expand', 'query', 'form', false]]);
  assert.equal((status.responses['200'] as any).description, 'Connector status');
  const alter = sources.resolveOperation({ operationId: 'alterConnectorOffsets' });
  assert.equal(alter.serverUrl, 'http://localhost:8083'); // trailing slash trimmed
  assert.deepEqual(alter.requestBody, { required: true, contentTypes: ['application/json'] });
  const reset = sources.resolveOperation({ operationId: 'resetConnectorOffsets' });
  assert.equal(reset.serverUrl, 'http://admin.localhost:9083'); // operation-level servers win
  assert.equal(reset.method, 'DELETE');
  const trace = reset.parameters.filter((p) => p.name === 'X-Trace');
  assert.equal(trace.length, 1);
  assert.equal(trace[0]?.required, true); // the operation's definition replaces the path item's
});

test('the reset seed resolves against a single description', async () => {
  const doc = await loadDocumentFile(resolve(seeds, 'reset-connector-offsets.arazzo.yaml'));
  const sources = await loadSources(doc, { overrides: { kafkaConnectApi: ALL } });
  assert.deepEqual(sources.checkOperations(), []);
  assert.equal(describeOperation(sources.resolveOperation({ operationId: 'resetConnectorOffsets' })), 'DELETE /connectors/{connector}/offsets (kafkaConnectApi)');
});

test('a bare operationId found in two sources is an error naming both; the qualified form resolves', async () => {
  const doc = await loadDocumentFile(resolve(seeds, 'rewind-connector-offsets.arazzo.yaml'));
  const sources = await loadSources(doc, { overrides: { connectorsApi: CONNECTORS, offsetsApi: ALL } });
  assert.throws(
    () => sources.resolveOperation({ operationId: 'stopConnector' }),
    isError('E_OPERATION', /connectorsApi/, /offsetsApi/, /\$sourceDescriptions\.connectorsApi\.stopConnector/),
  );
  const diagnostics = sources.checkOperations();
  const first = diagnostics[0];
  assert.equal(first?.code, 'ambiguous-operation');
  assert.equal(first?.pointer, '/workflows/0/steps/0/operationId');
  assert.equal(typeof first?.line, 'number');
  assert.equal(describeOperation(sources.resolveOperation({ operationId: '$sourceDescriptions.offsetsApi.stopConnector' })), 'PUT /connectors/{connector}/stop (offsetsApi)');
  assert.throws(() => sources.resolveOperation({ operationId: 'noSuchOperation' }), isError('E_OPERATION', /noSuchOperation/, /connectorsApi/));
  assert.throws(() => sources.resolveOperation({ operationId: '$sourceDescriptions.nope.stopConnector' }), isError('E_OPERATION', /"nope"/));
});

test('two source names mapped to the same description are one API, not an ambiguity', async () => {
  const doc = await loadDocumentFile(resolve(seeds, 'rewind-connector-offsets.arazzo.yaml'));
  const sources = await loadSources(doc, { overrides: { connectorsApi: ALL, offsetsApi: ALL } });
  assert.deepEqual(sources.checkOperations().filter((d) => d.severity === 'error'), []);
  assert.equal(describeOperation(sources.resolveOperation({ operationId: 'alterConnectorOffsets' })), 'PATCH /connectors/{connector}/offsets (connectorsApi)');
});

test('operationPath points into a source with a JSON pointer, method last', async () => {
  const doc = await loadDocumentFile(resolve(seeds, 'rewind-connector-offsets.arazzo.yaml'));
  const sources = await loadSources(doc, { overrides: { connectorsApi: CONNECTORS, offsetsApi: OFFSETS } });
  const op = sources.resolveOperation({ operationPath: '{$sourceDescriptions.connectorsApi.url}#/paths/~1connectors~1{connector}~1stop/put' });
  assert.equal(describeOperation(op), 'PUT /connectors/{connector}/stop (connectorsApi)');
  const encoded = sources.resolveOperation({ operationPath: '{$sourceDescriptions.offsetsApi.url}#/paths/~1connectors~1%7Bconnector%7D~1offsets/patch' });
  assert.equal(encoded.operationId, 'alterConnectorOffsets');
  assert.throws(() => sources.resolveOperation({ operationPath: '{$sourceDescriptions.connectorsApi.url}#/paths/~1connectors~1{connector}~1stop/get' }), isError('E_OPERATION', /has no get operation/));
  assert.throws(() => sources.resolveOperation({ operationPath: '{$sourceDescriptions.connectorsApi.url}#/paths/~1nope/get' }), isError('E_OPERATION', /no path "\/nope"/));
  assert.throws(() => sources.resolveOperation({ operationPath: 'connectorsApi#/paths' }), isError('E_OPERATION', /must look like/));
});

test('--server overrides: one URL for all sources, a named one wins', async () => {
  const doc = await loadDocumentFile(resolve(seeds, 'rewind-connector-offsets.arazzo.yaml'));
  const sources = await loadSources(doc, {
    overrides: { connectorsApi: CONNECTORS, offsetsApi: OFFSETS },
    servers: { all: 'http://127.0.0.1:18083/', byName: { offsetsApi: 'http://127.0.0.1:28083/base' } },
  });
  assert.equal(sources.resolveOperation({ operationId: 'stopConnector' }).serverUrl, 'http://127.0.0.1:18083');
  assert.equal(sources.resolveOperation({ operationId: 'resetConnectorOffsets' }).serverUrl, 'http://127.0.0.1:28083/base');
  await assert.rejects(loadSources(doc, { overrides: { connectorsApi: CONNECTORS, offsetsApi: OFFSETS }, servers: { byName: { offsetApi: 'http://x' } } }), isError('E_SOURCE', /server given for "offsetApi"/, /connectorsApi, offsetsApi/, { kind: 'unknown-source-name', given: 'server', name: 'offsetApi' }));
});

test('no server at all, or a relative one for a local file, asks for a server', async () => {
  const dir = await tempDir({
    'none.yaml': { openapi: '3.1.0', info: { title: 'n', version: '1' }, paths: { '/a': { get: { operationId: 'a', responses: {} } } } },
    'relative.yaml': { openapi: '3.0.0', info: { title: 'r', version: '1' }, servers: [{ url: '/api' }], paths: { '/b': { get: { operationId: 'b', responses: {} } } } },
    'flow.arazzo.yaml': flow([{ name: 'noneApi', url: 'none.yaml' }, { name: 'relApi', url: './relative.yaml' }], [{ stepId: 's', operationId: 'a' }]),
  });
  const sources = await loadSources(await loadDocumentFile(join(dir, 'flow.arazzo.yaml')));
  assert.deepEqual(sources.checkOperations(), []); // a missing server does not stop validation or plan
  assert.throws(() => sources.resolveOperation({ operationId: 'a' }), isError('E_REQUEST', /"noneApi"/, /set a server/, { kind: 'set-server', source: 'noneApi' }));
  assert.throws(() => sources.resolveOperation({ operationId: 'b' }), isError('E_REQUEST', /relative server URL "\/api"/, { kind: 'set-server', source: 'relApi' }));
});

test('a missing source file names the source, the resolved path and the map-source fix', async () => {
  const doc = await loadDocumentFile(resolve(seeds, 'reset-connector-offsets.arazzo.yaml'));
  const expected = resolve(seeds, '../openapi/kafka-connect.yml');
  await assert.rejects(loadSources(doc), isError('E_SOURCE', /"kafkaConnectApi"/, new RegExp(expected.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')), /map the source to a local description/, { kind: 'map-source', source: 'kafkaConnectApi' }));
  await assert.rejects(loadSources(doc, { overrides: { kafkaConnectApi: ALL, typo: ALL } }), isError('E_SOURCE', /source mapping "typo"/, { kind: 'unknown-source-name', given: 'map', name: 'typo' }));
});

test('--source paths are resolved against baseDir (default cwd), document urls against the document folder', async () => {
  const dir = await tempDir({
    'api.yaml': await openapiText(CONNECTORS),
    'flow.arazzo.yaml': flow([{ name: 'api', url: 'api.yaml', type: 'openapi' }], [{ stepId: 's', operationId: 'stopConnector' }]),
  });
  const doc = await loadDocumentFile(join(dir, 'flow.arazzo.yaml'));
  const fromDoc = await loadSources(doc);
  assert.equal(fromDoc.openapi.get('api')?.location, join(dir, 'api.yaml'));
  const overridden = await loadSources(doc, { overrides: { api: 'kafka-connect.openapi.yaml' }, baseDir: dirname(ALL) });
  assert.equal(overridden.openapi.get('api')?.location, ALL);
});

test('a source whose content contradicts its declared type, or is not OpenAPI 3, is refused', async () => {
  const dir = await tempDir({
    'other.arazzo.yaml': flow([{ name: 'x', url: 'x.yaml' }], [{ stepId: 's', operationId: 'a' }]),
    'swagger.yaml': { swagger: '2.0', info: { title: 's', version: '1' }, paths: {} },
    'flow.arazzo.yaml': flow([{ name: 'api', url: 'other.arazzo.yaml', type: 'openapi' }], [{ stepId: 's', operationId: 'a' }]),
    'flow2.arazzo.yaml': flow([{ name: 'api', url: 'swagger.yaml' }], [{ stepId: 's', operationId: 'a' }]),
  });
  await assert.rejects(loadSources(await loadDocumentFile(join(dir, 'flow.arazzo.yaml'))), isError('E_SOURCE', /declared as type openapi/));
  await assert.rejects(loadSources(await loadDocumentFile(join(dir, 'flow2.arazzo.yaml'))), isError('E_SOURCE', /Swagger 2\.0/));
});

test('arazzo sources load recursively, cycles included, and their workflows are found by qualified id', async () => {
  const dir = await tempDir({
    'api.yaml': await openapiText(ALL),
    'shared.arazzo.yaml': {
      ...flow([{ name: 'api', url: 'api.yaml' }, { name: 'back', url: 'main.arazzo.yaml', type: 'arazzo' }], [{ stepId: 'stop', operationId: 'stopConnector' }], 'prepare'),
    },
    'main.arazzo.yaml': flow(
      [{ name: 'shared', url: 'shared.arazzo.yaml', type: 'arazzo' }],
      [{ stepId: 'call', workflowId: '$sourceDescriptions.shared.prepare' }],
    ),
  });
  const doc = await loadDocumentFile(join(dir, 'main.arazzo.yaml'));
  const sources = await loadSources(doc);
  const shared = sources.arazzo.get('shared');
  assert.ok(shared);
  assert.equal(shared.sources.arazzo.get('back')?.sources, sources, 'the cycle back to main reuses the same registry');
  const found = sources.findWorkflow('$sourceDescriptions.shared.prepare');
  assert.equal(found?.workflow.workflowId, 'prepare');
  assert.equal(found?.registry, shared.sources);
  assert.equal(describeOperation(found.registry.resolveOperation({ operationId: 'stopConnector' })), 'PUT /connectors/{connector}/stop (api)');
  assert.equal(sources.findWorkflow('main')?.registry, sources);
  assert.equal(sources.findWorkflow('$sourceDescriptions.shared.nope'), undefined);
  // Steps of nested documents are checked too, and located in their own file.
  const diagnostics = sources.checkOperations();
  assert.deepEqual(diagnostics.map((d) => [d.code, d.severity, d.file, d.pointer]), [['missing-parameter', 'warning', join(dir, 'shared.arazzo.yaml'), '/workflows/0/steps/0']]);
  assert.match(diagnostics[0]?.message ?? '', /requires the path parameter "connector"/);
});

test('checkOperations warns about parameters the operation does not declare, required ones missing, and a missing body', async () => {
  const text = await readFile(resolve(seeds, 'rewind-connector-offsets.arazzo.yaml'), 'utf8');
  const doc = parseDocumentText(text, resolve(seeds, 'rewind-connector-offsets.arazzo.yaml'));
  const steps = (doc.value as any).workflows[0].steps;
  steps[0].parameters[0].name = 'conector';
  delete steps[2].requestBody;
  steps[1].parameters.push({ name: 'x-trace', in: 'header', value: 'abc' }); // header names are case-insensitive
  const sources = await loadSources(doc, { overrides: { connectorsApi: CONNECTORS, offsetsApi: OFFSETS } });
  assert.deepEqual(
    sources.checkOperations().map((d) => [d.severity, d.code, d.pointer]),
    [
      ['warning', 'unknown-parameter', '/workflows/0/steps/0/parameters/0'],
      ['warning', 'missing-parameter', '/workflows/0/steps/0'],
      ['warning', 'missing-request-body', '/workflows/0/steps/2'],
    ],
  );
});

test('an invalid arazzo source is refused with its diagnostics', async () => {
  const dir = await tempDir({
    'bad.arazzo.yaml': { arazzo: '1.0.1', info: { title: 'b', version: '1' }, sourceDescriptions: [], workflows: [] },
    'main.arazzo.yaml': flow([{ name: 'bad', url: 'bad.arazzo.yaml', type: 'arazzo' }], [{ stepId: 'call', workflowId: '$sourceDescriptions.bad.x' }]),
  });
  await assert.rejects(loadSources(await loadDocumentFile(join(dir, 'main.arazzo.yaml'))), (err: unknown) => {
    isError('E_SOURCE', /source "bad" is not a valid Arazzo document/)(err);
    assert.ok((err as ArazzoError).diagnostics.length >= 2);
    return true;
  });
});

test('remote sources need allowRemote; then they are fetched and relative servers resolve against their URL', async () => {
  const api = { openapi: '3.1.0', info: { title: 'r', version: '1' }, servers: [{ url: '/v2' }], paths: { '/ping': { get: { operationId: 'ping', responses: {} } } } };
  const server = createServer((req, res) => {
    if (req.url === '/specs/api.yaml') res.end(stringify(api));
    else { res.statusCode = 404; res.end(); }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const doc = parseDocumentText(stringify(flow([{ name: 'remote', url: `${base}/specs/api.yaml` }], [{ stepId: 's', operationId: 'ping' }])), '/tmp/remote.arazzo.yaml');
    await assert.rejects(loadSources(doc), isError('E_SOURCE', /allow remote sources/, { kind: 'allow-remote', source: 'remote' }));
    const sources = await loadSources(doc, { allowRemote: true });
    assert.equal(sources.resolveOperation({ operationId: 'ping' }).serverUrl, `${base}/v2`);
    const missing = parseDocumentText(stringify(flow([{ name: 'gone', url: `${base}/nope.yaml` }], [{ stepId: 's', operationId: 'ping' }])), '/tmp/remote.arazzo.yaml');
    await assert.rejects(loadSources(missing, { allowRemote: true }), isError('E_SOURCE', /"gone"/, /HTTP 404/));
  } finally {
    await new Promise((done) => server.close(done));
  }
});
