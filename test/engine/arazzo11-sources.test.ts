// Arazzo 1.1 sources: `$self` and base-URI resolution (RFC 3986 §5.2, the spec's Appendix B),
// AsyncAPI direction checks, and `workflow plan` holding given inputs to the schema.
// Real parts: child processes.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parseDocumentText } from '../../src/arazzo/document/index.js';
import { evaluateRuntimeExpression } from '../../src/arazzo/index.js';
import { loadSources } from '../../src/arazzo/sources/index.js';
import { emptyContext } from '../../src/arazzo/context.js';
import { cli, repoRoot } from './support/engine.js';

const OPENAPI = 'openapi: 3.0.3\ninfo: {title: x, version: 1.0.0}\npaths: {}\n';
const doc = (self: string | undefined, url: string, version = '1.1.0'): string => `arazzo: ${version}
${self === undefined ? '' : `$self: ${self}\n`}info: {title: t, version: 1.0.0}
sourceDescriptions:
  - {name: petstore, url: ${url}, type: openapi}
workflows:
  - workflowId: w
    steps:
      - {stepId: s, operationId: nothing}
`;

describe('$self and base URIs (Appendix B)', () => {
  it('a relative source URL resolves against an absolute $self, not where the document was read', async () => {
    const fetched: string[] = [];
    const d = parseDocumentText(doc('https://api.example.com/workflows/purchase.arazzo.yaml', '../specs/petstore.yaml'), '/Users/dev/projects/workflows/purchase.arazzo.yaml');
    const registry = await loadSources(d, { allowRemote: true, fetchText: async (url) => { fetched.push(url); return OPENAPI; } });
    assert.deepEqual(fetched, ['https://api.example.com/specs/petstore.yaml']);
    assert.equal(registry.baseUri, 'https://api.example.com/workflows/purchase.arazzo.yaml');
    await assert.rejects(loadSources(d), /source "petstore" is remote \(https:\/\/api\.example\.com\/specs\/petstore\.yaml\); allow remote sources to fetch it/);
  });

  it('a relative $self resolves against the retrieval URI first', async () => {
    const fetched: string[] = [];
    const d = parseDocumentText(doc('workflows/purchase.arazzo.yaml', '../specs/petstore.yaml'), 'https://api.example.com/v2/api-description.yaml');
    await loadSources(d, { allowRemote: true, fetchText: async (url) => { fetched.push(url); return OPENAPI; } });
    assert.deepEqual(fetched, ['https://api.example.com/v2/specs/petstore.yaml']);
  });

  it('without $self the retrieval URI is the base (a local file: relative to its folder); $self evaluates to the base', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offsetctl-self-'));
    mkdirSync(join(dir, 'specs'));
    mkdirSync(join(dir, 'workflows'));
    writeFileSync(join(dir, 'specs', 'petstore.yaml'), OPENAPI);
    const registry = await loadSources(parseDocumentText(doc(undefined, '../specs/petstore.yaml'), join(dir, 'workflows', 'purchase.arazzo.yaml')));
    assert.equal(registry.openapi.get('petstore')?.location, join(dir, 'specs', 'petstore.yaml'));
    assert.equal(registry.baseUri, `file://${join(dir, 'workflows', 'purchase.arazzo.yaml')}`);
    assert.equal(evaluateRuntimeExpression('$self', { ...emptyContext(), self: registry.baseUri }), registry.baseUri);
  });
});

describe('AsyncAPI direction', () => {
  const asyncapi = `asyncapi: 3.0.0
info: {title: a, version: 1.0.0}
servers: {local: {host: 'localhost:9092', protocol: kafka}}
channels:
  events: {address: events, messages: {e: {payload: {type: object}}}}
operations:
  publishEvents: {action: send, channel: {$ref: '#/channels/events'}}
`;
  it('a step that sends to an operation the application sends is an error saying which action fits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offsetctl-direction-'));
    writeFileSync(join(dir, 'a.asyncapi.yaml'), asyncapi);
    const arazzoFile = join(dir, 'w.arazzo.yaml');
    writeFileSync(arazzoFile, `arazzo: 1.1.0
info: {title: t, version: 1.0.0}
sourceDescriptions: [{name: events, url: ./a.asyncapi.yaml, type: asyncapi}]
workflows:
  - workflowId: w
    steps:
      - {stepId: wrong, operationId: publishEvents, action: send, requestBody: {payload: {}}}
      - {stepId: right, operationId: publishEvents, action: receive}
      - {stepId: noAction, operationId: publishEvents}
`);
    const r = await promisify(execFile)(process.execPath, [cli, 'workflow', 'validate', arazzoFile, '--output', 'json']).catch((e: { code: number; stdout: string }) => e);
    const report = JSON.parse(r.stdout) as { diagnostics: Array<{ pointer: string; code: string; message: string }> };
    const wrong = report.diagnostics.find((d) => d.pointer === '/workflows/0/steps/0/operationId');
    assert.equal(wrong?.code, 'action-direction');
    assert.match(wrong!.message, /declared action: send, the application's side.*use action: receive/);
    assert.equal(report.diagnostics.some((d) => d.pointer.startsWith('/workflows/0/steps/1')), false);
    assert.match(report.diagnostics.find((d) => d.pointer === '/workflows/0/steps/2/operationId')!.message, /AsyncAPI step needs action: send or receive/);
  });
});

describe('workflow plan', () => {
  it('refuses given inputs that run would refuse, and still plans without inputs', async () => {
    const rewind = join(repoRoot, 'workflows', 'rewind-connector-offsets.arazzo.yaml');
    const bad = await promisify(execFile)(process.execPath, [cli, 'workflow', 'plan', rewind, '--input', 'connectorName=', '--input', 'offsets={"not":"an array"}']).catch((e: { code: number; stderr: string }) => e);
    assert.equal((bad as { code: number }).code, 2);
    assert.match((bad as { stderr: string }).stderr, /E_INPUTS.*offsets.*must be array/s);
    const ok = await promisify(execFile)(process.execPath, [cli, 'workflow', 'plan', rewind]);
    assert.match(ok.stdout, /stopConnector/);
  });
});
