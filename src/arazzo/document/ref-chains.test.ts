// Inputs schemas whose `$ref`s only point at the next `$ref`: a loop describes no value and a long
// chain overflows the schema compiler's stack, so validation refuses both by name
// (validate-references.ts); a chain at the limit is fine. docs/bad-input.md, "Workflow documents".
// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileInputs } from '../runner/inputs.js';
import { parseDocumentText, validateArazzo } from './index.js';

function doc(inputs: Record<string, unknown>): string {
  return JSON.stringify({
    arazzo: '1.0.1', info: { title: 't', version: '1' },
    sourceDescriptions: [{ name: 'api', url: './api.yaml', type: 'openapi' }],
    workflows: [{ workflowId: 'w', inputs: { $ref: '#/components/inputs/d0' }, steps: [{ stepId: 's', operationId: 'op' }] }],
    components: { inputs },
  });
}

function chain(n: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) out[`d${i}`] = { $ref: `#/components/inputs/d${i + 1}` };
  out[`d${n}`] = { type: 'object', properties: { connectorName: { type: 'string' } } };
  return out;
}

const chainErrors = (text: string) => validateArazzo(parseDocumentText(text, '/tmp/refs.arazzo.json')).filter((d) => d.code === 'ref-chain');

test('a loop of $ref-only schemas is refused, the loop named', () => {
  const errors = chainErrors(doc({ d0: { $ref: '#/components/inputs/d1' }, d1: { $ref: '#/components/inputs/d0' } }));
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.pointer, '/workflows/0/inputs/$ref');
  assert.match(errors[0]?.message ?? '', /refers to itself in a loop \(#\/components\/inputs\/d0 → #\/components\/inputs\/d1 → #\/components\/inputs\/d0\)/);
});

// How fast the refusal comes is the benchmark's business, not a timed test's (a loaded machine took
// 11.5 s once); this test holds the behaviour: refused by name, without a stack overflow.
test('a chain of 10 000 is refused; 64 links are accepted and compile', () => {
  assert.match(chainErrors(doc(chain(10_000)))[0]?.message ?? '', /more than 64 schemas/);
  assert.deepEqual(chainErrors(doc(chain(63))), []);
  const parsed = JSON.parse(doc(chain(63))) as { workflows: Array<{ inputs: unknown }>; components: { inputs: Record<string, unknown> } };
  const validate = compileInputs(parsed.workflows[0]?.inputs, { inputs: parsed.components.inputs } as never, 'w');
  assert.deepEqual(validate({ connectorName: 'x' }), { connectorName: 'x' });
  assert.throws(() => validate({ connectorName: 7 }), /connectorName/);
});
