// The OpenAPI "Style Examples" table, value by value.
// Real parts: none (the code under test, in this process).
import { describe, it } from 'node:test';
import { strict as assert } from 'node:assert';
import { serializeCookie, serializeHeader, serializePath, serializeQuery, styleFor } from './serialize-parameter.js';

const color = { R: 100, G: 200, B: 150 };
const colors = ['blue', 'black', 'brown'];

describe('OpenAPI parameter serialization', () => {
  it('path: simple, label and matrix with and without explode', () => {
    const p = (style: string, explode: boolean) => styleFor('color', 'path', { style, explode });
    assert.equal(serializePath(p('simple', false), 'blue'), 'blue');
    assert.equal(serializePath(p('simple', false), colors), 'blue,black,brown');
    assert.equal(serializePath(p('simple', false), color), 'R,100,G,200,B,150');
    assert.equal(serializePath(p('simple', true), color), 'R=100,G=200,B=150');
    assert.equal(serializePath(p('label', false), 'blue'), '.blue');
    assert.equal(serializePath(p('label', false), colors), '.blue,black,brown');
    assert.equal(serializePath(p('label', true), colors), '.blue.black.brown');
    assert.equal(serializePath(p('label', true), color), '.R=100.G=200.B=150');
    assert.equal(serializePath(p('matrix', false), 'blue'), ';color=blue');
    assert.equal(serializePath(p('matrix', false), colors), ';color=blue,black,brown');
    assert.equal(serializePath(p('matrix', true), colors), ';color=blue;color=black;color=brown');
    assert.equal(serializePath(p('matrix', false), color), ';color=R,100,G,200,B,150');
    assert.equal(serializePath(p('matrix', true), color), ';R=100;G=200;B=150');
  });

  it('path values are percent-encoded strictly (RFC 3986), reserved characters included', () => {
    assert.equal(serializePath(styleFor('id', 'path'), "a/b c?d#e!'()*"), 'a%2Fb%20c%3Fd%23e%21%27%28%29%2A');
  });

  it('query: form (default explode), spaceDelimited, pipeDelimited, deepObject', () => {
    const q = (style?: string, explode?: boolean) => styleFor('color', 'query', { ...(style ? { style } : {}), ...(explode === undefined ? {} : { explode }) });
    assert.deepEqual(serializeQuery(q(), 'blue'), ['color=blue']);
    assert.deepEqual(serializeQuery(q(), colors), ['color=blue', 'color=black', 'color=brown']);
    assert.deepEqual(serializeQuery(q(), color), ['R=100', 'G=200', 'B=150']);
    assert.deepEqual(serializeQuery(q('form', false), colors), ['color=blue,black,brown']);
    assert.deepEqual(serializeQuery(q('form', false), color), ['color=R,100,G,200,B,150']);
    assert.deepEqual(serializeQuery(q('spaceDelimited', false), colors), ['color=blue%20black%20brown']);
    assert.deepEqual(serializeQuery(q('pipeDelimited', false), colors), ['color=blue%7Cblack%7Cbrown']);
    assert.deepEqual(serializeQuery(q('deepObject', true), color), ['color%5BR%5D=100', 'color%5BG%5D=200', 'color%5BB%5D=150']);
  });

  it('query: allowReserved keeps reserved characters, still encoding the rest', () => {
    const p = styleFor('next', 'query', { allowReserved: true });
    assert.deepEqual(serializeQuery(p, '/a?b=c d'), ['next=/a?b=c%20d']);
    assert.deepEqual(serializeQuery(styleFor('next', 'query'), '/a?b=c d'), ['next=%2Fa%3Fb%3Dc%20d']);
  });

  it('header: simple, not percent-encoded; cookie: form, encoded', () => {
    assert.equal(serializeHeader(styleFor('X-C', 'header'), colors), 'blue,black,brown');
    assert.equal(serializeHeader(styleFor('X-C', 'header', { explode: true }), color), 'R=100,G=200,B=150');
    assert.equal(serializeHeader(styleFor('X-C', 'header'), 'a b/c'), 'a b/c');
    assert.deepEqual(serializeCookie(styleFor('c', 'cookie'), 'a;b c'), ['c=a%3Bb%20c']);
    assert.deepEqual(serializeCookie(styleFor('c', 'cookie', { explode: false }), [1, 2]), ['c=1,2']);
  });

  it('a parameter described with JSON content is sent as JSON text', () => {
    const p = styleFor('filter', 'query', { content: { 'application/json': {} } });
    assert.deepEqual(serializeQuery(p, { a: 1 }), ['filter=%7B%22a%22%3A1%7D']);
  });
});
