// Everything about a step that does not depend on runtime values is worked out once per step
// definition and cached: the resolved operation, merged parameters with their OpenAPI styles,
// the body's content type, the effective action lists. A loop over one step pays for this once.
import { ArazzoError } from '../errors.js';
import type { SourceRegistry, ResolvedOperation } from '../sources/index.js';
import type { ArazzoDocument, Components, Criterion, FailureAction, Parameter, ParameterLocation, Step, SuccessAction, Workflow } from '../types.js';
import { compileValue, type CompiledValue } from './compile-value.js';
import { compileInputs, type InputsValidator } from './inputs.js';
import { compileBody, type CompiledBody } from './request-body.js';
import { mergeActions, mergeParameters, resolveActions, resolveParameters } from './reusable.js';
import { styleFor, type ParameterStyle } from './serialize-parameter.js';
import { implicitStepDependencies, isArazzo11 } from '../document/index.js';
import { compileMessageStep, type CompiledMessageStep } from './compile-message.js';

export interface CompiledParameter {
  name: string;
  in?: ParameterLocation;
  value: unknown;
  compiled: CompiledValue;
  /** Serialization for operation steps; absent on workflow steps (parameters become inputs). */
  style?: ParameterStyle;
  required: boolean;
}

export type PathPart = { literal: string } | { param: string };

export type EffectiveSuccessAction = SuccessAction & { origin: 'step' | 'workflow' };
export type EffectiveFailureAction = FailureAction & { origin: 'step' | 'workflow' };

export interface CompiledStep {
  step: Step;
  stepId: string;
  index: number;
  /** `workflow "x" step "y"`, for messages. */
  where: string;
  operation?: ResolvedOperation;
  pathParts?: PathPart[];
  /** For steps that call a workflow. */
  callee?: CompiledWorkflowRef;
  parameters: CompiledParameter[];
  body?: CompiledBody;
  successCriteria: Criterion[];
  onSuccess: EffectiveSuccessAction[];
  onFailure: EffectiveFailureAction[];
  outputs: Array<[string, CompiledValue]>;
  /** 1.1 `timeout` in milliseconds. */
  timeoutMs?: number;
  /** 1.1: steps of this workflow that must pass first (explicit dependsOn and output references). */
  deps: string[];
  /** 1.1: `$workflows.<id>.steps.<stepId>` prerequisites (must have passed earlier in the run). */
  externalDeps: string[];
  /** 1.1: an AsyncAPI send or receive step. */
  message?: CompiledMessageStep;
}

export interface CompiledWorkflowRef {
  ref: string;
  workflow: Workflow;
  registry: SourceRegistry;
}

export interface CompiledWorkflow {
  workflow: Workflow;
  workflowId: string;
  registry: SourceRegistry;
  components: Components | undefined;
  sourceDescriptions: Record<string, Record<string, unknown>>;
  steps: CompiledStep[];
  stepIndex: Map<string, number>;
  validateInputs: InputsValidator;
  outputs: Array<[string, CompiledValue]>;
  dependsOn: CompiledWorkflowRef[];
  /** The document declares Arazzo 1.1.x (selectors, embedded condition expressions, ...). */
  v11: boolean;
  /** 1.1: some step declares dependsOn, so steps run when their prerequisites passed, possibly concurrently. */
  concurrent: boolean;
}

// Per registry, then per workflow: the same parsed document loaded with other --server or
// --source settings resolves to other operations.
const cache = new WeakMap<SourceRegistry, WeakMap<Workflow, CompiledWorkflow>>();

export function documentOf(registry: SourceRegistry): ArazzoDocument {
  return registry.doc.value as ArazzoDocument;
}

export function findWorkflowRef(registry: SourceRegistry, ref: string, where: string): CompiledWorkflowRef {
  const found = registry.findWorkflow(ref);
  if (!found) {
    const ids = documentOf(registry).workflows.map((w) => w.workflowId).join(', ');
    throw new ArazzoError('E_WORKFLOW_NOT_FOUND', `${where}: no workflow "${ref}" (this document has: ${ids}; a workflow of an arazzo source is written $sourceDescriptions.<name>.<workflowId>)`);
  }
  return { ref, workflow: found.workflow, registry: found.registry };
}

