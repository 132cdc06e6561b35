// Real parts: none (the code under test, in this process).
import { describe, it } from 'node:test';
import { strict as assert } from 'node:assert';
import { ArazzoError } from '../errors.js';
import { bodyKind, compileBody, formEncode, parseFormPayload, setPointer } from './request-body.js';

describe('request bodies', () => {
  it('setPointer copies only the containers on the path and leaves the original alone', () => {
    const shared = { big: [1, 2, 3] };
    const root = { a: { b: 1 }, shared };
    const out = setPointer(root, '/a/b', 2, 'here') as typeof root;
    assert.deepEqual(out, { a: { b: 2 }, shared });
    assert.equal(root.a.b, 1);
    assert.equal(out.shared, shared, 'untouched branches are shared, not cloned');
    assert.deepEqual(setPointer({ l: [1] }, '/l/-', 2, 'here'), { l: [1, 2] });
    assert.deepEqual(setPointer({ 'a/b': { '~': 0 } }, '/a~1b/~0', 1, 'here'), { 'a/b': { '~': 1 } });
    assert.equal(setPointer({ a: 1 }, '', 'whole', 'here'), 'whole');
  });

  it('setPointer refuses targets that do not exist or are not pointers, naming the step', () => {
    assert.throws(() => setPointer({}, '/missing/x', 1, 'step "s"'), (e: unknown) => e instanceof ArazzoError && e.code === 'E_REQUEST' && /step "s".*"missing"/.test(e.message));
    assert.throws(() => setPointer({}, 'nope', 1, 'step "s"'), /must start with "\/"/);
    assert.throws(() => setPointer({ l: [] }, '/l/5', 1, 'step "s"'), /not an index/);
  });

  it('content types pick the serialization; the operation type is the default', () => {
    assert.equal(bodyKind('application/vnd.api+json; charset=utf-8'), 'json');
    assert.equal(bodyKind('application/x-www-form-urlencoded'), 'form');
    assert.equal(bodyKind('text/xml'), 'xml');
    assert.equal(bodyKind('text/plain'), 'text');
    assert.equal(compileBody({ payload: {} }, ['application/merge-patch+json']).contentType, 'application/merge-patch+json');
    assert.equal(compileBody({ payload: 'x' }, undefined).contentType, 'text/plain');
    assert.equal(compileBody({ payload: {} }, undefined).contentType, 'application/json');
  });

  it('form text parses to strings, a repeated key to an array, __proto__ to a plain key', () => {
    assert.deepEqual(parseFormPayload('a=1&location=x+y&list=1&list=2&empty='), { a: '1', location: 'x y', list: ['1', '2'], empty: '' });
    const odd = parseFormPayload('__proto__=p&b=%26');
    assert.deepEqual(Object.keys(odd), ['__proto__', 'b']);
    assert.equal(Object.getPrototypeOf(odd), Object.prototype);
    assert.equal(formEncode(parseFormPayload('a=1&list=1&list=2')), 'a=1&list=1&list=2', 'round trip');
  });

  it('form encoding repeats array keys and sends nested values as JSON', () => {
    assert.equal(formEncode({ a: 'x y', list: [1, 2], obj: { k: 1 }, skip: undefined }), 'a=x+y&list=1&list=2&obj=%7B%22k%22%3A1%7D');
  });
});
