import { describe, it } from 'node:test';
import { strict as assert } from 'node:assert';
import { compileInputs } from './inputs.js';

describe('workflow inputs', () => {
  it('applies defaults on a copy and names each failing input with its rule', () => {
    const validate = compileInputs({ type: 'object', required: ['name'], properties: { name: { type: 'string' }, n: { type: 'integer', default: 3 }, mode: { enum: ['a', 'b'] } } }, undefined, 'wf');
    const given = { name: 'x' };
    assert.deepEqual(validate(given), { name: 'x', n: 3 });
    assert.deepEqual(given, { name: 'x' }, "the caller's object is not changed");
    assert.throws(() => validate({ n: 'three', mode: 'c' }), (e: unknown) => {
      const m = (e as Error).message;
      return (e as { code?: string }).code === 'E_INPUTS' && /input "name": is required/.test(m) && /input "n": must be integer/.test(m) && /input "mode": must be equal to one of the allowed values \("a", "b"\)/.test(m);
    });
  });

  it('resolves $ref to #/components/inputs and honours draft-07 schemas', () => {
    const components = { inputs: { page: { type: 'object', properties: { size: { type: 'integer', minimum: 1 } } } } };
    const validate = compileInputs({ $ref: '#/components/inputs/page' }, components, 'wf');
    assert.deepEqual(validate({ size: 2 }), { size: 2 });
    assert.throws(() => validate({ size: 0 }), /input "size": must be >= 1/);
    const draft7 = compileInputs({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { list: { type: 'array', items: [{ type: 'string' }] } } }, undefined, 'wf');
    assert.throws(() => draft7({ list: [1] }), /input "list\[0\]": must be string/);
  });

  it('passes inputs through when the workflow declares no schema', () => {
    assert.deepEqual(compileInputs(undefined, undefined, 'wf')({ any: 1 }), { any: 1 });
  });
});
