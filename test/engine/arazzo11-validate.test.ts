// Arazzo 1.1 validation: the declared version decides the rules. 1.0.x documents keep 1.0's
// (a 1.1-only field is an error naming `workflow upgrade`); 1.1.x documents get the new fields
// and the stricter checks (forward references, $message only on receive steps, selectors).
// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseDocumentText, validateArazzo } from '../../src/arazzo/document/index.js';
import type { Diagnostic } from '../../src/arazzo/index.js';
import { repoRoot } from './support/engine.js';

function validate(yaml: string): Diagnostic[] {
  return validateArazzo(parseDocumentText(yaml, join(repoRoot, 'test', 'engine', 'v11.arazzo.yaml')));
}
const errors = (d: Diagnostic[]): Diagnostic[] => d.filter((x) => x.severity === 'error');

function doc(version: string, steps: string, extra = ''): string {
  return `arazzo: ${version}
info: {title: t, version: 1.0.0}
${extra}sourceDescriptions:
  - {name: api, url: ./runner-api.yaml, type: openapi}
workflows:
  - workflowId: w
    steps:
${steps}`;
}

describe('Arazzo versions side by side', () => {
  it('accepts 1.1.x documents with 1.1 fields, and refuses other versions naming both supported lines', () => {
    const steps = `      - stepId: a
        operationId: getItem
        timeout: 1000
        parameters: [{name: q, in: querystring, value: 'a=1'}]
        outputs:
          id: {context: $response.body, selector: $.id, type: jsonpath}
`;
    assert.deepEqual(errors(validate(doc('1.1.0', steps, '$self: https://example.com/flows/a.arazzo.yaml\n'))), []);
    const bad = errors(validate(doc('2.0.0', steps)));
    assert.match(bad[0]!.message, /1\.0\.x and 1\.1\.x/);
  });

  it('a 1.1-only field in a 1.0 document is an error that names `offsetctl workflow upgrade`', () => {
    const d = errors(validate(doc('1.0.1', `      - stepId: a
        operationId: getItem
        timeout: 1000
        dependsOn: [b]
      - stepId: b
        operationId: getItem
        parameters: [{name: q, in: querystring, value: 'a=1'}]
`, '$self: https://example.com/a.yaml\n')));
    const pointers = d.map((x) => x.pointer).sort();
    assert.deepEqual(pointers, ['/$self', '/workflows/0/steps/0/dependsOn', '/workflows/0/steps/0/timeout', '/workflows/1/steps/1/parameters/0/in'.replace('/1/steps', '/0/steps')].sort());
    for (const x of d) {
      assert.equal(x.code, 'requires-1.1');
      assert.match(x.message, /new in Arazzo 1\.1.*arazzo: 1\.0\.1.*offsetctl workflow upgrade/);
    }
  });

  it('a forward output reference is an error in a sequential 1.1 workflow, a warning in 1.0, and fine with dependsOn', () => {
    const steps = `      - stepId: a
        operationId: getItem
        parameters: [{name: id, in: path, value: $steps.b.outputs.id}]
      - stepId: b
        operationId: getItem
        outputs: {id: $response.body#/id}
`;
    const v11 = validate(doc('1.1.0', steps)).filter((x) => x.code === 'forward-reference');
    assert.equal(v11.length, 1);
    assert.equal(v11[0]!.severity, 'error');
    assert.match(v11[0]!.message, /later in this sequential workflow.*dependsOn/);
    const v10 = validate(doc('1.0.1', steps));
    assert.deepEqual(v10.filter((x) => x.code === 'step-not-yet-run').map((x) => x.severity), ['warning']);
    const withDeps = validate(doc('1.1.0', steps.replace('      - stepId: a\n', '      - stepId: a\n        dependsOn: [b]\n')));
    assert.deepEqual(errors(withDeps), []);
  });

  it('step dependsOn: unknown steps, self-dependency and cycles through output references are errors', () => {
    const d = errors(validate(doc('1.1.0', `      - stepId: a
        operationId: getItem
        dependsOn: [nope, a]
      - stepId: b
        operationId: getItem
        dependsOn: [c]
        outputs: {x: $response.body}
      - stepId: c
        operationId: getItem
        parameters: [{name: id, in: path, value: $steps.b.outputs.x}]
`)));
    assert.ok(d.some((x) => x.code === 'unknown-step' && /"nope"/.test(x.message)));
    assert.ok(d.some((x) => x.code === 'dependency-cycle' && /depends on itself/.test(x.message)));
    assert.ok(d.some((x) => x.code === 'dependency-cycle' && /b → c → b|c → b → c/.test(x.message)));
  });

  it('$message is 1.1 only and only on receive steps; `$message.payload.x` gets the `#/x` fix', () => {
    const v10 = errors(validate(doc('1.0.1', `      - stepId: a
        operationId: getItem
        outputs: {h: $message.header.id}
`)));
    assert.equal(v10[0]?.code, 'requires-1.1');
    const v11 = errors(validate(doc('1.1.0', `      - stepId: a
        operationId: getItem
        outputs: {h: $message.header.id, p: $message.payload.orderId}
`)));
    assert.ok(v11.some((x) => x.code === 'message-outside-receive'));
    assert.ok(v11.some((x) => /write \$message\.payload#\/field, not \$message\.payload\.field/.test(x.message)));
  });

  it('selector objects and replacement targetSelectorType are checked (type and version)', () => {
    const d = errors(validate(doc('1.1.0', `      - stepId: a
        operationId: createItem
        requestBody:
          payload:
            id: {context: $inputs.x, selector: /a, type: {type: xpath, version: xpath-99}}
          replacements:
            - {target: $.a, targetSelectorType: yaml, value: 1}
        outputs:
          o: {context: $response.body, selector: $.a, type: css}
`)));
    assert.ok(d.some((x) => /xpath version "xpath-99" is not known/.test(x.message)));
    assert.ok(d.some((x) => /targetSelectorType "yaml" is not allowed/.test(x.message)));
    assert.ok(d.some((x) => /selector type "css" is not allowed/.test(x.message)));
  });

  it('action parameters are 1.1 only, need a workflowId and take no `in`', () => {
    const steps = `      - stepId: a
        operationId: getItem
        onFailure:
          - {name: f, type: goto, workflowId: w, parameters: [{name: x, in: query, value: 1}]}
          - {name: g, type: retry, parameters: [{name: y, value: 1}]}
`;
    const d = errors(validate(doc('1.1.0', steps)));
    assert.ok(d.some((x) => x.pointer === '/workflows/0/steps/0/onFailure/0/parameters/0/in'));
    assert.ok(d.some((x) => x.pointer === '/workflows/0/steps/0/onFailure/1/parameters' && /no workflowId/.test(x.message)));
    assert.ok(errors(validate(doc('1.0.1', steps))).some((x) => x.code === 'requires-1.1'));
  });
});
