// AST → text, the inverse of parseRuntimeExpression (ignores `text`, rebuilds it from the parts).
// Used for messages and by the round-trip property test.

import type { RuntimeExpression } from './ast.js';

function suffix(name: string | undefined, pointer: string | undefined): string {
  return (name === undefined ? '' : `.${name}`) + (pointer === undefined ? '' : `#${pointer}`);
}

export function printRuntimeExpression(expr: RuntimeExpression): string {
  switch (expr.root) {
    case 'url':
    case 'method':
    case 'statusCode':
    case 'self':
      return `$${expr.root}`;
    case 'message':
      return expr.source === 'payload' ? `$message.payload${suffix(undefined, expr.pointer)}` : `$message.header.${expr.name}`;
    case 'request':
    case 'response':
      return expr.source === 'body'
        ? `$${expr.root}.body${suffix(undefined, expr.pointer)}`
        : `$${expr.root}.${expr.source}.${expr.name}`;
    case 'inputs':
    case 'outputs':
      return `$${expr.root}${suffix(expr.name, expr.pointer)}`;
    case 'steps':
      return `$steps.${expr.stepId}.${expr.field}${suffix(expr.name, expr.pointer)}`;
    case 'workflows':
      return `$workflows.${expr.workflowId}.${expr.field}${suffix(expr.name, expr.pointer)}`;
    case 'sourceDescriptions':
      return `$sourceDescriptions.${expr.name}${expr.field === undefined ? '' : `.${expr.field}`}`;
    case 'components':
      return `$components.${expr.kind}${suffix(expr.name, expr.pointer)}`;
  }
}
