// Evaluates a parsed simple condition and explains a failure with the values it saw.

import type { ExpressionContext } from '../context.js';
import { evaluateRuntimeExpression, memberOf } from '../expressions/index.js';
import { compareValues, describeValue, isTruthy } from './compare-values.js';
import type { ConditionNode } from './simple-condition.js';

export interface Observation {
  text: string;
  value: unknown;
}

/** The value of one node; expression values are recorded in `seen` for the failure message. */
export function evaluateConditionNode(node: ConditionNode, ctx: ExpressionContext, seen?: Observation[]): unknown {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'expression': {
      let value = evaluateRuntimeExpression(node.expression, ctx);
      for (const key of node.access) value = value === undefined ? undefined : memberOf(value, String(key));
      seen?.push({ text: node.text, value });
      return value;
    }
    case 'not':
      return !isTruthy(evaluateConditionNode(node.operand, ctx, seen));
    case 'and': {
      // Both sides are evaluated (no side effects exist) so the message can show every value.
      const left = isTruthy(evaluateConditionNode(node.left, ctx, seen));
      const right = isTruthy(evaluateConditionNode(node.right, ctx, seen));
      return left && right;
    }
    case 'or': {
      const left = isTruthy(evaluateConditionNode(node.left, ctx, seen));
      const right = isTruthy(evaluateConditionNode(node.right, ctx, seen));
      return left || right;
    }
    case 'compare':
      return compareValues(node.operator, evaluateConditionNode(node.left, ctx, seen), evaluateConditionNode(node.right, ctx, seen));
  }
}

export interface SimpleOutcome {
  passed: boolean;
  message?: string;
}

/** Runs a simple condition; on failure the message reads like `$statusCode == 200: left was 404`. */
export function runSimpleCondition(condition: string, node: ConditionNode, ctx: ExpressionContext): SimpleOutcome {
  if (node.kind === 'compare') {
    const left = evaluateConditionNode(node.left, ctx);
    const right = evaluateConditionNode(node.right, ctx);
    if (compareValues(node.operator, left, right)) return { passed: true };
    const parts = [`left was ${describeValue(left)}`];
    if (node.right.kind !== 'literal') parts.push(`right was ${describeValue(right)}`);
    return { passed: false, message: `${condition}: ${parts.join(', ')}` };
  }
  const seen: Observation[] = [];
  if (isTruthy(evaluateConditionNode(node, ctx, seen))) return { passed: true };
  const values = [...new Map(seen.map((o) => [o.text, `${o.text} was ${describeValue(o.value)}`])).values()];
  return { passed: false, message: `${condition}: ${values.length > 0 ? values.join('; ') : 'false'}` };
}
