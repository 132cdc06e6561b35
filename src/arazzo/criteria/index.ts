// Public surface of the criteria module (Arazzo 1.0.1 §"Criterion Object").
export { evaluateCriterion, checkCriterion } from './evaluate-criterion.js';
export type { CriterionResult, CriterionType } from './evaluate-criterion.js';
export { parseSimpleCondition } from './simple-condition.js';
export type { ConditionNode, ComparisonOperator } from './simple-condition.js';
export { simpleConditionFor } from './jsonpath-criterion.js';
export { compareValues, looseEquals, isTruthy } from './compare-values.js';
