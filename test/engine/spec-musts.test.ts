// Where the engine was lenient against a MUST of the Arazzo spec, or strict against a SHOULD:
// each case from a minimal document in test/fixtures/arazzo/, run against a loopback server and
// through the real CLI (validate, lint --fix, upgrade, run).
// Real parts: a loopback HTTP server, the CLI in-process.
import { after, before, describe, it } from 'node:test';
import { strict as assert } from 'node:assert';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDocumentFile, validateArazzo } from '../../src/arazzo/document/index.js';
import { loadSources, type SourceRegistry } from '../../src/arazzo/sources/index.js';
import { runWorkflow } from '../../src/arazzo/index.js';
import { HttpClient } from '../../src/http/client.js';
import { repoRoot, runnerApi } from './support/engine.js';
import { startServer, type TestServer } from './support/server.js';
import { runInProcess } from '../support/in-process.js';

const fixture = (name: string): string => join(repoRoot, 'test', 'fixtures', 'arazzo', name);

async function registryOf(file: string, serverUrl: string): Promise<SourceRegistry> {
  return loadSources(await loadDocumentFile(file), { servers: { all: serverUrl } });
}

describe('Arazzo MUSTs and SHOULDs', () => {
  let server: TestServer;
  let dir: string;
  const http = new HttpClient();
  let state = 'PAUSED';
  before(async () => {
    server = await startServer({
      'GET /status': () => ({ body: { connector: { state } } }),
      'GET /items/*': (req) => ({ body: { id: decodeURIComponent(req.path.slice('/items/'.length)), name: `name of ${req.path.slice('/items/'.length)}` } }),
      'POST /counter': () => ({ body: { count: 1 } }),
      'POST /forms': (req) => {
        if (!req.body.includes('grant_type')) return { body: { received: req.body, type: req.headers['content-type'] } };
        const form = new URLSearchParams(req.body);
        if (form.get('grant_type') === 'authorization_code') return { body: { access_token: 'first', refresh_token: `r-${form.get('client_id')}` } };
        return form.has('refresh_token') ? { body: { access_token: `fresh-${form.get('refresh_token')}` } } : { status: 400, body: { error: 'refresh_token missing' } };
      },
    });
    dir = await mkdtemp(join(tmpdir(), 'offsetctl-musts-'));
  });
  after(async () => {
    await server.close();
    await http.close();
    await rm(dir, { recursive: true, force: true });
  });

  const cli = (args: string[]) => runInProcess(args, { timeoutMs: 60_000, env: { OFFSETCTL_STATE_DIR: join(dir, 'state') } });

  describe('a type: jsonpath criterion that is not RFC 9535 (a comparison)', () => {
    const doc = fixture('jsonpath-comparison.arazzo.yaml');

    it('fails at run time even when the compared value matches, so the workflow does not go on', async () => {
      state = 'PAUSED';
      server.requests.length = 0;
      const result = await runWorkflow({ registry: await registryOf(doc, server.url), inputs: {}, http });
      assert.equal(result.status, 'failed');
      const check = result.steps.find((s) => s.stepId === 'check-paused')!;
      assert.equal(check.status, 'failed');
      assert.match(check.failedCriteria[0]?.message ?? '', /is a comparison, not a JSONPath query.*"\$response\.body#\/connector\/state == 'PAUSED'"/);
      assert.deepEqual(server.requests.map((r) => `${r.method} ${r.path}`), ['GET /status'], 'the resume step never ran');
    });

    it('validate reports it as an error with the simple condition that fixes it', async () => {
      const r = await cli(['workflow', 'validate', doc]);
      assert.equal(r.status, 2, r.stdout + r.stderr);
      assert.match(r.stderr + r.stdout, /jsonpath-comparison\.arazzo\.yaml:17:\d+.*is a comparison, not a JSONPath query/);
      assert.match(r.stderr + r.stdout, /write the simple condition "\$response\.body#\/connector\/state == 'PAUSED'" without type: jsonpath/);
    });

    it('lint --fix rewrites it in place (comments and layout kept), and the fixed document runs', async () => {
      const copy = join(dir, 'fixed.arazzo.yaml');
      await copyFile(doc, copy);
      const before = await readFile(copy, 'utf8');
      const lint = await cli(['workflow', 'lint', copy, '--fix', '--source', `api=${runnerApi}`]);
      assert.match(lint.stderr, /fixed {3}\/workflows\/0\/steps\/0\/successCriteria\/1 {2}jsonpath condition "\$\.connector\.state == 'PAUSED'"/);
      const after = await readFile(copy, 'utf8');
      assert.equal(
        after,
        before.replace("          - context: $response.body # the connector's status\n            condition: $.connector.state == 'PAUSED'\n            type: jsonpath\n", "          - condition: $response.body#/connector/state == 'PAUSED'\n"),
      );
      assert.doesNotMatch(lint.stdout, /invalid-criterion/);
      for (const [now, status] of [['PAUSED', 0], ['RUNNING', 1]] as const) {
        state = now;
        const run = await cli(['workflow', 'run', copy, '--source', `api=${runnerApi}`, '--server', server.url, '--output', 'json']);
        assert.equal(run.status, status, `${now}: ${run.stdout}${run.stderr}`);
      }
    });

    it('workflow upgrade rewrites it too', async () => {
      const r = await cli(['workflow', 'upgrade', doc, '--dry-run']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^ {10}- condition: \$response\.body#\/connector\/state == 'PAUSED'$/m);
      assert.doesNotMatch(r.stdout, /type: jsonpath/);
      assert.match(r.stderr, /changed +\/workflows\/0\/steps\/0\/successCriteria\/1 +jsonpath condition/);
      assert.match(r.stderr, /nothing needs a person/);
    });
  });

  describe('ids that break only the SHOULD pattern (a space, a dot)', () => {
    const doc = fixture('ids-should-pattern.arazzo.yaml');

    it('run, and expressions naming them resolve (whole, embedded, in conditions, $workflows, $sourceDescriptions)', async () => {
      server.requests.length = 0;
      const result = await runWorkflow({ registry: await registryOf(doc, server.url), workflowId: 'trip', inputs: {}, http });
      assert.equal(result.status, 'passed', JSON.stringify(result.error ?? result.steps.map((s) => [s.stepId, s.error, s.failedCriteria])));
      assert.deepEqual(server.requests.map((r) => r.path), ['/items/st-1', '/items/label-st-1', '/items/st-1']);
      assert.deepEqual(result.outputs, { station: 'st-1', name: 'name of label-st-1', source: 'openapi' });
    });

    it('validate and lint warn (id-pattern), naming each id; the CLI runs the document', async () => {
      const validate = await cli(['workflow', 'validate', doc]);
      assert.equal(validate.status, 0, validate.stdout + validate.stderr);
      const lint = await cli(['workflow', 'lint', doc, '--format', 'json']);
      const findings = (JSON.parse(lint.stdout) as { findings: Array<{ rule: string; severity: string; message: string }> }).findings.filter((f) => f.rule === 'validate/id-pattern');
      assert.deepEqual(findings.map((f) => [f.severity, /"([^"]+)"/.exec(f.message)?.[1]]), [['warning', 'items api'], ['warning', 'Search Stations'], ['warning', 'find item'], ['warning', 'get.label']]);
      assert.equal(lint.status, 0, lint.stdout);
      const run = await cli(['workflow', 'run', doc, '--workflow', 'trip', '--server', server.url, '--output', 'json']);
      assert.equal(run.status, 0, run.stdout + run.stderr);
      assert.equal((JSON.parse(run.stdout) as { outputs: Record<string, unknown> }).outputs['name'], 'name of label-st-1');
    });
  });

  describe('$outputs in a step that calls a workflow', () => {
    it("means the called workflow's outputs (the OAI oauth and pet-coupons examples), so the form field reaches the next request", async () => {
      server.requests.length = 0;
      const result = await runWorkflow({ registry: await registryOf(fixture('outputs-of-called-workflow.arazzo.yaml'), server.url), workflowId: 'refresh-token-flow', inputs: {}, http });
      assert.equal(result.status, 'passed', JSON.stringify(result.steps.map((s) => [s.stepId, s.status, s.error, s.failedCriteria])));
      assert.deepEqual(result.steps.find((s) => s.stepId === 'do-the-auth-flow')?.outputs, { my_refresh_token: 'r-app-1' });
      assert.equal(server.requests.at(-1)?.body, 'grant_type=refresh_token&refresh_token=r-app-1');
      assert.deepEqual(result.outputs, { access_token: 'fresh-r-app-1' });
    });

    it('an expression that can have no value where it is written never passes validate silently', async () => {
      const found = validateArazzo(await loadDocumentFile(fixture('outputs-no-value.arazzo.yaml')))
        .filter((d) => d.code === 'no-value' || d.code === 'unknown-output')
        .sort((a, b) => (a.line ?? 0) - (b.line ?? 0))
        .map((d) => [d.severity, d.code, d.pointer]);
      assert.deepEqual(found, [
        ['error', 'no-value', '/workflows/0/steps/0/parameters/0/value'],
        ['warning', 'no-value', '/workflows/0/steps/0/successCriteria/0/condition'],
        ['error', 'unknown-output', '/workflows/0/steps/0/outputs/missing'],
        ['error', 'no-value', '/workflows/0/steps/1/outputs/early'],
        ['error', 'no-value', '/workflows/0/outputs/ahead'],
      ]);
      const r = await cli(['workflow', 'validate', fixture('outputs-no-value.arazzo.yaml')]);
      assert.equal(r.status, 2);
      assert.match(r.stdout + r.stderr, /\$outputs\.token can have no value here: a workflow's outputs \(\$outputs\) are evaluated when it ends, after its steps/);
      assert.match(r.stdout + r.stderr, /\$outputs\.nope reads output "nope" of the workflow this step calls \("callee"\), which does not define it \(its outputs: token\)/);
    });
  });

  describe('dependsOn lists', () => {
    it('an empty step dependsOn and repeated entries (steps and workflows) are errors, as in the official 1.1 schema', async () => {
      const doc = fixture('depends-on-lists.arazzo.yaml');
      const errors = validateArazzo(await loadDocumentFile(doc)).filter((d) => d.severity === 'error').map((d) => [d.code, d.pointer]);
      assert.deepEqual(errors.sort(), [
        ['duplicate-dependency', '/workflows/1/dependsOn/1'],
        ['duplicate-dependency', '/workflows/1/steps/2/dependsOn/2'],
        ['empty-list', '/workflows/1/steps/0/dependsOn'],
      ]);
      const r = await cli(['workflow', 'validate', doc]);
      assert.equal(r.status, 2);
      assert.match(r.stdout + r.stderr, /dependsOn must list at least one step; a step with no prerequisites leaves dependsOn out/);
      assert.match(r.stdout + r.stderr, /dependsOn lists "a" twice \(entries 0 and 2\)/);
    });
  });

  describe('a replacement into a form payload written as text', () => {
    it('parses the form text like JSON text, so the pointer reaches the field; the body goes form-encoded', async () => {
      server.requests.length = 0;
      const registry = await registryOf(fixture('form-text-replacement.arazzo.yaml'), server.url);
      const result = await runWorkflow({ registry, inputs: { location: 'Zürich & Bern' }, http });
      assert.equal(result.status, 'passed', JSON.stringify(result.steps.map((s) => s.error)));
      const sent = server.requests.at(-1)!;
      assert.equal(sent.headers['content-type'], 'application/x-www-form-urlencoded');
      assert.equal(sent.body, 'a=1&location=Z%C3%BCrich+%26+Bern&tag=t1&tag=t2&tag=t3');
      assert.equal(result.outputs['sent'], 'Zürich & Bern', '$request.body is the parsed form');
    });
  });

  describe('action: send on a step that calls a workflow', () => {
    it('is reported as what it is, never as an operationId "" that the document does not have', async () => {
      const r = await cli(['workflow', 'validate', fixture('send-on-workflow-step.arazzo.yaml'), '--output', 'json']);
      assert.equal(r.status, 2);
      const { diagnostics } = JSON.parse(r.stdout) as { diagnostics: Array<{ severity: string; pointer: string; message: string }> };
      assert.deepEqual(diagnostics.filter((d) => d.severity === 'error').map((d) => [d.pointer, d.message]), [
        ['/workflows/0/steps/0/action', 'action only applies to AsyncAPI steps (operationId, operationPath or channelPath), not to a step that calls a workflow'],
      ]);
      assert.doesNotMatch(r.stdout, /operationId ""/);
    });
  });
});
