// Real parts: none (the code under test, in this process).
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { emptyContext, type ExpressionContext } from '../context.js';
import { ArazzoError } from '../errors.js';
import { findExpressions, findInvalidExpressions, resolveValue } from './resolve-value.js';

const ctx: ExpressionContext = {
  ...emptyContext(),
  inputs: { connectorName: 'orders-sink', count: 3, enabled: false, offsets: [{ partition: 0, offset: 10 }], nothing: null },
  steps: { snapshot: { outputs: { id: 'snap-1' } } },
};

describe('resolveValue: whole-value expressions keep their type', () => {
  it('keeps numbers, booleans, null, arrays and objects', () => {
    assert.equal(resolveValue('$inputs.count', ctx), 3);
    assert.equal(resolveValue('$inputs.enabled', ctx), false);
    assert.equal(resolveValue('$inputs.nothing', ctx), null);
    assert.deepEqual(resolveValue('$inputs.offsets', ctx), [{ partition: 0, offset: 10 }]);
    assert.deepEqual(resolveValue('$inputs.offsets#/0', ctx), { partition: 0, offset: 10 });
  });

  it('gives undefined for an absent value', () => {
    assert.equal(resolveValue('$inputs.missing', ctx), undefined);
  });
});

describe('resolveValue: embedded {$...} expressions are interpolated', () => {
  it('embeds strings as-is, numbers and booleans as text, objects as JSON, absent as empty', () => {
    assert.equal(resolveValue('connector {$inputs.connectorName} has {$inputs.count} tasks', ctx), 'connector orders-sink has 3 tasks');
    assert.equal(resolveValue('enabled={$inputs.enabled}', ctx), 'enabled=false');
    assert.equal(resolveValue('offsets={$inputs.offsets}', ctx), 'offsets=[{"partition":0,"offset":10}]');
    assert.equal(resolveValue('[{$inputs.missing}]', ctx), '[]');
    assert.equal(resolveValue('{$inputs.nothing}', ctx), 'null');
  });

  it('makes a braced whole string a string, not a typed value', () => {
    assert.equal(resolveValue('{$inputs.count}', ctx), '3');
  });

  it('builds operationPath-like strings with pointers inside braces', () => {
    const withSource: ExpressionContext = { ...ctx, sourceDescriptions: { connect: { url: './connect.yaml' } } };
    assert.equal(resolveValue('{$sourceDescriptions.connect.url}#/paths/~1connectors/get', withSource), './connect.yaml#/paths/~1connectors/get');
  });
});

describe('resolveValue: literals and escapes', () => {
  it('leaves strings that are not expressions alone', () => {
    for (const text of ['$5.00', '$HOME', 'plain', '{"json": true}', '{$notARoot}', '$statusCode == 200', 'a { $inputs.count }']) {
      assert.equal(resolveValue(text, ctx), text);
    }
  });

  it('turns a leading $$ into a literal $ and {$$ into a literal {$', () => {
    assert.equal(resolveValue('$$inputs.count', ctx), '$inputs.count');
    assert.equal(resolveValue('cost: {$$inputs.count} = {$inputs.count}', ctx), 'cost: {$inputs.count} = 3');
    assert.equal(resolveValue('$$ and {$inputs.count}', ctx), '$ and 3');
  });

  it('refuses text meant as an expression that does not parse', () => {
    for (const text of ['$inputs.connector name', '$inputs.', 'a {$inputs.count b}', 'open {$inputs.count']) {
      assert.throws(() => resolveValue(text, ctx), (e: unknown) => e instanceof ArazzoError && e.code === 'E_EXPRESSION', text);
    }
  });
});

describe('resolveValue: deep structures', () => {
  it('resolves values in nested objects and arrays and leaves keys alone', () => {
    const payload = { '$inputs.count': '$inputs.count', offsets: [{ offset: '$inputs.offsets#/0/offset', note: 'from {$steps.snapshot.outputs.id}' }], n: 1, t: true, z: null };
    assert.deepEqual(resolveValue(payload, ctx), { '$inputs.count': 3, offsets: [{ offset: 10, note: 'from snap-1' }], n: 1, t: true, z: null });
  });

  it('does not mutate the input', () => {
    const payload = { a: ['$inputs.count'] };
    resolveValue(payload, ctx);
    assert.deepEqual(payload, { a: ['$inputs.count'] });
  });

  it('keeps a __proto__ key as a plain key', () => {
    const payload = JSON.parse('{"__proto__": {"polluted": "$inputs.count"}}') as unknown;
    const resolved = resolveValue(payload, ctx) as Record<string, unknown>;
    assert.deepEqual(Object.keys(resolved), ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(resolved), Object.prototype);
  });
});

describe('findExpressions', () => {
  it('lists whole-value and embedded expressions, not keys or literals', () => {
    const found = findExpressions({
      '$inputs.key': 'x',
      value: '$inputs.connectorName',
      list: ['a {$steps.snapshot.outputs.id} b {$inputs.count}', '$$inputs.escaped', '$5', 7],
    });
    assert.deepEqual(found.sort(), ['$inputs.connectorName', '$inputs.count', '$steps.snapshot.outputs.id'].sort());
  });

  it('includes broken expressions so a validator can report them', () => {
    assert.deepEqual(findExpressions(['$inputs.a b', 'x {$inputs.c d} y']).sort(), ['$inputs.a b', '$inputs.c d']);
    const errors = findInvalidExpressions({ a: '$inputs.a b', b: 'x {$response.body#/a', c: '$inputs.ok' });
    assert.equal(errors.length, 2);
    assert.match(errors[0]?.message ?? '', /at character 10/);
    assert.match(errors[1]?.message ?? '', /expected '}'/);
  });
});
