// Resolving expressions inside parameter values, payloads and outputs. Rules (docs/arazzo-choices.md):
// - a string that starts with `$` + a known root (`$inputs.`, `$statusCode`, ...) is one whole
//   expression and keeps the value's type; if it does not parse, that is an E_EXPRESSION error
//   (a typo must not be sent as a literal);
// - `{$...}` inside any other string is interpolated: strings as-is, undefined as '', everything
//   else as JSON;
// - `$$` at the start of a string and `{$$` anywhere are escapes for a literal `$` / `{$`;
// - any other string (`$5`, `$HOME`, `{"a":1}`) is left alone.

import { ArazzoError } from '../errors.js';
import type { ExpressionContext } from '../context.js';
import type { RuntimeExpression } from './ast.js';
import { evaluateRuntimeExpression } from './evaluate-runtime-expression.js';
import { looksLikeRuntimeExpression, parseRuntimeExpression, scanRuntimeExpression } from './parse-runtime-expression.js';

type Piece = string | RuntimeExpression;

/** What a string value is: one whole expression, or literal text with embedded expressions. */
export type StringValue = { kind: 'expression'; expression: RuntimeExpression } | { kind: 'template'; pieces: Piece[] };

/** Called for text that is meant as an expression but does not parse; the default rethrows. */
type OnInvalid = (text: string, error: ArazzoError) => void;

const rethrow: OnInvalid = (_text, error) => {
  throw error;
};

function scanTemplate(text: string, from: number, onInvalid: OnInvalid): Piece[] {
  const pieces: Piece[] = [];
  let literal = '';
  let i = from;
  while (i < text.length) {
    const open = text.indexOf('{$', i);
    if (open === -1) break;
    literal += text.slice(i, open);
    if (text[open + 2] === '$') {
      literal += '{$';
      i = open + 3;
      continue;
    }
    if (!looksLikeRuntimeExpression(text, open + 1)) {
      literal += '{';
      i = open + 1;
      continue;
    }
    const close = text.indexOf('}', open);
    try {
      const scanned = scanRuntimeExpression(text, open + 1, 'embedded');
      if (text[scanned.end] !== '}') {
        throw new ArazzoError(
          'E_EXPRESSION',
          `invalid embedded expression in "${text}": at character ${scanned.end + 1}, expected '}' to close the '{' at character ${open + 1}`,
          { location: { column: scanned.end + 1 } },
        );
      }
      if (literal !== '') pieces.push(literal);
      literal = '';
      pieces.push(scanned.expression);
      i = scanned.end + 1;
    } catch (error) {
      if (!(error instanceof ArazzoError)) throw error;
      const end = close === -1 ? text.length : close;
      onInvalid(text.slice(open + 1, end), error);
      literal += text.slice(open, Math.min(text.length, end + 1));
      i = end + 1;
    }
  }
  literal += text.slice(i);
  if (literal !== '') pieces.push(literal);
  return pieces;
}

/**
 * Classifies a string value. Throws ArazzoError('E_EXPRESSION') when text meant as an
 * expression does not parse.
 */
export function parseStringValue(text: string, onInvalid: OnInvalid = rethrow): StringValue {
  if (text.startsWith('$$')) return { kind: 'template', pieces: scanTemplate('$' + text.slice(2), 0, onInvalid) };
  if (looksLikeRuntimeExpression(text)) {
    try {
      return { kind: 'expression', expression: parseRuntimeExpression(text) };
    } catch (error) {
      if (!(error instanceof ArazzoError)) throw error;
      onInvalid(text, error);
      return { kind: 'template', pieces: [text] };
    }
  }
  return { kind: 'template', pieces: scanTemplate(text, 0, onInvalid) };
}

/** How an embedded value reads inside a string. */
export function formatEmbedded(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

function resolveString(text: string, ctx: ExpressionContext): unknown {
  const parsed = parseStringValue(text);
  if (parsed.kind === 'expression') return evaluateRuntimeExpression(parsed.expression, ctx);
  if (parsed.pieces.length === 1 && typeof parsed.pieces[0] === 'string') return parsed.pieces[0];
  return parsed.pieces.map((piece) => (typeof piece === 'string' ? piece : formatEmbedded(evaluateRuntimeExpression(piece, ctx)))).join('');
}

/**
 * Resolves every runtime expression in a value, deeply (object keys are left alone).
 * @example resolveValue({id: '$inputs.id', note: 'for {$inputs.name}'}, ctx) // {id: 42, note: 'for sink-1'}
 * @throws ArazzoError('E_EXPRESSION') for text meant as an expression that does not parse.
 */
export function resolveValue(value: unknown, ctx: ExpressionContext): unknown {
  if (typeof value === 'string') return resolveString(value, ctx);
  if (Array.isArray(value)) return value.map((item) => resolveValue(item, ctx));
  if (value !== null && typeof value === 'object') {
    const resolved: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty so a `__proto__` key stays a plain key instead of changing the prototype.
      Object.defineProperty(resolved, key, { value: resolveValue(item, ctx), enumerable: true, writable: true, configurable: true });
    }
    return resolved;
  }
  return value;
}

/**
 * Every expression text inside a value (whole-value and embedded, object keys excluded),
 * including text that is meant as an expression but does not parse, so a validator can report it
 * with parseRuntimeExpression's message (findInvalidExpressions gives the exact errors).
 */
export function findExpressions(value: unknown): string[] {
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (typeof node === 'string') {
      const parsed = parseStringValue(node, (text) => found.push(text));
      if (parsed.kind === 'expression') found.push(parsed.expression.text);
      else for (const piece of parsed.pieces) if (typeof piece !== 'string') found.push(piece.text);
    } else if (Array.isArray(node)) {
      node.forEach(visit);
    } else if (node !== null && typeof node === 'object') {
      Object.values(node).forEach(visit);
    }
  };
  visit(value);
  return found;
}

/** The syntax errors resolveValue would throw for this value, all of them, for static validation. */
export function findInvalidExpressions(value: unknown): ArazzoError[] {
  const errors: ArazzoError[] = [];
  const visit = (node: unknown): void => {
    if (typeof node === 'string') parseStringValue(node, (_text, error) => errors.push(error));
    else if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === 'object') Object.values(node).forEach(visit);
  };
  visit(value);
  return errors;
}
