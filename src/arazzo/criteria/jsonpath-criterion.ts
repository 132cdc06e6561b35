// `jsonpath` criteria. RFC 9535 (jsonpath-rfc9535) by default; `draft-goessner-dispatch-jsonpath-00`
// (jsonpath-plus with `eval: false`: filter `?()` and script `()` expressions would run code, so
// they are refused) when the criterion names that version. A query passes when it selects at least
// one node. The spec's own `$[?count(@.pets) > 0]` against an object is also accepted: when a root
// filter selects nothing and the context is not an array, the query is run again on `[context]`.
// A condition that is not a query (`$.connector.state == 'FAILED'`, seen in real documents) is a
// syntax error: validation reports it with the simple condition that says the same
// (`simpleConditionFor`), and at run time it fails, as the spec says it MUST.

import type { JsonValue } from 'jsonpath-rfc9535';
import { ArazzoError } from '../errors.js';
import { loadJsonPathPlus, loadRfc9535, loadRfc9535Parser } from '../_on-demand.js';
import { parseRuntimeExpression } from '../expressions/index.js';
import { findNestedQuantifier } from './regex-criterion.js';
import { parseConditionOperand, type ComparisonOperator } from './simple-condition.js';

export const GOESSNER_VERSION = 'draft-goessner-dispatch-jsonpath-00';
export type JsonPathDialect = 'rfc9535' | 'goessner';

export interface CompiledJsonPath {
  dialect: JsonPathDialect;
  path: string;
}

const OPERATORS: readonly ComparisonOperator[] = ['==', '!=', '<=', '>=', '<', '>'];

/** Finds `path <op> operand` with the operator outside brackets, parentheses and quotes. */
function splitComparison(condition: string): { path: string; operator: ComparisonOperator; operand: string } | undefined {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < condition.length; i++) {
    const ch = condition[i] as string;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '[' || ch === '(') depth++;
    else if (ch === ']' || ch === ')') depth--;
    else if (depth === 0) {
      const operator = OPERATORS.find((op) => condition.startsWith(op, i));
      if (operator) return { path: condition.slice(0, i).trim(), operator, operand: condition.slice(i + operator.length).trim() };
    }
  }
  return undefined;
}

function syntaxError(condition: string, dialect: JsonPathDialect, detail: string): ArazzoError {
  const name = dialect === 'rfc9535' ? 'RFC 9535 JSONPath' : `JSONPath (${GOESSNER_VERSION})`;
  return new ArazzoError('E_CRITERION', `jsonpath condition "${condition}" is not a valid ${name} query: ${detail}`);
}

