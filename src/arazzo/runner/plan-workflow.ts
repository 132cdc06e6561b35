// `plan`: what a run would do, without sending anything. Values known before the run (inputs,
// literals) are filled in; values that only exist at runtime show as their expression text.
import type { ExpressionContext } from '../context.js';
import { evaluateRuntimeExpression, findExpressions, isRuntimeExpression, resolveValue } from '../expressions/index.js';
import type { SourceRegistry } from '../sources/index.js';
import { describeOperation } from '../sources/index.js';
import type { Criterion } from '../types.js';
import { buildRequest } from './build-request.js';
import { compileReachable, compileWorkflow, type CompiledStep, type CompiledWorkflow } from './compile.js';
import { compileInputs } from './inputs.js';
import { DEFAULT_RECEIVE_TIMEOUT_MS } from './message-step.js';
import { errorInfo } from './run-step.js';
import { selectWorkflow } from './run-workflow.js';

export interface PlannedStep {
  workflowId: string;
  stepId: string;
  kind: 'operation' | 'workflow' | 'message';
  /** 1.1 workflows that use dependsOn: the steps this one waits for (explicit and through output references). */
  waitsFor?: string[];
  /** 1.1 AsyncAPI steps: what would be sent, or what is awaited. */
  message?: { action: 'send' | 'receive'; address: string; headers: Record<string, string>; payload?: unknown; correlationId?: unknown; timeoutMs?: number };
  /** `PUT /connectors/{connector}/stop (connectorsApi)` */
  operation?: string;
  request?: { method: string; url: string; headers: Record<string, string>; body?: string };
  /** For steps that call a workflow: its id and the inputs it would get. */
  calls?: { workflowId: string; inputs: Record<string, unknown> };
  successCriteria: string[];
  onSuccess: string[];
  onFailure: string[];
  outputs: string[];
  /** Why the request cannot be built yet (e.g. a path parameter with no value). */
  problem?: string;
}

export interface WorkflowPlan {
  workflowId: string;
  dependsOn: string[];
  inputs: Record<string, unknown>;
  steps: PlannedStep[];
  outputs: Record<string, unknown>;
}

export interface PlanWorkflowOptions {
  registry: SourceRegistry;
  workflowId?: string;
  inputs?: Record<string, unknown>;
}

/**
 * Plans a workflow: its steps, their resolved operations and their requests as far as they are
 * known without sending anything. Throws the same refusals as runWorkflow for a document that
 * cannot run (unknown workflow, unresolvable operation, inputs given that the schema refuses).
 */
export async function planWorkflow(options: PlanWorkflowOptions): Promise<WorkflowPlan> {
  const root = selectWorkflow(options.registry, options.workflowId);
  const cw = compileWorkflow(root.workflow, root.registry);
  compileReachable(cw);
  // Inputs given are held to the same schema as a run (a plan must not accept what run refuses);
  // with none at all, the plan shows where each input would go.
  const given = options.inputs ?? {};
  const inputs = Object.keys(given).length > 0 ? validateGivenInputs(cw, given) : given;
  const ctx: ExpressionContext = {
    inputs,
    outputs: {},
    steps: {},
    workflows: {},
    sourceDescriptions: cw.sourceDescriptions,
    components: (cw.components ?? {}) as Record<string, unknown>,
  };
  const resolve = (value: unknown): unknown => resolveKnown(value, ctx);
  const wf = cw.workflow;
  const steps: PlannedStep[] = [];
  for (const cs of cw.steps) steps.push(await planStep(cw, cs, resolve));
  const outputs: Record<string, unknown> = {};
  for (const [name, expr] of Object.entries(wf.outputs ?? {})) outputs[name] = expr;
  return { workflowId: cw.workflowId, dependsOn: cw.dependsOn.map((d) => d.ref), inputs, steps, outputs };
}

