// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { ArazzoError, type Diagnostic } from '../errors.js';
import { assertValid, loadDocumentFile, parseDocumentText, validateArazzo } from './index.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const seeds = resolve(repoRoot, 'examples/seeds');

type Doc = Record<string, any>;

/** A small valid document: two sources, two workflows, components. Tests break one thing each. */
function baseDoc(): Doc {
  return {
    arazzo: '1.0.1',
    info: { title: 'Fixture', version: '1.0.0' },
    sourceDescriptions: [
      { name: 'connectApi', url: './connect.yaml', type: 'openapi' },
      { name: 'shared', url: './shared.arazzo.yaml', type: 'arazzo' },
    ],
    workflows: [
      {
        workflowId: 'stop-and-read',
        inputs: { type: 'object', properties: { connector: { type: 'string' } } },
        steps: [
          {
            stepId: 'stop',
            operationId: 'stopConnector',
            parameters: [{ name: 'connector', in: 'path', value: '$inputs.connector' }, { reference: '$components.parameters.trace' }],
            successCriteria: [{ condition: '$statusCode == 204' }],
            onFailure: [{ name: 'again', type: 'retry', retryAfter: 0.5, retryLimit: 2 }, { reference: '$components.failureActions.giveUp' }],
          },
          {
            stepId: 'read',
            operationPath: '{$sourceDescriptions.connectApi.url}#/paths/~1connectors~1{connector}~1offsets/get',
            parameters: [{ name: 'connector', in: 'path', value: '$inputs.connector' }],
            successCriteria: [{ context: '$response.body', condition: '$.offsets', type: 'jsonpath' }],
            onSuccess: [{ name: 'done', type: 'end' }, { name: 'loop', type: 'goto', stepId: 'stop', criteria: [{ condition: '$statusCode == 202' }] }],
            outputs: { offsets: '$response.body#/offsets', 'state.name': '$response.body#/state' },
          },
        ],
        outputs: { offsets: '$steps.read.outputs.offsets', first: '$steps.read.outputs.offsets#/0' },
      },
      {
        workflowId: 'after',
        dependsOn: ['stop-and-read', '$sourceDescriptions.shared.prepare'],
        steps: [
          { stepId: 'stop', workflowId: 'stop-and-read', parameters: [{ name: 'connector', value: '$workflows.stop-and-read.outputs.offsets' }] },
          { stepId: 'remote', workflowId: '$sourceDescriptions.shared.prepare' },
        ],
        outputs: { state: '$steps.stop.outputs.result' },
      },
    ],
    components: {
      parameters: { trace: { name: 'X-Trace', in: 'header', value: 'offsetctl' } },
      failureActions: { giveUp: { name: 'giveUp', type: 'end' } },
    },
  };
}

function validate(doc: Doc): Diagnostic[] {
  return validateArazzo(parseDocumentText(stringify(doc), '/tmp/flow.arazzo.yaml'));
}

function errorsOf(doc: Doc): Diagnostic[] {
  return validate(doc).filter((d) => d.severity === 'error');
}

/** Exactly one error, with this code (and pointer when given). */
function expectOnly(doc: Doc, code: string, pointer?: string): Diagnostic {
  const errors = errorsOf(doc);
  assert.equal(errors.length, 1, `expected one ${code}, got ${JSON.stringify(errors, null, 1)}`);
  const [error] = errors as [Diagnostic];
  assert.equal(error.code, code, error.message);
  if (pointer !== undefined) assert.equal(error.pointer, pointer);
  assert.equal(error.file, '/tmp/flow.arazzo.yaml');
  assert.equal(typeof error.line, 'number');
  assert.equal(typeof error.column, 'number');
  return error;
}

function validBase(): Doc {
  const doc = baseDoc();
  doc.workflows[1].outputs = {};
  return doc;
}

test('the base fixture has no errors, and an output its called step never defines is one', () => {
  assert.deepEqual(errorsOf(validBase()), []);
  expectOnly(baseDoc(), 'unknown-output', '/workflows/1/outputs/state');
});

