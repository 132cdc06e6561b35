// The step runner's public surface.
export { runWorkflow, selectWorkflow, DEFAULT_MAX_STEPS } from './run-workflow.js';
export { planWorkflow } from './plan-workflow.js';
export type { PlannedStep, WorkflowPlan, PlanWorkflowOptions } from './plan-workflow.js';
export type { RunWorkflowOptions, WorkflowResult, StepResult, ResumePoint } from './state.js';
export type * from './events.js';
export { buildRequest } from './build-request.js';
export { resolveActions } from './reusable.js';
export { compileWorkflow } from './compile.js';
