// `jsonpath` criteria. RFC 9535 (jsonpath-rfc9535) by default; `draft-goessner-dispatch-jsonpath-00`
// (jsonpath-plus with `eval: false`: filter `?()` and script `()` expressions would run code, so
// they are refused) when the criterion names that version. A query passes when it selects at least
// one node. Two forms seen in real documents are also accepted:
// - `$[?count(@.pets) > 0]` (the spec's example) against an object: when a root filter selects
//   nothing and the context is not an array, the query is run again on `[context]`;
// - `$.connector.state == 'FAILED'`: a path, a comparison operator and a simple-condition operand.
//   The path must select at most one node (none reads as absent); the pair is compared with the
//   `simple` rules (case-insensitive strings, ...).

import type { JsonValue } from 'jsonpath-rfc9535';
import { ArazzoError } from '../errors.js';
import { loadJsonPathPlus, loadRfc9535, loadRfc9535Parser } from '../_on-demand.js';
import type { ExpressionContext } from '../context.js';
import { compareValues, describeValue } from './compare-values.js';
import { evaluateConditionNode } from './evaluate-simple-condition.js';
import { findNestedQuantifier } from './regex-criterion.js';
import { parseConditionOperand, type ComparisonOperator, type ConditionNode } from './simple-condition.js';

export const GOESSNER_VERSION = 'draft-goessner-dispatch-jsonpath-00';
export type JsonPathDialect = 'rfc9535' | 'goessner';

export type CompiledJsonPath =
  | { form: 'query'; dialect: JsonPathDialect; path: string }
  | { form: 'comparison'; dialect: JsonPathDialect; path: string; operator: ComparisonOperator; right: ConditionNode };

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
export function compileJsonPathCondition(condition: string, dialect: JsonPathDialect): CompiledJsonPath {
  const trimmed = condition.trim();
  let wholeError: ArazzoError | undefined;
  if (dialect === 'rfc9535' || !splitComparison(trimmed)) {
    try {
      checkPath(trimmed, dialect, condition);
      return { form: 'query', dialect, path: trimmed };
    } catch (error) {
      if (!(error instanceof ArazzoError)) throw error;
      wholeError = error;
    }
  }
  const split = splitComparison(trimmed);
  if (!split || !split.path.startsWith('$')) throw wholeError ?? syntaxError(condition, dialect, 'expected a query');
  checkPath(split.path, dialect, condition);
  let right: ConditionNode;
  try {
    right = parseConditionOperand(split.operand);
  } catch (error) {
    throw syntaxError(condition, dialect, `the value after '${split.operator}' is not a literal or runtime expression (${(error as Error).message})`);
  }
  return { form: 'comparison', dialect, path: split.path, operator: split.operator, right };
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

export function runJsonPathCondition(condition: string, compiled: CompiledJsonPath, value: unknown, ctx: ExpressionContext): JsonPathOutcome {
  if (compiled.form === 'query') {
    let nodes = select(value, compiled.path, compiled.dialect);
    if (nodes.length === 0 && !Array.isArray(value) && /^\$\s*\[\s*\?/.test(compiled.path)) {
      nodes = select([value], compiled.path, compiled.dialect);
    }
    return nodes.length > 0 ? { passed: true } : { passed: false, message: `${condition}: the query selected nothing` };
  }
  const nodes = select(value, compiled.path, compiled.dialect);
  if (nodes.length > 1) {
    return { passed: false, message: `${condition}: ${compiled.path} selected ${nodes.length} nodes; a comparison needs one` };
  }
  const left = nodes[0];
  const right = evaluateConditionNode(compiled.right, ctx);
  if (compareValues(compiled.operator, left, right)) return { passed: true };
  return { passed: false, message: `${condition}: left was ${describeValue(left)}${compiled.right.kind === 'literal' ? '' : `, right was ${describeValue(right)}`}` };
}