export function compileWorkflow(workflow: Workflow, registry: SourceRegistry): CompiledWorkflow {
  let perRegistry = cache.get(registry);
  if (!perRegistry) cache.set(registry, (perRegistry = new WeakMap()));
  const cached = perRegistry.get(workflow);
  if (cached) return cached;
  const doc = documentOf(registry);
  const components = doc.components;
  const where = `workflow "${workflow.workflowId}"`;
  const sourceDescriptions: Record<string, Record<string, unknown>> = {};
  for (const s of doc.sourceDescriptions ?? []) sourceDescriptions[s.name] = s as unknown as Record<string, unknown>;
  const workflowParams = resolveParameters(workflow.parameters, components, `${where} parameters`);
  const successActions = resolveActions<SuccessAction>(workflow.successActions, components, 'successActions', `${where} successActions`);
  const failureActions = resolveActions<FailureAction>(workflow.failureActions, components, 'failureActions', `${where} failureActions`);
  const v11 = isArazzo11(doc);
  const steps = workflow.steps.map((step, index) =>
    compileStep(step, index, { workflow, registry, components, workflowParams, successActions, failureActions, v11 }),
  );
  const compiled: CompiledWorkflow = {
    workflow,
    workflowId: workflow.workflowId,
    registry,
    components,
    sourceDescriptions,
    steps,
    stepIndex: new Map(steps.map((s) => [s.stepId, s.index])),
    validateInputs: compileInputs(workflow.inputs, components, workflow.workflowId),
    outputs: compileOutputs(workflow.outputs, v11),
    dependsOn: (workflow.dependsOn ?? []).map((ref) => findWorkflowRef(registry, ref, `${where} dependsOn`)),
    v11,
    concurrent: v11 && workflow.steps.some((s) => s.dependsOn !== undefined),
  };
  perRegistry.set(workflow, compiled);
  return compiled;
}

interface WorkflowScope {
  workflow: Workflow;
  registry: SourceRegistry;
  components: Components | undefined;
  workflowParams: Parameter[];
  successActions: SuccessAction[];
  failureActions: FailureAction[];
  v11: boolean;
}

function compileStep(step: Step, index: number, scope: WorkflowScope): CompiledStep {
  const where = `workflow "${scope.workflow.workflowId}" step "${step.stepId}"`;
  const stepParams = resolveParameters(step.parameters, scope.components, `${where} parameters`);
  const base = {
    step,
    stepId: step.stepId,
    index,
    where,
    successCriteria: step.successCriteria ?? [],
    onSuccess: mergeActions(resolveActions<SuccessAction>(step.onSuccess, scope.components, 'successActions', `${where} onSuccess`), scope.successActions),
    onFailure: mergeActions(resolveActions<FailureAction>(step.onFailure, scope.components, 'failureActions', `${where} onFailure`), scope.failureActions),
    outputs: compileOutputs(step.outputs, scope.v11),
    ...(scope.v11 && typeof step.timeout === 'number' ? { timeoutMs: step.timeout } : {}),
    ...stepDependencies(step, scope),
  };
  if (step.workflowId !== undefined) {
    // Workflow-level parameters with an `in` are meant for operations; the rest become inputs too.
    const params = mergeParameters(scope.workflowParams.filter((p) => p.in === undefined), stepParams.map((p) => ({ ...p, in: undefined })));
    return {
      ...base,
      callee: findWorkflowRef(scope.registry, step.workflowId, where),
      parameters: params.map((p) => ({ name: p.name, value: p.value, compiled: compileValue(p.value, scope.v11), required: false })),
    };
  }
  if (scope.v11) {
    const message = compileMessageStep(scope.registry, step, where);
    if (message) {
      const params = mergeParameters(scope.workflowParams.filter((p) => p.in === 'header'), stepParams);
      return {
        ...base,
        message,
        parameters: params.map((p) => ({ name: p.name, ...(p.in ? { in: p.in } : {}), value: p.value, compiled: compileValue(p.value, true), required: false })),
        ...(step.requestBody ? { body: compileBody({ ...step.requestBody, contentType: step.requestBody.contentType ?? message.contentType }, [message.contentType], true) } : {}),
      };
    }
  }
  const operation = resolveOperation(scope.registry, step);
  const merged = mergeParameters(scope.workflowParams, stepParams);
  const parameters = merged.map((p): CompiledParameter => {
    if (p.in === undefined) {
      throw new ArazzoError('E_DOCUMENT_INVALID', `${where}: parameter "${p.name}" has no "in"; a step that calls an operation needs in: path, query, header or cookie`);
    }
    // A querystring parameter's name is never sent, so the operation's one querystring parameter is the match.
    const def = operation.parameters.find((d) => d.in === p.in && (p.in === 'querystring' || (p.in === 'header' ? d.name.toLowerCase() === p.name.toLowerCase() : d.name === p.name)));
    return { name: p.name, in: p.in, value: p.value, compiled: compileValue(p.value, scope.v11), style: styleFor(p.name, p.in, def), required: def?.required === true || p.in === 'path' };
  });
  return {
    ...base,
    operation,
    pathParts: parsePathTemplate(operation.pathTemplate),
    parameters,
    ...(step.requestBody ? { body: compileBody(step.requestBody, operation.requestBody?.contentTypes, scope.v11) } : {}),
  };
}