function checkPath(path: string, dialect: JsonPathDialect, condition: string): void {
  if (dialect === 'rfc9535') {
    try {
      loadRfc9535Parser()(path);
    } catch (error) {
      const at = (error as { location?: { start?: { offset?: number } } }).location?.start?.offset;
      throw syntaxError(condition, dialect, `${at === undefined ? '' : `at character ${at + 1}: `}${(error as Error).message}`);
    }
    // match()/search() run their pattern on JavaScript's backtracking engine: same guard as regex criteria.
    for (const call of path.matchAll(/\b(?:match|search)\s*\([^,]*,\s*(['"])((?:\\.|(?!\1).)*)\1/g)) {
      if (findNestedQuantifier(call[2] ?? '') !== -1) {
        throw syntaxError(condition, dialect, `the pattern '${call[2]}' repeats a group that itself repeats (nested quantifiers can take exponential time); rewrite it`);
      }
    }
    return;
  }
  if (!path.startsWith('$')) throw syntaxError(condition, dialect, "a query starts with '$'");
  if (/\[\s*\??\s*\(/.test(path.replace(/'[^']*'|"[^"]*"/g, "''"))) {
    throw syntaxError(condition, dialect, 'filter ?() and script () expressions are disabled because they would run code; omit the version to use RFC 9535 filters like $[?@.state == \'FAILED\']');
  }
}

/** Checks the syntax once; throws ArazzoError('E_CRITERION'). */
export function compileJsonPathCondition(condition: string, dialect: JsonPathDialect, context?: string): CompiledJsonPath {
  const trimmed = condition.trim();
  try {
    checkPath(trimmed, dialect, condition);
    // jsonpath-plus reads any text after `$`; neither dialect has an operator outside brackets.
    if (dialect === 'goessner' && splitComparison(trimmed)) throw syntaxError(condition, dialect, 'an operator outside brackets');
  } catch (error) {
    const split = error instanceof ArazzoError ? splitComparison(trimmed) : undefined;
    if (!split?.path.startsWith('$')) throw error;
    const fix = simpleConditionFor(condition, context);
    throw new ArazzoError(
      'E_CRITERION',
      `jsonpath condition "${condition}" is a comparison, not a JSONPath query (a jsonpath condition is a query that passes when it selects at least one node)` +
        (fix === undefined ? '; write it as a simple condition on the context with a JSON pointer, or as a filter query' : `; write the simple condition "${fix}" without type: jsonpath`),
    );
  }
  return { dialect, path: trimmed };
}

const SEGMENT = /^(?:\.([A-Za-z_][A-Za-z0-9_-]*)|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[\s*"((?:[^"\\]|\\.)*)"\s*\]|\[\s*(\d+)\s*\])/;

/**
 * The simple condition a `path <op> operand` jsonpath condition means, when the path names one
 * node (`.name`, `['name']`, `[0]` segments) and the context can take a JSON pointer:
 * `$.connector.state == 'PAUSED'` on `$response.body` → `$response.body#/connector/state == 'PAUSED'`.
 * Undefined when there is no such rewrite (wildcards, filters, a `length` segment that the
 * Goessner drafts read as the array's length, a context that takes no pointer).
 */
export function simpleConditionFor(condition: string, context: string | undefined): string | undefined {
  const split = splitComparison(condition.trim());
  if (!split?.path.startsWith('$') || context === undefined) return undefined;
  const tokens: string[] = [];
  let rest = split.path.slice(1).trim();
  while (rest !== '') {
    const m = SEGMENT.exec(rest);
    if (!m) return undefined;
    const token = m[1] ?? (m[2] ?? m[3])?.replace(/\\(.)/g, '$1') ?? m[4]!;
    if (token === 'length') return undefined;
    tokens.push(token);
    rest = rest.slice(m[0].length).trim();
  }
  let base: string;
  try {
    const ast = parseRuntimeExpression(context);
    if (!('pointer' in ast) && !takesPointer(ast.root, (ast as { source?: string }).source)) return undefined;
    base = ast.text;
  } catch {
    return undefined;
  }
  try {
    parseConditionOperand(split.operand);
  } catch {
    return undefined;
  }
  const pointer = tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
  // A pointer token ends at whitespace or an operator character inside a simple condition.
  if (/[\s=!<>&|()[\]']/.test(pointer)) return undefined;
  const left = pointer === '' ? base : base.includes('#') ? `${base}${pointer}` : `${base}#${pointer}`;
  return `${left} ${split.operator} ${split.operand}`;
}

function takesPointer(root: string, source: string | undefined): boolean {
  if (root === 'request' || root === 'response') return source === 'body';
  if (root === 'message') return source === 'payload';
  return root === 'inputs' || root === 'outputs' || root === 'steps' || root === 'workflows' || root === 'components';
}

function select(value: unknown, path: string, dialect: JsonPathDialect): unknown[] {
  if (dialect === 'rfc9535') return loadRfc9535().query(value as JsonValue, path);
  const result: unknown = loadJsonPathPlus().JSONPath({ path, json: value as object, eval: false, wrap: true });
  return Array.isArray(result) ? result : [];
}

export interface JsonPathOutcome {
  passed: boolean;
  message?: string;
}

export function runJsonPathCondition(condition: string, compiled: CompiledJsonPath, value: unknown): JsonPathOutcome {
  let nodes = select(value, compiled.path, compiled.dialect);
  if (nodes.length === 0 && !Array.isArray(value) && /^\$\s*\[\s*\?/.test(compiled.path)) {
    nodes = select([value], compiled.path, compiled.dialect);
  }
  return nodes.length > 0 ? { passed: true } : { passed: false, message: `${condition}: the query selected nothing` };
}
