// Lint rules over Arazzo documents: the engine's generic rules and the helpers rule sets build
// on (src/connect-lint holds Kafka Connect's).
export { lintDocument, workflowRule, stepRule, pointerToken, criteriaText, hasRetry, GENERIC_RULES } from './lint.js';
export type { LintSeverity, LintFinding, LintStep, LintWorkflow, LintContext, LintRule, RuleFinding, StepSite } from './lint.js';
export { jsonPathComparisonFixes } from './fixes.js';
export type { CriterionFix } from './fixes.js';
