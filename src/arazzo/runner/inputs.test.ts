// Real parts: none (the code under test, in this process).
import { describe, it } from 'node:test';
import { strict as assert } from 'node:assert';
import { compileInputs } from './inputs.js';
import { isPlainSchema } from './_plain-schema.js';

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

  it('refuses a schema its meta-schema refuses, plain-looking or not, before any request', () => {
    const refused = (schema: unknown): string => {
      try {
        compileInputs(schema, undefined, 'wf');
      } catch (e) {
        assert.equal((e as { code?: string }).code, 'E_DOCUMENT_INVALID');
        return (e as Error).message;
      }
      assert.fail(`expected ${JSON.stringify(schema)} to be refused`);
    };
    assert.match(refused({ type: 'object', required: 'name' }), /inputs schema does not compile: schema is invalid: data\/required must be array/);
    assert.match(refused({ type: 'strin' }), /schema is invalid/);
    assert.match(refused({ type: 'object', properties: { mode: { enum: [] } } }), /enum must have non-empty array/);
    assert.match(refused({ type: 'object', properties: { a: { minLength: -1 } } }), /schema is invalid/);
    assert.match(refused({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', required: 5 }), /schema is invalid/);
  });

  it('skips the meta-schema check only for schemas it cannot refuse', () => {
    assert.equal(isPlainSchema({ type: 'object', required: ['runId'], properties: { runId: { type: 'string', format: 'uuid' }, limit: { default: 1000, minimum: 1 } } }), true);
    for (const schema of [{ type: 'strin' }, { required: 'a' }, { type: ['string', 'string'] }, { pattern: '(' }, { $ref: '#/x' }, { minLength: -1 }, { properties: { a: { oneOf: [] } } }, { enum: [] }, { properties: Object.create({ type: 'string' }) as object }]) {
      assert.equal(isPlainSchema(schema), false, JSON.stringify(schema));
    }
  });
});
