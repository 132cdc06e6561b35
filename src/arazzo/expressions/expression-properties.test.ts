// Property-based tests: random ASTs survive print → parse, and no input makes the parser throw
// anything but ArazzoError.
// Real parts: none (the code under test, in this process).

import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { ArazzoError } from '../errors.js';
import type { RuntimeExpression } from './ast.js';
import { escapeJsonPointerToken } from './json-pointer.js';
import { EXPRESSION_ROOTS, parseRuntimeExpression, scanRuntimeExpression } from './parse-runtime-expression.js';
import { printRuntimeExpression } from './print-runtime-expression.js';
import { findExpressions, resolveValue } from './resolve-value.js';
import { emptyContext } from '../context.js';

const idChars = fc.constantFrom(...'abcXYZ019_-'.split(''));
const id = fc.string({ unit: idChars, minLength: 1, maxLength: 8 });
const nameSegment = fc.string({ unit: fc.constantFrom(...'abZ09_-é'.split('')), minLength: 1, maxLength: 6 });
const dottedName = fc.array(nameSegment, { minLength: 1, maxLength: 3 }).map((segments) => segments.join('.'));
const headerToken = fc.string({ unit: fc.constantFrom(...("!#$%&'*+-.^_`|~aZ09").split('')), minLength: 1, maxLength: 10 });
const pointer = fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }).map((tokens) => tokens.map((t) => `/${escapeJsonPointerToken(t)}`).join(''));
const optional = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined });

function clean<T extends object>(node: T): T {
  return Object.fromEntries(Object.entries(node).filter(([, v]) => v !== undefined)) as T;
}

type Parts = RuntimeExpression extends infer T ? (T extends unknown ? Omit<T, 'text'> : never) : never;

const expressionParts: fc.Arbitrary<Parts> = fc.oneof(
  fc.constantFrom<Parts>({ root: 'url' }, { root: 'method' }, { root: 'statusCode' }),
  fc.record({ root: fc.constantFrom('request' as const, 'response' as const), source: fc.constant('header' as const), name: headerToken }),
  fc.record({ root: fc.constantFrom('request' as const, 'response' as const), source: fc.constantFrom('query' as const, 'path' as const), name: dottedName }),
  fc.record({ root: fc.constantFrom('request' as const, 'response' as const), source: fc.constant('body' as const), pointer: optional(pointer) }).map(clean),
  fc.record({ root: fc.constantFrom('inputs' as const, 'outputs' as const), name: dottedName, pointer: optional(pointer) }).map(clean),
  fc.record({ root: fc.constant('steps' as const), stepId: id, field: fc.constant('outputs'), name: optional(dottedName), pointer: optional(pointer) }).map(clean),
  fc.record({ root: fc.constant('workflows' as const), workflowId: id, field: fc.constantFrom('inputs', 'outputs'), name: optional(dottedName), pointer: optional(pointer) }).map(clean),
  fc.record({ root: fc.constant('sourceDescriptions' as const), name: id, field: optional(dottedName) }).map(clean),
  fc.record({ root: fc.constant('components' as const), kind: fc.constantFrom('inputs', 'parameters', 'successActions', 'failureActions'), name: optional(dottedName), pointer: optional(pointer) }).map(clean),
);

const expression: fc.Arbitrary<RuntimeExpression> = expressionParts.map((parts) => {
  const node = { ...parts, text: '' } as RuntimeExpression;
  return { ...node, text: printRuntimeExpression(node) };
});

function onlyArazzoErrors(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    if (!(error instanceof ArazzoError)) assert.fail(`threw ${String(error)}`);
    assert.equal(error.code, 'E_EXPRESSION');
  }
}

describe('runtime expression properties', () => {
  it('print → parse gives back the same AST', () => {
    fc.assert(fc.property(expression, (expr) => {
      assert.deepEqual(parseRuntimeExpression(expr.text), expr);
    }), { numRuns: 500 });
  });

  it('an embedded expression without } or spaces in its pointer scans to the same AST', () => {
    fc.assert(fc.property(expression.filter((e) => !/[}]/.test(e.text)), fc.string({ maxLength: 5 }), (expr, prefix) => {
      const text = `${prefix}{${expr.text}}`;
      const scanned = scanRuntimeExpression(text, prefix.length + 1, 'embedded');
      assert.deepEqual(scanned.expression, expr);
      assert.equal(text[scanned.end], '}');
    }), { numRuns: 300 });
  });

  it('never throws anything but ArazzoError on arbitrary strings', () => {
    const rootPrefixed = fc.tuple(fc.constantFrom(...EXPRESSION_ROOTS), fc.string({ maxLength: 20 })).map(([root, rest]) => `$${root}${rest}`);
    fc.assert(fc.property(fc.oneof(fc.string({ maxLength: 30 }), rootPrefixed, fc.string({ unit: 'binary', maxLength: 30 })), (text) => {
      onlyArazzoErrors(() => parseRuntimeExpression(text));
      onlyArazzoErrors(() => resolveValue(text, emptyContext()));
      findExpressions(text);
    }), { numRuns: 1000 });
  });
});
