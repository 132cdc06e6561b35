// Public surface of the runtime-expression module (Arazzo 1.0.1 §"Runtime Expressions").
export type { RuntimeExpression } from './ast.js';
export { parseRuntimeExpression, isRuntimeExpression, looksLikeRuntimeExpression, scanRuntimeExpression } from './parse-runtime-expression.js';
export type { ExpressionMode, ScannedExpression } from './parse-runtime-expression.js';
export { evaluateRuntimeExpression, lookupDottedName, headerValue } from './evaluate-runtime-expression.js';
export { resolveValue, findExpressions, findInvalidExpressions, formatEmbedded } from './resolve-value.js';
export { printRuntimeExpression } from './print-runtime-expression.js';
export { resolveJsonPointer, escapeJsonPointerToken, memberOf } from './json-pointer.js';
