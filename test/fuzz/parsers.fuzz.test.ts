// Property-based fuzzing of the Arazzo document loader and the expression and criteria parsers:
// whatever the text, they return a value or throw a typed ArazzoError; never a crash (TypeError,
// RangeError, stack overflow) or a hang. See docs/reliability.md, "Fuzzing".
// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { LineCounter, parseDocument } from 'yaml';
import { parseDocumentText } from '../../src/arazzo/document/parse-document.js';
import { parseRuntimeExpression } from '../../src/arazzo/expressions/parse-runtime-expression.js';
import { parseSimpleCondition } from '../../src/arazzo/criteria/simple-condition.js';
import { LONG, budget, growthRatio, typedOrOk } from './settings.js';

// Pieces the parsers care about, so random text often gets deep into them.
const EXPR_PIECES = ['$', 'url', 'method', 'statusCode', 'request', 'response', '.header.', '.query.', '.path.', '.body', '#/', '/', '~0', '~1', 'inputs', 'outputs', 'steps', 'workflows', 'sourceDescriptions', 'components', '.', '{', '}', 'a', 'x-y', '0', ' ', '%', '\u00e9'];
const COND_PIECES = [...EXPR_PIECES, '==', '!=', '<', '<=', '>', '>=', '&&', '||', '!', '(', ')', '[', ']', "'", '"', 'true', 'false', 'null', '1', '-2.5e3', ','];
const YAML_PIECES = ['arazzo: 1.0.1\n', 'info:\n', '  title: t\n', '  version: "1"\n', 'workflows:\n', '  - workflowId: w\n', '    steps:\n', '      - stepId: s\n', '&a ', '*a', '<<: ', '[', ']', '{', '}', '- ', ': ', '"', "'", '\t', '\n', '  ', '#', '!!binary ', '!!str ', '? ', '|', '>', '---\n', '...\n', '\u0000', '\ufeff'];

const fromPieces = (pieces: string[]) => fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((p) => p.join(''));

test('runtime expressions: any text parses or throws E_EXPRESSION', () => {
  fc.assert(fc.property(fc.oneof(fromPieces(EXPR_PIECES), fc.string({ unit: 'grapheme' })), (text) => {
    try {
      const parsed = parseRuntimeExpression(text);
      assert.equal(parsed.text, text);
    } catch (err) {
      assert.equal((err as { code?: string }).code, 'E_EXPRESSION', String(err));
    }
  }), budget());
});

test('simple conditions: any text parses or throws E_CRITERION / E_EXPRESSION', () => {
  fc.assert(fc.property(fc.oneof(fromPieces(COND_PIECES), fc.string()), (text) => {
    try {
      parseSimpleCondition(text);
    } catch (err) {
      assert.ok(['E_CRITERION', 'E_EXPRESSION'].includes((err as { code?: string }).code ?? ''), String(err));
    }
  }), budget());
});

test('deep nesting in a condition is refused with E_CRITERION, never a stack overflow', () => {
  assert.deepEqual(parseSimpleCondition(`${'('.repeat(10)}$statusCode == 200${')'.repeat(10)}`).kind, 'compare');
  for (const depth of [1_000, 100_000]) {
    assert.throws(() => parseSimpleCondition(`${'('.repeat(depth)}$statusCode == 200${')'.repeat(depth)}`), (e: Error & { code?: string }) => e.code === 'E_CRITERION' && /nested/.test(e.message));
    assert.throws(() => parseSimpleCondition(`${'!'.repeat(depth)}true`), (e: Error & { code?: string }) => e.code === 'E_CRITERION');
  }
});

test('documents: any YAML/JSON text loads or throws E_DOCUMENT_PARSE', () => {
  fc.assert(fc.property(fc.oneof(fromPieces(YAML_PIECES), fc.string(), fc.json()), fc.boolean(), (text, json) => {
    try {
      parseDocumentText(text, json ? '/fuzz/doc.json' : '/fuzz/doc.yaml');
    } catch (err) {
      assert.equal((err as { code?: string }).code, 'E_DOCUMENT_PARSE', String(err));
    }
  }), budget());
});

test('documents: alias bombs and deep nesting are refused with E_DOCUMENT_PARSE, not expanded', () => {
  // The "billion laughs": each level refers to the previous one ten times.
  let bomb = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
  for (let i = 1; i < 12; i++) bomb += `a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]\n`;
  assert.throws(() => parseDocumentText(bomb, '/fuzz/bomb.yaml'), (e: Error & { code?: string }) => e.code === 'E_DOCUMENT_PARSE');
  for (const depth of [1_000, 50_000]) {
    typedOrOk(() => parseDocumentText(`${'['.repeat(depth)}${']'.repeat(depth)}`, '/fuzz/deep.json'));
    typedOrOk(() => parseDocumentText(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`, '/fuzz/deep.json'));
  }
  assert.throws(() => parseDocumentText('x'.repeat(6 * 1024 * 1024), '/fuzz/huge.yaml'), /larger than the/);
});

test('growth: parsing 8× longer input costs about 8× (npm run fuzz only)', { skip: !LONG && 'timing runs in `npm run fuzz`, not the unit suite' }, () => {
  const cond = growthRatio((n) => parseSimpleCondition(Array.from({ length: n }, (_v, i) => `$statusCode == ${i}`).join(' || ')), 500);
  const expr = growthRatio((n) => typedOrOk(() => parseRuntimeExpression(`$response.body#/${'a/'.repeat(n)}b`)), 2_000);
  // The document loader is measured against the yaml library it builds on: what it adds (positions,
  // key checks) must not grow faster than the parse itself.
  const yamlText = (n: number) => `list:\n${'  - {a: 1, b: [x, y]}\n'.repeat(n)}`;
  const doc = growthRatio((n) => parseDocumentText(yamlText(n), '/fuzz/big.yaml'), 1_000);
  const lib = growthRatio((n) => parseDocument(yamlText(n), { lineCounter: new LineCounter(), uniqueKeys: true }).toJS(), 1_000);
  process.stdout.write(`# growth ratios for 8x input: condition ${cond.toFixed(1)}, expression ${expr.toFixed(1)}, document ${doc.toFixed(1)} (yaml library alone ${lib.toFixed(1)})\n`);
  for (const ratio of [cond, expr]) assert.ok(ratio < 48, `super-linear: ${ratio.toFixed(1)}× for 8× input`);
  assert.ok(doc < lib * 3, `the loader grows faster than the yaml parse: ${doc.toFixed(1)}× vs ${lib.toFixed(1)}×`);
});
