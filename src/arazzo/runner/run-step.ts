// One execution of one step: build and send its request (or run the workflow it calls), check
// its success criteria and, when it passed, evaluate its outputs. Choosing what happens next is
// the workflow runner's job; a failure here is data (the step's outcome), never a throw, except
// for cancellation.
import type { CriterionResult } from '../criteria/index.js';
import { ArazzoError, type ErrorInfo } from '../errors.js';
import { evaluateCriterion } from '../criteria/index.js';
import type { ExpressionContext, HttpExchange } from '../context.js';
import { maskCredentialHeaders, type HttpResponse } from '../http.js';
import { buildRequest } from './build-request.js';
import type { CompiledStep, CompiledWorkflow } from './compile.js';
import type { RunState, StepResult, WorkflowOutcome } from './state.js';
import { endpointKey } from './compile-message.js';
import { receiveMessage, sendMessage, stepSignal } from './message-step.js';
import type { MessageEndpoint } from '../messaging.js';

export interface StepOutcome {
  result: StepResult;
  /** The context actions are evaluated against (with the exchange for operation steps). */
  ctx: ExpressionContext;
}

export class RunAborted extends Error {
  readonly code = 'E_ABORTED';
  constructor() {
    super('the run was cancelled');
  }
}

export function errorInfo(err: unknown): ErrorInfo {
  const e = err as { code?: unknown; message?: unknown };
  const info: ErrorInfo = { code: typeof e?.code === 'string' ? e.code : 'E_INTERNAL', message: typeof e?.message === 'string' ? e.message : String(err) };
  // The hint travels with the result, so a front end can still give advice about its own options.
  if (err instanceof ArazzoError && err.hint) info.hint = err.hint;
  return info;
}

// Content types seen so far and whether they are JSON: a loop sees the same one every time.
const jsonTypes = new Map<string, boolean>();

function isJsonType(contentType: string): boolean {
  let json = jsonTypes.get(contentType);
  if (json === undefined) {
    json = /[/+]json\b/i.test(contentType);
    if (jsonTypes.size < 100) jsonTypes.set(contentType, json);
  }
  return json;
}

function parseResponse(res: HttpResponse): NonNullable<HttpExchange['response']> {
  const raw = res.headers['content-type'];
  const contentType = Array.isArray(raw) ? raw[0] : raw;
  const text = res.body.length === 0 ? '' : Buffer.from(res.body.buffer, res.body.byteOffset, res.body.byteLength).toString('utf8');
  let body: unknown = text === '' ? undefined : text;
  if (text !== '' && contentType !== undefined && isJsonType(contentType)) {
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      // A server that labels invalid JSON as JSON: criteria still see the text.
    }
  }
  const response: NonNullable<HttpExchange['response']> = { statusCode: res.status, headers: res.headers, body, text };
  if (contentType !== undefined) response.contentType = contentType;
  return response;
}

/** The step's context: the workflow's plus this exchange (a literal: cheaper than a spread in a loop). */
function withExchange(base: ExpressionContext, exchange: HttpExchange): ExpressionContext {
  const ctx: ExpressionContext = {
    inputs: base.inputs,
    outputs: base.outputs,
    steps: base.steps,
    workflows: base.workflows,
    sourceDescriptions: base.sourceDescriptions,
    components: base.components,
    exchange,
  };
  if (base.self !== undefined) ctx.self = base.self; // 1.1 documents only
  return ctx;
}

export async function executeStep(state: RunState, cw: CompiledWorkflow, cs: CompiledStep, base: ExpressionContext, attempt: number): Promise<StepOutcome> {
  const started = performance.now();
  const result: StepResult = {
    workflowId: cw.workflowId,
    stepId: cs.stepId,
    kind: cs.callee ? 'workflow' : cs.message ? 'message' : 'operation',
    attempt,
    status: 'failed',
    outputs: {},
    failedCriteria: [],
    durationMs: 0,
  };
  if (state.events.enabled) await state.events.emit({ type: 'step.started', workflowId: cw.workflowId, stepId: cs.stepId, attempt });
  let ctx = base;
  let results: CriterionResult[] | undefined;
  try {
    if (cs.externalDeps.length > 0) checkExternalDeps(state, cs, result);
    if (result.error !== undefined) ctx = base;
    else if (cs.callee) ctx = await callWorkflow(state, cs, base, result);
    else if (cs.message?.action === 'send') ctx = await sendMessage(state, cs, base, result);
    else if (cs.message) ctx = await receiveMessage(state, cs, base, result, (endpoint) => startOf(state, endpoint));
    else ctx = await sendOperation(state, cw, cs, base, result);
    if (result.error === undefined) {
      const passed = checkSuccessCriteria(cs, ctx, result, state.events.enabled ? (results = []) : undefined, cw.v11);
      if (results) for (const r of results) await state.events.emit({ type: 'criterion.evaluated', workflowId: cw.workflowId, stepId: cs.stepId, source: 'successCriteria', result: r });
      if (passed) {
        result.status = 'passed';
        if (cs.outputs.length > 0) {
          const outputs: Record<string, unknown> = {};
          for (const [name, output] of cs.outputs) outputs[name] = output(ctx);
          result.outputs = outputs;
        }
        if (cw.v11) state.passedSteps.add(`${cw.workflowId}/${cs.stepId}`);
      }
    }
  } catch (err) {
    // Cancellation and the step budget end the whole run, not just this step.
    if (err instanceof RunAborted || (err as { code?: unknown })?.code === 'E_STEP_BUDGET') throw err;
    result.status = 'failed';
    result.error = errorInfo(err);
  }
  result.durationMs = performance.now() - started;
  return { result, ctx };
}

