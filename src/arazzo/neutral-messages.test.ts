// The engine knows nothing of the CLI: every failure that has a fix the caller makes says so in
// neutral words and carries a typed hint; no message names a CLI flag (`rewind`, which runs a
// shipped workflow, has no --source or --server to be told about). Each case below is a real
// failure of the engine, collected and scanned.
// Real parts: a loopback HTTP server.
import * as assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { HttpClient } from '../http/client.js';
import { loadDocumentFile, parseDocumentText } from './document/index.js';
import { ArazzoError, type ArazzoHint } from './errors.js';
import { runWorkflow, selectWorkflow } from './runner/index.js';
import { compileInputs } from './runner/inputs.js';
import { loadSources } from './sources/index.js';

const CLI_FLAG = /(^|[\s(`'"])--[a-z]/;

function api(servers?: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { openapi: '3.1.0', info: { title: 'a', version: '1' }, ...(servers ? { servers } : {}), paths: { '/a': { get: { operationId: 'a', responses: { '200': { description: 'ok' } } } } }, ...extra };
}

function flow(sources: Array<{ name: string; url: string; type?: string }>, workflows: unknown[]): Record<string, unknown> {
  return { arazzo: '1.0.1', info: { title: 't', version: '1' }, sourceDescriptions: sources, workflows };
}

/** The ArazzoError a failing call raises (sync or async). */
async function failure(what: () => unknown): Promise<ArazzoError> {
  try {
    await what();
  } catch (err) {
    assert.ok(err instanceof ArazzoError, String(err));
    return err;
  }
  assert.fail('expected an ArazzoError');
}

test('no engine message names a CLI flag; each fix the caller can make comes as a typed hint', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'offsetctl-neutral-'));
  const files: Record<string, unknown> = {
    'none.yaml': api(),
    'relative.yaml': api([{ url: '/api' }]),
    'variable.yaml': api([{ url: 'http://{host}:8083' }]),
    'ok.yaml': api([{ url: 'http://127.0.0.1:1' }]),
    'flow.arazzo.yaml': flow(
      [{ name: 'noneApi', url: 'none.yaml' }, { name: 'relApi', url: 'relative.yaml' }, { name: 'varApi', url: 'variable.yaml' }, { name: 'okApi', url: 'ok.yaml' }],
      [{ workflowId: 'one', steps: [{ stepId: 's', operationId: '$sourceDescriptions.okApi.a' }] }, { workflowId: 'two', steps: [{ stepId: 's', operationId: '$sourceDescriptions.okApi.a' }] }],
    ),
    'missing.arazzo.yaml': flow([{ name: 'gone', url: 'nowhere.yaml' }], [{ workflowId: 'w', steps: [{ stepId: 's', operationId: 'a' }] }]),
    'mistyped.arazzo.yaml': flow([{ name: 'typed', url: 'ok.yaml', type: 'arazzo' }], [{ workflowId: 'w', steps: [{ stepId: 's', operationId: 'a' }] }]),
  };
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), stringify(content));
  const doc = await loadDocumentFile(join(dir, 'flow.arazzo.yaml'));
  const registry = await loadSources(doc);
  const remote = parseDocumentText(stringify(flow([{ name: 'far', url: 'https://example.invalid/api.yaml' }], [{ workflowId: 'w', steps: [{ stepId: 's', operationId: 'a' }] }])), join(dir, 'remote.arazzo.yaml'));

  const cases: Array<[string, () => unknown, ArazzoHint]> = [
    ['no server', () => registry.resolveOperation({ operationId: '$sourceDescriptions.noneApi.a' }), { kind: 'set-server', source: 'noneApi' }],
    ['relative server', () => registry.resolveOperation({ operationId: '$sourceDescriptions.relApi.a' }), { kind: 'set-server', source: 'relApi' }],
    ['server variable without default', () => registry.resolveOperation({ operationId: '$sourceDescriptions.varApi.a' }), { kind: 'set-server', source: 'varApi' }],
    ['server that is not a URL', async () => (await loadSources(doc, { servers: { byName: { okApi: 'not a url' } } })).resolveOperation({ operationId: '$sourceDescriptions.okApi.a' }), { kind: 'set-server', source: 'okApi' }],
    ['unknown operation', () => registry.resolveOperation({ operationId: 'nope' }), { kind: 'map-source' }],
    ['unknown mapped source', () => loadSources(doc, { overrides: { typo: join(dir, 'ok.yaml') } }), { kind: 'unknown-source-name', given: 'map', name: 'typo' }],
    ['unknown server source', () => loadSources(doc, { servers: { byName: { typo: 'http://x' } } }), { kind: 'unknown-source-name', given: 'server', name: 'typo' }],
    ['missing source file', async () => loadSources(await loadDocumentFile(join(dir, 'missing.arazzo.yaml'))), { kind: 'map-source', source: 'gone' }],
    ['source of another type', async () => loadSources(await loadDocumentFile(join(dir, 'mistyped.arazzo.yaml'))), { kind: 'map-source', source: 'typed' }],
    ['remote source', () => loadSources(remote), { kind: 'allow-remote', source: 'far' }],
    ['remote fetch failure', () => loadSources(remote, { allowRemote: true, fetchText: () => Promise.reject(new Error('HTTP 404')) }), { kind: 'map-source', source: 'far' }],
    ['several workflows', () => selectWorkflow(registry, undefined), { kind: 'choose-workflow', ids: ['one', 'two'] }],
    ['missing inputs', () => compileInputs({ type: 'object', required: ['connector', 'topic'], properties: { connector: { type: 'string' }, topic: { type: 'string' } } }, undefined, 'w')({}), { kind: 'provide-input', names: ['connector', 'topic'] }],
  ];
  for (const [name, what, hint] of cases) {
    const err = await failure(what);
    assert.doesNotMatch(err.message, CLI_FLAG, `${name}: ${err.message}`);
    assert.deepEqual(err.hint, hint, `${name}: ${err.message}`);
  }
});

test('the step budget and a source without a server reach the run result with their hints, and no flag', async () => {
  const server = createServer((_req, res) => res.end('{}'));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const http = new HttpClient();
  try {
    const dir = await mkdtemp(join(tmpdir(), 'offsetctl-neutral-run-'));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await writeFile(join(dir, 'api.yaml'), stringify(api([{ url: base }])));
    await writeFile(join(dir, 'none.yaml'), stringify(api()));
    const loop = { workflowId: 'loop', steps: [{ stepId: 'spin', operationId: '$sourceDescriptions.api.a', onSuccess: [{ name: 'again', type: 'goto', stepId: 'spin' }] }] };
    const bare = { workflowId: 'bare', steps: [{ stepId: 's', operationId: '$sourceDescriptions.none.a' }] };
    await writeFile(join(dir, 'flow.arazzo.yaml'), stringify(flow([{ name: 'api', url: 'api.yaml' }, { name: 'none', url: 'none.yaml' }], [loop, bare])));
    const registry = await loadSources(await loadDocumentFile(join(dir, 'flow.arazzo.yaml')));

    const looped = await runWorkflow({ registry, workflowId: 'loop', inputs: {}, http, maxSteps: 3 });
    assert.equal(looped.error?.code, 'E_STEP_BUDGET');
    assert.deepEqual(looped.error?.hint, { kind: 'raise-step-budget' });
    assert.doesNotMatch(looped.error!.message, CLI_FLAG);

    const refused = await runWorkflow({ registry, workflowId: 'bare', inputs: {}, http }).then((r) => r.error, (err: unknown) => err as ArazzoError);
    assert.equal(refused?.code, 'E_SOURCE');
    assert.deepEqual(refused?.hint, { kind: 'set-server', source: 'none' });
    assert.doesNotMatch(refused!.message, CLI_FLAG);
  } finally {
    await http.close();
    await new Promise((done) => server.close(done));
  }
});