/**
 * Operation lookup for a step. A source without a usable server is reported as E_SOURCE: like
 * every problem found while preparing a run, it is a refusal (nothing has been sent yet).
 */
function resolveOperation(registry: SourceRegistry, step: Step): ResolvedOperation {
  try {
    return registry.resolveOperation(step);
  } catch (err) {
    if (err instanceof ArazzoError && err.code === 'E_REQUEST') throw new ArazzoError('E_SOURCE', err.message, { ...(err.hint ? { hint: err.hint } : {}), cause: err });
    throw err;
  }
}

function compileOutputs(outputs: Record<string, unknown> | undefined, v11 = false): Array<[string, CompiledValue]> {
  return Object.entries(outputs ?? {}).map(([name, expr]) => [name, compileValue(expr, v11)]);
}

/** 1.1 prerequisites: explicit dependsOn (local and other workflows') plus output references. */
function stepDependencies(step: Step, scope: WorkflowScope): { deps: string[]; externalDeps: string[] } {
  if (!scope.v11) return { deps: [], externalDeps: [] };
  const local = new Set<string>();
  const external: string[] = [];
  for (const dep of step.dependsOn ?? []) {
    const other = /^\$workflows\.([^.]+)\.steps\.([^.]+)$/.exec(dep);
    if (other && other[1] === scope.workflow.workflowId) local.add(other[2]!);
    else if (dep.startsWith('$')) external.push(dep);
    else local.add(dep);
  }
  const ids = new Set(scope.workflow.steps.map((s) => s.stepId));
  for (const id of implicitStepDependencies(step)) if (ids.has(id)) local.add(id);
  local.delete(step.stepId);
  return { deps: [...local], externalDeps: external };
}

export function parsePathTemplate(template: string): PathPart[] {
  const parts: PathPart[] = [];
  const re = /\{([^}]+)\}/g;
  let last = 0;
  for (let m = re.exec(template); m; m = re.exec(template)) {
    if (m.index > last) parts.push({ literal: template.slice(last, m.index) });
    parts.push({ param: m[1]! });
    last = m.index + m[0].length;
  }
  if (last < template.length) parts.push({ literal: template.slice(last) });
  return parts;
}

/**
 * Compiles every workflow reachable from `root` (dependsOn, workflow steps, goto/retry targets),
 * so an unresolvable operation or a bad reference anywhere refuses the run before any request.
 */
export function compileReachable(root: CompiledWorkflow): CompiledWorkflow[] {
  const seen = new Set<Workflow>([root.workflow]);
  const queue: CompiledWorkflow[] = [root];
  const all: CompiledWorkflow[] = [root];
  const visit = (ref: CompiledWorkflowRef): void => {
    if (seen.has(ref.workflow)) return;
    seen.add(ref.workflow);
    const compiled = compileWorkflow(ref.workflow, ref.registry);
    queue.push(compiled);
    all.push(compiled);
  };
  for (let cw = queue.shift(); cw; cw = queue.shift()) {
    cw.dependsOn.forEach(visit);
    for (const s of cw.steps) {
      if (s.callee) visit(s.callee);
      for (const a of [...s.onSuccess, ...s.onFailure]) {
        if (a.workflowId !== undefined) visit(findWorkflowRef(cw.registry, a.workflowId, `${s.where} action "${a.name}"`));
        if (a.stepId !== undefined && !cw.stepIndex.has(a.stepId)) {
          throw new ArazzoError('E_DOCUMENT_INVALID', `${s.where} action "${a.name}": no step "${a.stepId}" in workflow "${cw.workflowId}" (goto and retry name a step of the same workflow)`);
        }
      }
    }
  }
  return all;
}