test('both seed documents validate clean', async () => {
  for (const name of ['rewind-connector-offsets.arazzo.yaml', 'reset-connector-offsets.arazzo.yaml']) {
    const doc = await loadDocumentFile(resolve(seeds, name));
    const diagnostics = validateArazzo(doc);
    assert.deepEqual(diagnostics, [], name);
    assertValid(doc, diagnostics);
  }
});

test("the spec's own example document has two real mistakes, and both are caught", async () => {
  const spec = await readFile(resolve(repoRoot, 'test/fixtures/reference/arazzo-1.0.1.md'), 'utf8');
  const section = spec.slice(spec.indexOf('##### Arazzo Specification Object Example'));
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(yaml, 'the example is in the spec');
  const errors = validateArazzo(parseDocumentText(yaml, '/spec/example.yaml')).filter((d) => d.severity === 'error');
  assert.deepEqual(errors.map((d) => [d.code, d.pointer]), [
    ['unknown-source', '/workflows/0/steps/1/operationPath'], // petstoreDescription vs petStoreDescription
    ['unknown-step', '/workflows/0/steps/1/parameters/1/value'], // $steps.loginUser: the step is loginStep
  ]);
});

test('required fields: a missing info.title names the field', () => {
  const doc = validBase();
  delete doc.info.title;
  const e = expectOnly(doc, 'missing-field', '/info/title');
  assert.match(e.message, /"title"/);
  assert.equal(e.line, 2); // points at `info:`, the object that lacks it
});

test('types: workflows must be an array', () => {
  const doc = validBase();
  doc.workflows = { a: 1 };
  expectOnly(doc, 'wrong-type', '/workflows');
});

test('arazzo version must be 1.0.x', () => {
  const doc = validBase();
  doc.arazzo = '2.0.0';
  expectOnly(doc, 'unsupported-version', '/arazzo');
  doc.arazzo = '1.0.0';
  assert.deepEqual(errorsOf(doc), []);
});

test('workflowId and stepId that break the SHOULD pattern are warnings; an empty one is an error', () => {
  const doc = validBase();
  doc.workflows[1].steps[1].stepId = 'remote step';
  assert.deepEqual(errorsOf(doc), []);
  assert.deepEqual(validate(doc).filter((d) => d.code === 'id-pattern').map((d) => [d.severity, d.pointer]), [['warning', '/workflows/1/steps/1/stepId']]);
  const doc2 = validBase();
  doc2.workflows[1].workflowId = '';
  expectOnly(doc2, 'invalid-id', '/workflows/1/workflowId');
});

test('output names and component keys must match ^[a-zA-Z0-9.\\-_]+$', () => {
  const doc = validBase();
  doc.workflows[0].outputs['bad name'] = '$steps.read.outputs.offsets';
  expectOnly(doc, 'invalid-name', '/workflows/0/outputs/bad name');
  const doc2 = validBase();
  doc2.components.parameters['bad/key'] = { name: 'x', in: 'query', value: 1 };
  expectOnly(doc2, 'invalid-name', '/components/parameters/bad~1key');
});

test('a step needs exactly one of operationId, operationPath, workflowId', () => {
  const doc = validBase();
  doc.workflows[0].steps[0].operationPath = '{$sourceDescriptions.connectApi.url}#/paths/~1a/get';
  expectOnly(doc, 'operation-choice', '/workflows/0/steps/0/operationPath');
  const doc2 = validBase();
  delete doc2.workflows[0].steps[0].operationId;
  expectOnly(doc2, 'operation-choice', '/workflows/0/steps/0');
});

test('parameter in must be path/query/header/cookie, and is required for operation steps', () => {
  const doc = validBase();
  doc.workflows[0].steps[0].parameters[0].in = 'body';
  expectOnly(doc, 'invalid-value', '/workflows/0/steps/0/parameters/0/in');
  const doc2 = validBase();
  delete doc2.workflows[0].steps[0].parameters[0].in;
  expectOnly(doc2, 'missing-field', '/workflows/0/steps/0/parameters/0/in');
});

