// Values with runtime expressions, prepared once per step definition: a whole-value expression
// is parsed once, literal parts are returned as they are, and only strings that embed
// expressions go through resolveValue each time. Same results as resolveValue, without
// re-parsing the same expression on every step of a loop.
import type { ExpressionContext } from '../context.js';
import { evaluateRuntimeExpression, looksLikeRuntimeExpression, parseRuntimeExpression, resolveValue } from '../expressions/index.js';
import { isSelectorObject } from '../document/index.js';
import { evaluateSelector, type SelectorObject } from './selectors.js';

export type CompiledValue = (ctx: ExpressionContext) => unknown;

/**
 * `selectors` (Arazzo 1.1 documents): an object `{context, selector, type}` anywhere in the value
 * is a Selector Object, evaluated at run time; in 1.0 documents it stays a literal object.
 */
export function compileValue(value: unknown, selectors = false): CompiledValue {
  if (selectors && isSelectorObject(value)) {
    const selector = value as unknown as SelectorObject;
    return (ctx) => evaluateSelector(selector, ctx, `selector ${JSON.stringify(selector.selector)}`);
  }
  if (typeof value === 'string') {
    // Strings without `$` hold no expression (neither whole, embedded `{$...}` nor the `$$` escape).
    if (!value.includes('$')) return () => value;
    if (!value.startsWith('$$') && looksLikeRuntimeExpression(value)) {
      try {
        const expression = parseRuntimeExpression(value);
        return (ctx) => evaluateRuntimeExpression(expression, ctx);
      } catch {
        // Leave the error to resolveValue at run time, where the step reports it.
      }
    }
    return (ctx) => resolveValue(value, ctx);
  }
  if (Array.isArray(value)) {
    const items = value.map((v) => compileValue(v, selectors));
    if (value.every((v) => isConstant(v, selectors))) return () => value;
    return (ctx) => items.map((item) => item(ctx));
  }
  if (value !== null && typeof value === 'object') {
    if (isConstant(value, selectors)) return () => value;
    const entries = Object.entries(value).map(([k, v]) => [k, compileValue(v, selectors)] as const);
    return (ctx) => {
      const out: Record<string, unknown> = {};
      // defineProperty so a `__proto__` key stays a plain key, as resolveValue does.
      for (const [k, item] of entries) Object.defineProperty(out, k, { value: item(ctx), enumerable: true, writable: true, configurable: true });
      return out;
    };
  }
  return () => value;
}

/** True when no string inside the value contains `$`: it resolves to itself. */
function isConstant(value: unknown, selectors = false): boolean {
  if (typeof value === 'string') return !value.includes('$');
  if (selectors && isSelectorObject(value)) return false;
  if (Array.isArray(value)) return value.every((v) => isConstant(v, selectors));
  if (value !== null && typeof value === 'object') return Object.values(value).every((v) => isConstant(v, selectors));
  return true;
}