/** Synchronous (events are sent afterwards, in order): a loop step pays no extra promise hops. */
function checkSuccessCriteria(cs: CompiledStep, ctx: ExpressionContext, result: StepResult, seen: CriterionResult[] | undefined, embedded: boolean): boolean {
  // Every criterion is evaluated (not just up to the first failure) so reports show them all.
  let passed = true;
  for (const criterion of cs.successCriteria) {
    const r: CriterionResult = evaluateCriterion(criterion, ctx, embedded);
    seen?.push(r);
    if (!r.passed) {
      passed = false;
      result.failedCriteria.push(r);
    }
  }
  return passed;
}

async function sendOperation(state: RunState, cw: CompiledWorkflow, cs: CompiledStep, base: ExpressionContext, result: StepResult): Promise<ExpressionContext> {
  const built = buildRequest(cs, (_raw, compiled) => compiled(base));
  const { request, exchange } = built;
  result.request = { method: request.method, url: request.url };
  if (state.events.enabled) {
    const { method, url, headers } = request;
    await state.events.emit({ type: 'request.sent', workflowId: cw.workflowId, stepId: cs.stepId, method, url, headers: maskCredentialHeaders(headers), ...(built.bodyText === undefined ? {} : { body: built.bodyText }) });
  }
  if (state.signal?.aborted) throw new RunAborted();
  let res: HttpResponse;
  // 1.1 step timeout: the request is aborted and the step fails (E_TIMEOUT); failure actions apply.
  const timer = cs.timeoutMs !== undefined ? stepSignal(state, cs.timeoutMs) : undefined;
  try {
    const signal = timer ? timer.signal : state.signal;
    if (signal) request.signal = signal; // the request object is this step's own
    res = await state.http.send(request);
  } catch (err) {
    if (state.signal?.aborted) throw new RunAborted();
    const info = errorInfo(err);
    // Transport failures are step failures (E_HTTP) so failure actions, retries included, apply.
    result.error = timer?.timedOut() ? { code: 'E_TIMEOUT', message: `${cs.where}: no response within the step's timeout of ${cs.timeoutMs} ms` } : { code: 'E_HTTP', message: info.message };
    return withExchange(base, exchange);
  } finally {
    timer?.dispose();
  }
  exchange.response = parseResponse(res);
  result.response = { status: res.status, durationMs: res.durationMs };
  if (state.events.enabled) {
    const { status, durationMs } = res;
    const body = exchange.response.body;
    await state.events.emit({ type: 'response.received', workflowId: cw.workflowId, stepId: cs.stepId, status, headers: maskCredentialHeaders(res.headers), ...(body === undefined ? {} : { body }), durationMs });
  }
  return withExchange(base, exchange);
}

async function callWorkflow(state: RunState, cs: CompiledStep, base: ExpressionContext, result: StepResult): Promise<ExpressionContext> {
  const inputs: Record<string, unknown> = {};
  for (const p of cs.parameters) {
    const v = p.compiled(base);
    if (v !== undefined) inputs[p.name] = v;
  }
  const outcome: WorkflowOutcome = await state.execute(cs.callee!, inputs);
  // In this step's criteria, outputs and actions `$outputs` is the called workflow's outputs (as
  // the OAI examples use it: `my_order_id: $outputs.workflow_order_id`); the caller's own
  // outputs do not exist before it ends.
  const ctx: ExpressionContext = { ...base, outputs: outcome.outputs };
  if (outcome.status === 'failed') {
    result.error = outcome.error ?? { code: 'E_STEP_FAILED', message: `workflow "${cs.callee!.workflow.workflowId}" failed` };
    return ctx;
  }
  // The callee's outputs are the step's outputs unless the step maps its own.
  if (cs.outputs.length === 0) result.outputs = outcome.outputs;
  return ctx;
}

export function assertNotAborted(state: RunState): void {
  if (state.signal?.aborted) throw new RunAborted();
}


/** 1.1 dependsOn on another workflow's step: it must have passed earlier in this run (dependsOn never runs it). */
function checkExternalDeps(state: RunState, cs: CompiledStep, result: StepResult): void {
  for (const dep of cs.externalDeps) {
    const m = /^\$workflows\.([^.]+)\.steps\.([^.]+)$/.exec(dep);
    if (m && state.passedSteps.has(`${m[1]}/${m[2]}`)) continue;
    result.error = {
      code: 'E_DEPENDENCY',
      message: `${cs.where} depends on ${dep}, which has not completed in this run (dependsOn does not run it: run that workflow first, e.g. through a step or the workflow's dependsOn)`,
    };
    return;
  }
}

/** Where a receive reads from: the mark taken when the run started, else (an address known only now) the current end. */
function startOf(state: RunState, endpoint: MessageEndpoint): Promise<unknown> {
  return state.marks.get(endpointKey(endpoint)) ?? state.messages!.mark(endpoint);
}