test('criterion type values and expression type versions', () => {
  const doc = validBase();
  doc.workflows[0].steps[1].successCriteria[0].type = 'xml';
  expectOnly(doc, 'invalid-value', '/workflows/0/steps/1/successCriteria/0/type');
  const doc2 = validBase();
  doc2.workflows[0].steps[1].successCriteria[0].type = { type: 'jsonpath', version: 'draft-goessner-dispatch-jsonpath-00' };
  assert.deepEqual(errorsOf(doc2), []);
  doc2.workflows[0].steps[1].successCriteria[0].type = { type: 'jsonpath', version: 'v9' };
  expectOnly(doc2, 'invalid-value', '/workflows/0/steps/1/successCriteria/0/type/version');
  const doc3 = validBase();
  // The flattened form of the OAI schema is tolerated.
  doc3.workflows[0].steps[1].successCriteria[0] = { context: '$response.body', condition: '/a', type: 'xpath', version: 'xpath-30' };
  assert.deepEqual(errorsOf(doc3), []);
});

test('a regex/jsonpath/xpath criterion needs a context; simple does not', () => {
  const doc = validBase();
  delete doc.workflows[0].steps[1].successCriteria[0].context;
  expectOnly(doc, 'missing-field', '/workflows/0/steps/1/successCriteria/0/context');
  const doc2 = validBase();
  doc2.workflows[0].steps[0].successCriteria[0].type = 'simple';
  assert.deepEqual(errorsOf(doc2), []);
});

test('action type values: retry is not a success action', () => {
  const doc = validBase();
  doc.workflows[0].steps[1].onSuccess[0].type = 'retry';
  const e = expectOnly(doc, 'invalid-value', '/workflows/0/steps/1/onSuccess/0/type');
  assert.match(e.message, /only a failure action/);
});

test('goto needs exactly one of stepId or workflowId', () => {
  const doc = validBase();
  delete doc.workflows[0].steps[1].onSuccess[1].stepId;
  expectOnly(doc, 'goto-target', '/workflows/0/steps/1/onSuccess/1');
  doc.workflows[0].steps[1].onSuccess[1].stepId = 'stop';
  doc.workflows[0].steps[1].onSuccess[1].workflowId = 'after';
  expectOnly(doc, 'goto-target', '/workflows/0/steps/1/onSuccess/1');
});

test('retry fields: only on failure actions, retryAfter >= 0, retryLimit a non-negative integer', () => {
  const doc = validBase();
  doc.workflows[0].steps[1].onSuccess[0].retryAfter = 1;
  expectOnly(doc, 'unknown-field', '/workflows/0/steps/1/onSuccess/0/retryAfter');
  const doc2 = validBase();
  doc2.workflows[0].steps[0].onFailure[0].retryAfter = -1;
  expectOnly(doc2, 'invalid-value', '/workflows/0/steps/0/onFailure/0/retryAfter');
  const doc3 = validBase();
  doc3.workflows[0].steps[0].onFailure[0].retryLimit = 1.5;
  expectOnly(doc3, 'wrong-type', '/workflows/0/steps/0/onFailure/0/retryLimit');
  const doc4 = validBase();
  doc4.workflows[0].steps[0].onFailure[0].retryLimit = -2;
  expectOnly(doc4, 'invalid-value', '/workflows/0/steps/0/onFailure/0/retryLimit');
  const doc5 = validBase();
  doc5.workflows[0].steps[0].onFailure[0].type = 'end';
  const warnings = validate(doc5).filter((d) => d.severity === 'warning' && d.code === 'ignored-field');
  assert.equal(warnings.length, 2, 'retryAfter and retryLimit on an end action are flagged');
});

test('x- extensions are allowed; unknown fields are reported', () => {
  const doc = validBase();
  doc['x-owner'] = 'team';
  doc.workflows[0].steps[0]['x-note'] = 1;
  assert.deepEqual(errorsOf(doc), []);
  doc.workflows[0].steps[0].operationID = 'typo';
  const e = expectOnly(doc, 'unknown-field', '/workflows/0/steps/0/operationID');
  assert.match(e.message, /x-/);
});

