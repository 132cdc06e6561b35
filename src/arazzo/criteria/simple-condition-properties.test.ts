// Property-based tests for simple conditions: random conditions over literals agree with a
// reference evaluator that works on the generated JS values, and arbitrary text only ever makes
// the parser throw ArazzoError.
// Real parts: none (the code under test, in this process).

import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { emptyContext } from '../context.js';
import { ArazzoError } from '../errors.js';
import { evaluateCriterion } from './evaluate-criterion.js';
import { parseSimpleCondition } from './simple-condition.js';

type Value = null | boolean | number | string;
type Tree =
  | { op: 'lit'; value: Value; viaInput?: boolean }
  | { op: 'absent' }
  | { op: '!'; operand: Tree }
  | { op: '&&' | '||'; left: Tree; right: Tree }
  | { op: '<' | '<=' | '>' | '>=' | '==' | '!='; left: Tree; right: Tree };

// --- reference semantics, table-driven over a canonical form of each value ---

type Canonical = { kind: 'null' } | { kind: 'bool'; b: boolean } | { kind: 'num'; n: number } | { kind: 'text'; s: string; n?: number };

function canonical(v: unknown): Canonical {
  if (v === null || v === undefined) return { kind: 'null' };
  if (typeof v === 'boolean') return { kind: 'bool', b: v };
  if (typeof v === 'number') return { kind: 'num', n: v };
  const s = String(v);
  const numeric = /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/.test(s);
  return numeric ? { kind: 'text', s: s.toLowerCase(), n: parseFloat(s) } : { kind: 'text', s: s.toLowerCase() };
}

function referenceEquals(a: unknown, b: unknown): boolean {
  const x = canonical(a);
  const y = canonical(b);
  const pair = `${x.kind}/${y.kind}`;
  switch (pair) {
    case 'null/null': return true;
    case 'bool/bool': return (x as { b: boolean }).b === (y as { b: boolean }).b;
    case 'num/num': return (x as { n: number }).n === (y as { n: number }).n;
    case 'num/text': return (y as { n?: number }).n === (x as { n: number }).n;
    case 'text/num': return (x as { n?: number }).n === (y as { n: number }).n;
    case 'text/text': return (x as { s: string }).s === (y as { s: string }).s;
    case 'bool/text': return (y as { s: string }).s === ((x as { b: boolean }).b ? 'true' : 'false');
    case 'text/bool': return (x as { s: string }).s === ((y as { b: boolean }).b ? 'true' : 'false');
    default: return false;
  }
}

/** -1/0/1 or null when unordered. */
function referenceOrder(a: unknown, b: unknown): number | null {
  const x = canonical(a);
  const y = canonical(b);
  const xn = x.kind === 'num' ? x.n : x.kind === 'text' && y.kind === 'num' ? x.n : undefined;
  const yn = y.kind === 'num' ? y.n : y.kind === 'text' && x.kind === 'num' ? y.n : undefined;
  if (x.kind === 'num' || y.kind === 'num') return xn === undefined || yn === undefined ? null : Math.sign(xn - yn);
  if (x.kind === 'text' && y.kind === 'text') return x.s === y.s ? 0 : x.s < y.s ? -1 : 1;
  return null;
}

const truthy = (v: unknown): boolean => !(v === null || v === undefined || v === false || v === 0 || v === '');

function reference(tree: Tree): unknown {
  switch (tree.op) {
    case 'lit': return tree.value;
    case 'absent': return undefined;
    case '!': return !truthy(reference(tree.operand));
    case '&&': return [tree.left, tree.right].every((t) => truthy(reference(t)));
    case '||': return [tree.left, tree.right].some((t) => truthy(reference(t)));
    case '==': return referenceEquals(reference(tree.left), reference(tree.right));
    case '!=': return !referenceEquals(reference(tree.left), reference(tree.right));
    default: {
      const o = referenceOrder(reference(tree.left), reference(tree.right));
      if (o === null) return false;
      return { '<': o < 0, '<=': o <= 0, '>': o > 0, '>=': o >= 0 }[tree.op];
    }
  }
}

// --- printing with only the parentheses precedence needs (plus some redundant ones) ---

const PRECEDENCE = { '||': 1, '&&': 2, cmp: 3, '!': 4, lit: 5 } as const;
const precedence = (t: Tree): number => (t.op === 'lit' || t.op === 'absent' ? 5 : t.op === '!' ? 4 : t.op === '&&' ? 2 : t.op === '||' ? 1 : PRECEDENCE.cmp);

function literalText(v: Value): string {
  if (typeof v === 'string') return `'${v.replace(/'/g, "''")}'`;
  return String(v);
}

