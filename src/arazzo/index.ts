// The engine's public surface: what the operator tool (its CLI and ops) and anyone who installs
// @offsetctl/arazzo (packages/arazzo) use. Nothing here knows Kafka Connect, or Kafka itself: AsyncAPI
// steps go through the MessageTransport a caller hands in, HTTP steps through its HttpSender.
export { validate, lint, plan, run } from './api.js';
export type { ReadOptions, ValidateResult, LintOptions, PlanOptions, RunOptions } from './api.js';
export { fetchSender, maskCredentialHeaders } from './http.js';
export type { HttpSender, HttpRequest, HttpResponse } from './http.js';
export { ArazzoError, REFUSAL_CODES, formatLocation } from './errors.js';
export type { ArazzoErrorCode, ArazzoHint, Diagnostic, ErrorInfo, SourceLocation } from './errors.js';
export type * from './types.js';
export type { ExpressionContext, HttpExchange } from './context.js';
export type { MessageTransport, MessageEndpoint, OutgoingMessage, IncomingMessage, StartPosition } from './messaging.js';
export { loadDocumentFile, parseDocumentText, validateArazzo, assertValid } from './document/index.js';
export type { LoadedDocument, DocumentCache, ParseOptions } from './document/index.js';
export { loadSources, describeOperation } from './sources/index.js';
export type { SourceRegistry, SourceOptions, ResolvedOperation, OpenApiParameter } from './sources/index.js';
export { resolveValue, evaluateRuntimeExpression, parseRuntimeExpression, isRuntimeExpression, findExpressions } from './expressions/index.js';
export { evaluateCriterion, checkCriterion } from './criteria/index.js';
export { lintDocument, GENERIC_RULES } from './lint/index.js';
export type { LintFinding, LintRule, LintSeverity } from './lint/index.js';
export type { CriterionResult } from './criteria/index.js';
export { runWorkflow, planWorkflow, selectWorkflow, DEFAULT_MAX_STEPS } from './runner/index.js';
export type { RunWorkflowOptions, WorkflowResult, StepResult, ResumePoint, WorkflowPlan, PlannedStep, PlanWorkflowOptions } from './runner/index.js';
export type * from './runner/index.js';
