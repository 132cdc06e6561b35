// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ArazzoError } from '../errors.js';
import { loadDocumentFile, parseDocumentText } from './index.js';

function parseError(fn: () => unknown): ArazzoError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ArazzoError) return err;
    throw err;
  }
  return assert.fail('expected an error');
}

test('YAML is parsed and pointers map back to 1-based line and column', () => {
  const text = ['arazzo: 1.0.1', 'workflows:', '  - workflowId: a', '    steps:', '      - stepId: s1', '        operationId: op'].join('\n');
  const doc = parseDocumentText(text, '/tmp/flow.yaml');
  assert.deepEqual(doc.value, { arazzo: '1.0.1', workflows: [{ workflowId: 'a', steps: [{ stepId: 's1', operationId: 'op' }] }] });
  assert.deepEqual(doc.locate('/arazzo'), { line: 1, column: 1 });
  assert.deepEqual(doc.locate('/workflows/0'), { line: 3, column: 5 });
  assert.deepEqual(doc.locate('/workflows/0/steps/0/operationId'), { line: 6, column: 9 });
  assert.equal(doc.locate('/workflows/0/missing'), undefined);
  assert.equal(doc.locate('/workflows/7'), undefined);
});

test('JSON is parsed with positions too', () => {
  const text = '{\n  "arazzo": "1.0.1",\n  "info": {"title": "t", "version": "1"}\n}';
  const doc = parseDocumentText(text, '/tmp/flow.json');
  assert.deepEqual(doc.value, { arazzo: '1.0.1', info: { title: 't', version: '1' } });
  assert.deepEqual(doc.locate('/info/version'), { line: 3, column: 26 });
});

test('pointer tokens with ~1 and ~0 find keys holding / and ~', () => {
  const doc = parseDocumentText('paths:\n  /a/{b}:\n    get: {}\n  x~y: 1\n', '/tmp/o.yaml');
  assert.deepEqual(doc.locate('/paths/~1a~1{b}/get'), { line: 3, column: 5 });
  assert.deepEqual(doc.locate('/paths/x~0y'), { line: 4, column: 3 });
});

test('a syntax error is E_DOCUMENT_PARSE with file, line and column', () => {
  const err = parseError(() => parseDocumentText('arazzo: 1.0.1\ninfo:\n  title: [unclosed\n', '/tmp/bad.yaml'));
  assert.equal(err.code, 'E_DOCUMENT_PARSE');
  assert.equal(err.location?.file, '/tmp/bad.yaml');
  assert.equal(typeof err.location?.line, 'number');
  assert.ok((err.location?.line ?? 0) >= 3, `line ${err.location?.line}`);
  assert.match(err.message, /^\/tmp\/bad\.yaml:\d+:\d+: not valid YAML\/JSON/);
});

test('broken JSON is refused with its position', () => {
  const err = parseError(() => parseDocumentText('{\n  "arazzo": "1.0.1",\n  "info": }\n', '/tmp/bad.json'));
  assert.equal(err.code, 'E_DOCUMENT_PARSE');
  assert.equal(err.location?.line, 3);
  assert.equal(err.location?.column, 11);
  assert.match(err.message, /^\/tmp\/bad\.json:3:11: not valid JSON/);
});

test('duplicate keys are refused and located', () => {
  const err = parseError(() => parseDocumentText('arazzo: 1.0.1\ninfo:\n  title: a\n  title: b\n', '/tmp/dup.yaml'));
  assert.equal(err.code, 'E_DOCUMENT_PARSE');
  assert.match(err.message, /duplicate key/);
  assert.equal(err.location?.line, 4);
});

test('a YAML alias bomb is refused with a clear message', () => {
  const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 9; i++) {
    const prev = String.fromCharCode(96 + i);
    const name = String.fromCharCode(97 + i);
    lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
  }
  const err = parseError(() => parseDocumentText(lines.join('\n'), '/tmp/bomb.yaml'));
  assert.equal(err.code, 'E_DOCUMENT_PARSE');
  assert.match(err.message, /alias bomb/);
});

test('ordinary aliases are fine, even a flat anchor used hundreds of times', () => {
  const doc = parseDocumentText('base: &b {x: 1}\nuse: *b\n', '/tmp/ok.yaml');
  assert.deepEqual(doc.value, { base: { x: 1 }, use: { x: 1 } });
  const many = parseDocumentText('base: &b {x: 1, y: [1, 2]}\nlist:\n' + '  - *b\n'.repeat(500), '/tmp/ok.yaml');
  assert.equal((many.value as { list: unknown[] }).list.length, 500);
});

test('a document over the size limit is refused before parsing', () => {
  const err = parseError(() => parseDocumentText('a: "' + 'x'.repeat(200) + '"', '/tmp/big.yaml', { maxBytes: 100 }));
  assert.equal(err.code, 'E_DOCUMENT_PARSE');
  assert.match(err.message, /larger than the 100-byte limit/);
});

test('loadDocumentFile reads files, refuses big ones, and reports missing ones as E_DOCUMENT_READ', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'offsetctl-doc-'));
  const file = join(dir, 'flow.yaml');
  await writeFile(file, 'arazzo: 1.0.1\n');
  const doc = await loadDocumentFile(file);
  assert.equal(doc.file, file);
  assert.deepEqual(doc.value, { arazzo: '1.0.1' });
  await assert.rejects(loadDocumentFile(file, { maxBytes: 4 }), (err: ArazzoError) => err.code === 'E_DOCUMENT_PARSE');
  await assert.rejects(loadDocumentFile(join(dir, 'nope.yaml')), (err: ArazzoError) => {
    assert.equal(err.code, 'E_DOCUMENT_READ');
    assert.match(err.message, /nope\.yaml: no such file/);
    return true;
  });
});

test('only mappings at the top level, and only string keys', () => {
  assert.match(parseError(() => parseDocumentText('just some text\n', '/tmp/t.yaml')).message, /expected a YAML mapping or JSON object at the top level, found the string/);
  assert.match(parseError(() => parseDocumentText('', '/tmp/t.yaml')).message, /found an empty document/);
  const err = parseError(() => parseDocumentText('a: 1\n? [x, y]\n: 2\n', '/tmp/t.yaml'));
  assert.match(err.message, /keys must be plain strings/);
  assert.equal(err.location?.line, 2);
});