async function planStep(cw: CompiledWorkflow, cs: CompiledStep, resolve: (value: unknown) => unknown): Promise<PlannedStep> {
  const planned: PlannedStep = {
    workflowId: cw.workflowId,
    stepId: cs.stepId,
    kind: cs.callee ? 'workflow' : 'operation',
    successCriteria: cs.successCriteria.map(describeCriterion),
    onSuccess: cs.onSuccess.map(describeAction),
    onFailure: cs.onFailure.map(describeAction),
    outputs: Object.entries(cs.step.outputs ?? {}).map(([name, expr]) => `${name}: ${typeof expr === 'string' ? expr : JSON.stringify(expr)}`),
  };
  if (cw.concurrent) planned.waitsFor = [...cs.deps, ...cs.externalDeps];
  if (cs.callee) {
    const callInputs: Record<string, unknown> = {};
    for (const p of cs.parameters) callInputs[p.name] = resolve(p.value);
    planned.calls = { workflowId: cs.callee.workflow.workflowId, inputs: callInputs };
    return planned;
  }
  if (cs.message) {
    const m = cs.message;
    const t = m.target;
    planned.kind = 'message';
    const address = m.address.replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const p = cs.parameters.find((x) => x.in === 'path' && x.name === name);
      return p ? String(resolve(p.value)) : whole;
    });
    planned.operation = `${m.action} ${address} (${t.sourceName}${t.operationId ? ` ${t.operationId}` : ''}, server ${t.server.name}: ${t.bootstrap.join(',') || '{server}'})`;
    const headers: Record<string, string> = {};
    for (const p of cs.parameters) if (p.in === 'header') headers[p.name] = String(resolve(p.value));
    planned.message = { action: m.action, address, headers, ...(cs.body ? { payload: resolve(cs.step.requestBody?.payload) } : {}), ...(m.correlationId ? { correlationId: resolve(cs.step.correlationId) } : {}), ...(m.action === 'receive' ? { timeoutMs: cs.timeoutMs ?? DEFAULT_RECEIVE_TIMEOUT_MS } : {}) };
    return planned;
  }
  planned.operation = describeOperation(cs.operation!);
  try {
    const built = buildRequest(cs, (raw) => resolve(raw));
    planned.request = { method: built.request.method, url: readableUrl(built.request.url), headers: built.request.headers };
    if (built.bodyText !== undefined) planned.request.body = built.bodyText;
  } catch (err) {
    planned.problem = errorInfo(err).message;
  }
  return planned;
}

/** Unknown values are shown as `{$expression}`; percent-encoding is undone for reading. */
function readableUrl(url: string): string {
  try {
    return decodeURI(url).replace(/%24/g, '$').replace(/%7B/gi, '{').replace(/%7D/gi, '}');
  } catch {
    return url;
  }
}

function resolveKnown(value: unknown, ctx: ExpressionContext): unknown {
  if (typeof value === 'string') {
    if (isRuntimeExpression(value)) {
      const v = evaluateRuntimeExpression(value, ctx);
      return v === undefined ? `{${value}}` : v;
    }
    const embedded = findExpressions(value);
    if (embedded.length === 0) return value;
    const known = embedded.every((e) => isRuntimeExpression(e) && evaluateRuntimeExpression(e, ctx) !== undefined);
    return known ? resolveValue(value, ctx) : value;
  }
  if (Array.isArray(value)) return value.map((v) => resolveKnown(v, ctx));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = resolveKnown(v, ctx);
    return out;
  }
  return value;
}

function describeCriterion(c: Criterion): string {
  const type = typeof c.type === 'object' ? `${c.type.type} ${c.type.version}` : c.type ?? 'simple';
  return `${type === 'simple' ? '' : `[${type}] `}${c.context ? `${c.context}: ` : ''}${c.condition}`;
}

function describeAction(a: { name: string; type: string; stepId?: string; workflowId?: string; retryAfter?: number; retryLimit?: number; origin: string }): string {
  const target = a.stepId ?? a.workflowId;
  const retry = a.type === 'retry' ? ` (limit ${a.retryLimit ?? 1}${a.retryAfter !== undefined ? `, after ${a.retryAfter} s` : ''})` : '';
  return `${a.name}: ${a.type}${target ? ` → ${target}` : ''}${retry}${a.origin === 'workflow' ? ' [workflow]' : ''}`;
}

/**
 * The inputs given, checked against the workflow's schema as a run would check them, except that
 * inputs left out are allowed (a plan shows `{$inputs.x}` where they go).
 */
function validateGivenInputs(cw: CompiledWorkflow, given: Record<string, unknown>): Record<string, unknown> {
  const schema = cw.workflow.inputs;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return cw.validateInputs(given);
  const { required: _required, ...rest } = schema as Record<string, unknown>;
  return compileInputs(rest, cw.components, cw.workflowId)(given);
}
