// Evaluates a parsed runtime expression against a read-only ExpressionContext. Absent data is
// `undefined`, never an error: whether absence matters is for criteria and the runner to say.

import type { ExpressionContext } from '../context.js';
import type { RuntimeExpression } from './ast.js';
import { memberOf, resolveJsonPointer } from './json-pointer.js';
import { parseRuntimeExpression } from './parse-runtime-expression.js';

/**
 * Looks a dotted name up in a value: the longest leading run of segments that is an existing key
 * wins, the remaining segments are property access on what it found (same rule again at each
 * level). `b.c` is the key `b.c` if present, else key `b` then property `c`.
 */
export function lookupDottedName(container: unknown, name: string): unknown {
  // The whole name is what the longest run tries first; most names have no dot at all.
  const whole = memberOf(container, name);
  if (whole !== undefined || !name.includes('.')) return whole;
  return lookupSegments(container, name.split('.'));
}

function lookupSegments(container: unknown, segments: string[]): unknown {
  if (segments.length === 0) return container;
  for (let take = segments.length; take >= 1; take--) {
    const value = memberOf(container, segments.slice(0, take).join('.'));
    if (value !== undefined) return lookupSegments(value, segments.slice(take));
  }
  return undefined;
}

/** Header look-up by case-insensitive name; repeated headers are joined with ", " (RFC 9110 §5.3). */
export function headerValue(headers: Readonly<Record<string, string | string[]>> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

function named(container: unknown, name: string | undefined, pointer: string | undefined): unknown {
  const value = name === undefined ? container : lookupDottedName(container, name);
  if (value === undefined || pointer === undefined) return value;
  return resolveJsonPointer(value, pointer);
}

function evaluateParsed(expr: RuntimeExpression, ctx: ExpressionContext): unknown {
  const exchange = ctx.exchange;
  switch (expr.root) {
    case 'url':
      return exchange?.url;
    case 'method':
      return exchange?.method;
    case 'statusCode':
      return exchange?.response?.statusCode;
    case 'self':
      return ctx.self;
    case 'message':
      if (!ctx.message) return undefined;
      return expr.source === 'header' ? headerValue(ctx.message.headers, expr.name) : named(ctx.message.payload, undefined, expr.pointer);
    case 'request':
    case 'response': {
      const message = expr.root === 'request' ? exchange?.request : exchange?.response;
      if (!message) return undefined;
      switch (expr.source) {
        case 'body':
          return named(message.body, undefined, expr.pointer);
        case 'header':
          return headerValue(message.headers, expr.name);
        case 'query':
          return 'query' in message ? memberOf(message.query, expr.name) : undefined;
        case 'path':
          return 'path' in message ? memberOf(message.path, expr.name) : undefined;
      }
      return undefined;
    }
    case 'inputs':
      return named(ctx.inputs, expr.name, expr.pointer);
    case 'outputs':
      return named(ctx.outputs, expr.name, expr.pointer);
    case 'steps':
      return named(memberOf(memberOf(ctx.steps, expr.stepId), expr.field), expr.name, expr.pointer);
    case 'workflows':
      return named(memberOf(memberOf(ctx.workflows, expr.workflowId), expr.field), expr.name, expr.pointer);
    case 'sourceDescriptions':
      return named(memberOf(ctx.sourceDescriptions, expr.name), expr.field, undefined);
    case 'components':
      return named(memberOf(ctx.components, expr.kind), expr.name, expr.pointer);
  }
}

/**
 * Evaluates a runtime expression. Returns `undefined` when the value is absent; throws
 * ArazzoError('E_EXPRESSION') only when `expr` is text that does not parse.
 * @example evaluateRuntimeExpression('$response.body#/connector/state', ctx) // 'RUNNING'
 */
export function evaluateRuntimeExpression(expr: string | RuntimeExpression, ctx: ExpressionContext): unknown {
  return evaluateParsed(typeof expr === 'string' ? parseRuntimeExpression(expr) : expr, ctx);
}
