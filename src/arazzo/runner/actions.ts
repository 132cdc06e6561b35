// Choosing the action after a step: the first action, in list order, whose criteria all pass
// against the step's context (its response included). Retry delays honour Retry-After.
import { evaluateCriterion, type CriterionResult } from '../criteria/index.js';
import type { ExpressionContext } from '../context.js';
import type { Criterion } from '../types.js';

/**
 * Synchronous: `seen` (when given) collects each evaluated criterion with its action, for the
 * caller to report as events afterwards, in order.
 */
export function chooseAction<T extends { name: string; criteria?: Criterion[] }>(
  actions: readonly T[],
  ctx: ExpressionContext,
  skip: (action: T) => boolean,
  seen: Array<[T, CriterionResult]> | undefined,
  embedded = false,
): T | undefined {
  for (const action of actions) {
    if (skip(action)) continue;
    let matches = true;
    for (const criterion of action.criteria ?? []) {
      const result = evaluateCriterion(criterion, ctx, embedded);
      seen?.push([action, result]);
      if (!result.passed) {
        matches = false;
        break;
      }
    }
    if (matches) return action;
  }
  return undefined;
}

/**
 * Milliseconds to wait before a retry: an HTTP Retry-After header (delta-seconds or an
 * HTTP-date) wins over the action's `retryAfter` seconds, as the spec recommends.
 */
export function retryDelayMs(retryAfter: number | undefined, headers: Record<string, string | string[]> | undefined, now = Date.now()): { ms: number; from: 'Retry-After header' | 'retryAfter' | 'none' } {
  const raw = headers ? Object.entries(headers).find(([k]) => k.toLowerCase() === 'retry-after')?.[1] : undefined;
  const header = Array.isArray(raw) ? raw[0] : raw;
  if (header !== undefined) {
    const text = header.trim();
    if (/^\d+(\.\d+)?$/.test(text)) return { ms: Number(text) * 1000, from: 'Retry-After header' };
    const date = Date.parse(text);
    if (!Number.isNaN(date)) return { ms: Math.max(0, date - now), from: 'Retry-After header' };
  }
  if (retryAfter !== undefined && retryAfter > 0) return { ms: retryAfter * 1000, from: 'retryAfter' };
  return { ms: 0, from: 'none' };
}
