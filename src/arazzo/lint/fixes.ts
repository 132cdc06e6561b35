// Fixes a tool can apply to a document without a person deciding: each says, as data, which
// object to change and how; a face applies them to the file's text (keeping its formatting).
import { simpleConditionFor } from '../criteria/index.js';
import { pointerToken } from './lint.js';

export interface CriterionFix {
  /** JSON pointer of the Criterion Object. */
  pointer: string;
  /** The new `condition`. */
  condition: string;
  /** Keys to remove from the criterion (`type`, `version`, `context`). */
  remove: string[];
  message: string;
}

/**
 * `type: jsonpath` criteria written as a comparison (`$.connector.state == 'PAUSED'`), which no
 * JSONPath dialect accepts, rewritten as the simple condition they mean
 * (`$response.body#/connector/state == 'PAUSED'`), where such a rewrite exists.
 */
export function jsonPathComparisonFixes(root: unknown): CriterionFix[] {
  const fixes: CriterionFix[] = [];
  walk(root, '', (value, pointer) => {
    const type = value['type'];
    const named = typeof type === 'object' && type !== null ? (type as Record<string, unknown>)['type'] : type;
    const { condition, context } = value;
    if (named !== 'jsonpath' || typeof condition !== 'string' || typeof context !== 'string') return;
    const fixed = simpleConditionFor(condition, context);
    if (fixed === undefined) return;
    fixes.push({
      pointer,
      condition: fixed,
      remove: ['type', 'version', 'context'].filter((k) => k in value),
      message: `jsonpath condition "${condition}" (a comparison, not a JSONPath query) → simple condition "${fixed}"`,
    });
  });
  return fixes;
}

function walk(value: unknown, pointer: string, visit: (object: Record<string, unknown>, pointer: string) => void, depth = 0): void {
  if (depth > 64 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => { walk(v, `${pointer}/${i}`, visit, depth + 1); });
    return;
  }
  const object = value as Record<string, unknown>;
  visit(object, pointer);
  for (const [k, v] of Object.entries(object)) walk(v, `${pointer}/${pointerToken(k)}`, visit, depth + 1);
}