test('goto to a step that is not in the same workflow', () => {
  const doc = validBase();
  doc.workflows[0].steps[1].onSuccess[1].stepId = 'remote'; // a step of the other workflow
  const e = expectOnly(doc, 'unknown-step', '/workflows/0/steps/1/onSuccess/1/stepId');
  assert.match(e.message, /stop-and-read/);
});

test('action workflowId: local, or $sourceDescriptions.<arazzo source>.<id>', () => {
  const doc = validBase();
  doc.workflows[0].steps[1].onSuccess[1] = { name: 'next', type: 'goto', workflowId: 'nope' };
  expectOnly(doc, 'unknown-workflow', '/workflows/0/steps/1/onSuccess/1/workflowId');
  doc.workflows[0].steps[1].onSuccess[1].workflowId = '$sourceDescriptions.shared.other';
  assert.deepEqual(errorsOf(doc), []);
  doc.workflows[0].steps[1].onSuccess[1].workflowId = '$sourceDescriptions.connectApi.other';
  expectOnly(doc, 'unknown-workflow');
  doc.workflows[0].steps[1].onSuccess[1].workflowId = '$sourceDescriptions.elsewhere.other';
  expectOnly(doc, 'unknown-source');
});

test('reusable actions are checked where they are used', () => {
  const doc = validBase();
  doc.components.failureActions.giveUp = { name: 'giveUp', type: 'goto', stepId: 'nowhere' };
  expectOnly(doc, 'unknown-step', '/workflows/0/steps/0/onFailure/1/reference');
});

test('dependsOn: unknown workflows, self and cycles', () => {
  const doc = validBase();
  doc.workflows[1].dependsOn = ['missing'];
  expectOnly(doc, 'unknown-workflow', '/workflows/1/dependsOn/0');
  const doc2 = validBase();
  doc2.workflows[0].dependsOn = ['after'];
  expectOnly(doc2, 'dependency-cycle');
  const doc3 = validBase();
  doc3.workflows[1].dependsOn = ['after'];
  expectOnly(doc3, 'dependency-cycle', '/workflows/1/dependsOn/0');
});

test('a step that calls an unknown workflow', () => {
  const doc = validBase();
  doc.workflows[1].steps[0].workflowId = 'stop-and-reed';
  const e = expectOnly(doc, 'unknown-workflow', '/workflows/1/steps/0/workflowId');
  assert.match(e.message, /stop-and-read/);
});

test('$steps references: unknown step, output the step never defines', () => {
  const doc = validBase();
  doc.workflows[0].outputs.first = '$steps.reed.outputs.offsets';
  expectOnly(doc, 'unknown-step', '/workflows/0/outputs/first');
  const doc2 = validBase();
  doc2.workflows[0].outputs.first = '$steps.read.outputs.offset';
  const e = expectOnly(doc2, 'unknown-output', '/workflows/0/outputs/first');
  assert.match(e.message, /offsets, state\.name/);
  // Dotted names and property access on a defined output are fine.
  const doc3 = validBase();
  doc3.workflows[0].outputs.first = '$steps.read.outputs.state.name';
  doc3.workflows[0].outputs.second = '$steps.read.outputs.offsets.length';
  assert.deepEqual(errorsOf(doc3), []);
});

test('$steps inside a simple condition is checked too', () => {
  const doc = validBase();
  doc.workflows[0].steps[1].onSuccess[1].criteria[0].condition = '$steps.read.outputs.nothing == 1';
  expectOnly(doc, 'unknown-output', '/workflows/0/steps/1/onSuccess/1/criteria/0/condition');
});

test('$workflows.X.outputs.Y must be defined by workflow X', () => {
  const doc = validBase();
  doc.workflows[1].steps[0].parameters[0].value = '$workflows.stop-and-read.outputs.missing';
  expectOnly(doc, 'unknown-output', '/workflows/1/steps/0/parameters/0/value');
  doc.workflows[1].steps[0].parameters[0].value = '$workflows.nope.outputs.offsets';
  expectOnly(doc, 'unknown-workflow', '/workflows/1/steps/0/parameters/0/value');
});