/** Literal leaves marked viaInput are written as `$inputs.vN` and stored in `inputs`. */
function print(tree: Tree, extraParens: boolean[], inputs: Record<string, unknown>): string {
  const wrap = (child: Tree, min: number): string => {
    const text = print(child, extraParens, inputs);
    const forced = precedence(child) < min;
    const extra = extraParens.shift() ?? false;
    return forced || extra ? `(${text})` : text;
  };
  switch (tree.op) {
    case 'lit': {
      if (!tree.viaInput) return literalText(tree.value);
      const name = `v${Object.keys(inputs).length}`;
      inputs[name] = tree.value;
      return `$inputs.${name}`;
    }
    case 'absent': return '$inputs.missing';
    case '!': return `!${wrap(tree.operand, 4)}`;
    case '&&': return `${wrap(tree.left, 2)} && ${wrap(tree.right, 3)}`;
    case '||': return `${wrap(tree.left, 1)} || ${wrap(tree.right, 2)}`;
    default: return `${wrap(tree.left, 4)} ${tree.op} ${wrap(tree.right, 4)}`;
  }
}

const literal: fc.Arbitrary<Value> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -50, max: 50 }),
  fc.integer({ min: -5000, max: 5000 }).map((n) => n / 100),
  fc.string({ unit: fc.constantFrom('a', 'A', 'b', '1', '0', "'", ' ', 'é', 'É', 'true', 'TRUE', 'false', '.'), maxLength: 4 }),
);

const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(literal, fc.boolean()).map(([value, viaInput]): Tree => ({ op: 'lit', value, viaInput })),
    fc.constant<Tree>({ op: 'absent' }),
    tie('tree').map((operand): Tree => ({ op: '!', operand })),
    fc.record({ op: fc.constantFrom('&&' as const, '||' as const), left: tie('tree'), right: tie('tree') }),
    fc.record({ op: fc.constantFrom('<' as const, '<=' as const, '>' as const, '>=' as const, '==' as const, '!=' as const), left: tie('tree'), right: tie('tree') }),
  ),
})).tree;

describe('simple condition properties', () => {
  it('agrees with the reference evaluator on random conditions over literals and $inputs values', () => {
    fc.assert(fc.property(tree, fc.array(fc.boolean(), { maxLength: 40 }), (t, parens) => {
      const inputs: Record<string, unknown> = {};
      const text = print(t, parens, inputs);
      const expected = truthy(reference(t));
      const result = evaluateCriterion({ condition: text }, { ...emptyContext(), inputs });
      assert.equal(result.passed, expected, text);
    }), { numRuns: 2000 });
  });

  it('never throws anything but ArazzoError on arbitrary text', () => {
    const tokens = fc.constantFrom('$statusCode', '$response.body#/a', '$inputs.x', "'s'", "'", '(', ')', '[', ']', '.', '!', '&&', '||', '==', '<', '>=', '1', '-2.5', 'true', 'null', ' ', '$', '#', '[0]');
    const tokenSoup = fc.array(tokens, { maxLength: 12 }).map((parts) => parts.join(''));
    fc.assert(fc.property(fc.oneof(fc.string({ maxLength: 30 }), tokenSoup), (text) => {
      try {
        parseSimpleCondition(text);
      } catch (error) {
        if (!(error instanceof ArazzoError)) assert.fail(`"${text}" threw ${String(error)}`);
        assert.equal(error.code, 'E_CRITERION');
      }
    }), { numRuns: 2000 });
  });
});

describe('criteria never throw for data problems', () => {
  const criteria = [
    { condition: "$statusCode == 200 && $response.body#/a/0 != 'x' || $response.body#/b[1].c > 3" },
    { condition: '!$response.body' },
    { context: '$response.body', condition: '^\\{', type: 'regex' as const },
    { context: '$response.body', condition: '$[?count(@.pets) > 0]', type: 'jsonpath' as const },
    { context: '$response.body', condition: "$.a.b == 'x'", type: 'jsonpath' as const },
    { context: '$response.body', condition: '$..a', type: { type: 'jsonpath' as const, version: 'draft-goessner-dispatch-jsonpath-00' } },
    { context: '$response.body', condition: '//a[@b > 1]', type: 'xpath' as const },
  ];
  it('evaluates every criterion type against arbitrary response bodies without throwing', () => {
    const body = fc.oneof(fc.jsonValue(), fc.string(), fc.constant('<a b="2"><a/></a>'), fc.constant(undefined));
    fc.assert(fc.property(body, fc.integer({ min: 100, max: 599 }), (value, statusCode) => {
      const ctx = {
        ...emptyContext(),
        exchange: { url: 'http://127.0.0.1/', method: 'GET', request: { headers: {}, query: {}, path: {} }, response: { statusCode, headers: {}, body: value } },
      };
      for (const criterion of criteria) {
        const result = evaluateCriterion(criterion, ctx);
        assert.equal(typeof result.passed, 'boolean');
        if (!result.passed) assert.equal(typeof result.message, 'string');
      }
    }), { numRuns: 300 });
  });
});