test('$outputs.X must be an output of the workflow', () => {
  const doc = validBase();
  doc.workflows[0].steps[1].onSuccess[1].criteria[0].condition = '$outputs.offsetz != null';
  expectOnly(doc, 'unknown-output');
});

test('$components.parameters.x must exist (reference and expression)', () => {
  const doc = validBase();
  doc.workflows[0].steps[0].parameters[1].reference = '$components.parameters.missing';
  expectOnly(doc, 'unknown-component', '/workflows/0/steps/0/parameters/1/reference');
  const doc2 = validBase();
  doc2.workflows[0].steps[0].parameters[0].value = '$components.parameters.nope';
  expectOnly(doc2, 'unknown-component', '/workflows/0/steps/0/parameters/0/value');
});

test('duplicate workflowIds, stepIds per workflow, source names', () => {
  const doc = validBase();
  doc.workflows[1].workflowId = 'stop-and-read';
  doc.workflows[1].dependsOn = [];
  doc.workflows[1].steps[0].workflowId = '$sourceDescriptions.shared.x';
  assert.ok(errorsOf(doc).some((d) => d.code === 'duplicate-workflow-id' && d.pointer === '/workflows/1/workflowId'));
  const doc2 = validBase();
  doc2.workflows[0].steps[1].stepId = 'stop';
  assert.ok(errorsOf(doc2).some((d) => d.code === 'duplicate-step-id' && d.pointer === '/workflows/0/steps/1/stepId'));
  // The base fixture already reuses stepId "stop" in both workflows: that is allowed.
  const doc3 = validBase();
  doc3.sourceDescriptions[1].name = 'connectApi';
  doc3.sourceDescriptions[1].type = 'openapi';
  doc3.workflows[1].dependsOn = ['stop-and-read'];
  doc3.workflows[1].steps.pop();
  expectOnly(doc3, 'duplicate-source-name', '/sourceDescriptions/1/name');
});

test('duplicate parameters in one list', () => {
  const doc = validBase();
  doc.workflows[0].steps[0].parameters.push({ name: 'connector', in: 'path', value: 'x' });
  expectOnly(doc, 'duplicate-parameter', '/workflows/0/steps/0/parameters/2');
});

test('invalid runtime expressions are reported with the parser message', () => {
  const doc = validBase();
  doc.workflows[0].steps[0].parameters[0].value = '$inputs..connector';
  expectOnly(doc, 'invalid-expression', '/workflows/0/steps/0/parameters/0/value');
  const doc2 = validBase();
  doc2.workflows[0].steps[1].successCriteria[0].context = '$response.bdy';
  expectOnly(doc2, 'invalid-expression', '/workflows/0/steps/1/successCriteria/0/context');
});

test('criteria syntax is checked', () => {
  const doc = validBase();
  doc.workflows[0].steps[0].successCriteria[0].condition = '$statusCode == (204';
  expectOnly(doc, 'invalid-criterion', '/workflows/0/steps/0/successCriteria/0/condition');
});

test('assertValid throws E_DOCUMENT_INVALID with the diagnostics, and passes warnings', () => {
  const doc = validBase();
  doc.workflows[1].dependsOn = ['missing'];
  const loaded = parseDocumentText(stringify(doc), '/tmp/flow.arazzo.yaml');
  const diagnostics = validateArazzo(loaded);
  assert.throws(
    () => assertValid(loaded, diagnostics),
    (err: unknown) => err instanceof ArazzoError && err.code === 'E_DOCUMENT_INVALID' && err.diagnostics.length === diagnostics.length && /flow\.arazzo\.yaml:\d+:\d+: dependsOn "missing"/.test(err.message),
  );
  assertValid(loaded, [{ code: 'x', message: 'w', severity: 'warning' }]);
});
