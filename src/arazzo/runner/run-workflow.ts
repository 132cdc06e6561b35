// The workflow runner: inputs, dependsOn, the step loop with its actions (end, goto, retry),
// the step budget, outputs and events. It owns its state; steps see a read-only context.
import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CriterionResult } from '../criteria/index.js';
import type { ExpressionContext } from '../context.js';
import type { Criterion, FailureAction } from '../types.js';
import { ArazzoError, type ErrorInfo } from '../errors.js';
import type { SourceRegistry } from '../sources/index.js';
import { chooseAction, retryDelayMs } from './actions.js';
import { compileReachable, compileWorkflow, documentOf, findWorkflowRef, type CompiledStep, type CompiledWorkflow, type CompiledWorkflowRef, type EffectiveFailureAction } from './compile.js';
import { EventEmitter } from './events.js';
import { RunAborted, errorInfo, executeStep } from './run-step.js';
import type { ResumePoint, RunState, RunWorkflowOptions, StepResult, WorkflowOutcome, WorkflowResult } from './state.js';
import { compileValue } from './compile-value.js';
import { endpointKey, endpointOf } from './compile-message.js';
import { resolveParameters } from './reusable.js';

export const DEFAULT_CONCURRENCY = 4;

/**
 * Concurrent steps (1.1 dependsOn) collect their results here, nested workflows included, so the
 * run's result lists them in document order whatever order they finished in.
 */
const resultSink = new AsyncLocalStorage<StepResult[]>();

export const DEFAULT_MAX_STEPS = 10_000;

/** The workflow to run: the one named, else the document's only workflow. */
export function selectWorkflow(registry: SourceRegistry, workflowId: string | undefined): CompiledWorkflowRef {
  if (workflowId !== undefined) return findWorkflowRef(registry, workflowId, 'the run');
  const workflows = documentOf(registry).workflows;
  if (workflows.length === 1) return { ref: workflows[0]!.workflowId, workflow: workflows[0]!, registry };
  throw new ArazzoError('E_WORKFLOW_NOT_FOUND', `the document has ${workflows.length} workflows (${workflows.map((w) => w.workflowId).join(', ')}): say which one to run`, { hint: { kind: 'choose-workflow', ids: workflows.map((w) => w.workflowId) } });
}

/**
 * Runs a workflow to the end. Rejects (with an ArazzoError) only for refusals found before any
 * request: unknown workflow, unresolvable operations, invalid inputs. Everything after the first
 * request, cancellation and the step budget included, is reported in the result.
 *
 * @example
 * const result = await runWorkflow({ registry, inputs: { connectorName: 'sink' }, http: new HttpClient() });
 * if (result.status === 'failed') console.error(result.error?.message);
 */
export async function runWorkflow(options: RunWorkflowOptions): Promise<WorkflowResult> {
  const root = selectWorkflow(options.registry, options.workflowId);
  const cw = compileWorkflow(root.workflow, root.registry);
  const reachable = compileReachable(cw);
  const inputs = cw.validateInputs(options.inputs);
  if (!options.resume) validateDependencyInputs(cw, options.inputs);
  const startIndex = options.resume ? resumeIndex(cw, options.resume) : 0;
  const state: RunState = {
    http: options.http,
    events: new EventEmitter(options.onEvent),
    signal: options.signal,
    maxSteps: options.maxSteps ?? DEFAULT_MAX_STEPS,
    used: 0,
    counts: new Map(),
    stepNames: new Map(),
    workflows: {},
    results: [],
    completed: new Set(),
    messages: options.messages,
    marks: new Map(),
    concurrency: Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY),
    passedSteps: new Set(),
    execute: (ref, callInputs) => executeWorkflow(state, compileWorkflow(ref.workflow, ref.registry), callInputs, {}),
  };
  await markReceivableChannels(state, reachable, cw, inputs);
  let outcome: WorkflowOutcome;
  try {
    outcome = await executeWorkflow(state, cw, options.inputs, { validated: inputs, startIndex, ...(options.resume ? { resume: options.resume } : {}) });
  } catch (err) {
    outcome = { status: 'failed', outputs: state.workflows[cw.workflowId]?.outputs ?? {}, error: errorInfo(err) };
    if (state.events.enabled) await state.events.emit({ type: 'workflow.finished', workflowId: cw.workflowId, status: 'failed', outputs: outcome.outputs, error: outcome.error! });
  }
  const result: WorkflowResult = { workflowId: cw.workflowId, status: outcome.status, outputs: outcome.outputs, steps: state.results };
  if (outcome.error) result.error = outcome.error;
  return result;
}

/**
 * Every channel a receive step of this run may read is marked (its end recorded) before the
 * first step runs, so a message sent during the run, by the workflow or by a system it
 * triggered, is found however late the receive step comes. A channel that cannot be marked
 * refuses the run before anything is sent.
 */
async function markReceivableChannels(state: RunState, workflows: CompiledWorkflow[], root: CompiledWorkflow, inputs: Record<string, unknown>): Promise<void> {
  const steps = workflows.flatMap((w) => w.steps).filter((s) => s.message);
  if (steps.length === 0) return;
  const transport = state.messages;
  if (!transport) throw new ArazzoError('E_SOURCE', `${steps[0]!.where} ${steps[0]!.message!.action}s a message, but no message transport was given to the runner`);
  // An address with {parameters} is marked now when the run's inputs fill it (the root workflow's
  // steps); otherwise when the step starts.
  const inputsOnly: ExpressionContext = { inputs, outputs: {}, steps: {}, workflows: {}, sourceDescriptions: root.sourceDescriptions, components: (root.components ?? {}) as Record<string, unknown> };
  for (const s of steps) {
    if (s.message!.action !== 'receive') continue;
    let address = s.message!.address;
    if (address.includes('{')) {
      if (!root.steps.includes(s)) continue;
      const filled = fillFromInputs(s, inputsOnly);
      if (filled === undefined) continue;
      address = filled;
    }
    const endpoint = endpointOf(s.message!, address);
    const key = endpointKey(endpoint);
    if (!state.marks.has(key)) state.marks.set(key, transport.mark(endpoint));
  }
  try {
    await Promise.all(state.marks.values());
  } catch (err) {
    throw new ArazzoError('E_SOURCE', `cannot record where the channels to receive from end (before any step ran): ${(err as Error).message}`, { cause: err });
  }
}

function fillFromInputs(cs: CompiledStep, ctx: ExpressionContext): string | undefined {
  let complete = true;
  const address = cs.message!.address.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    let v: unknown;
    try {
      v = cs.parameters.find((p) => p.in === 'path' && p.name === name)?.compiled(ctx);
    } catch {
      v = undefined;
    }
    if (v === undefined) complete = false;
    return String(v);
  });
  return complete ? address : undefined;
}

function resumeIndex(cw: CompiledWorkflow, resume: ResumePoint): number {
  const index = cw.stepIndex.get(resume.stepId);
  if (index === undefined) {
    throw new ArazzoError('E_DOCUMENT_INVALID', `cannot resume at step "${resume.stepId}": workflow "${cw.workflowId}" has no such step (steps: ${[...cw.stepIndex.keys()].join(', ')})`);
  }
  return index;
}

/** dependsOn workflows get the caller's inputs: check them too before anything is sent. */
function validateDependencyInputs(cw: CompiledWorkflow, inputs: Record<string, unknown>, seen = new Set<object>([cw.workflow])): void {
  for (const dep of cw.dependsOn) {
    if (seen.has(dep.workflow)) continue;
    seen.add(dep.workflow);
    const compiled = compileWorkflow(dep.workflow, dep.registry);
    compiled.validateInputs(inputs);
    validateDependencyInputs(compiled, inputs, seen);
  }
}

function countStep(state: RunState, cw: CompiledWorkflow, cs: CompiledStep): void {
  if (state.used >= state.maxSteps) {
    let busiest: CompiledStep = cs;
    for (const [step, n] of state.counts) if (n > (state.counts.get(busiest) ?? 0)) busiest = step;
    throw new ArazzoError(
      'E_STEP_BUDGET',
      `step budget exhausted: ${state.maxSteps} step executions in this run, and step "${state.stepNames.get(busiest) ?? busiest.stepId}" ran ${state.counts.get(busiest) ?? 0} times (a goto or retry loop that never ends?). If the loop is intended, raise the step budget (option maxSteps)`,
      { hint: { kind: 'raise-step-budget' } },
    );
  }
  state.used += 1;
  const count = state.counts.get(cs);
  if (count === undefined) {
    state.counts.set(cs, 1);
    state.stepNames.set(cs, `${cw.workflowId}/${cs.stepId}`);
  } else state.counts.set(cs, count + 1);
}

interface ExecuteOptions {
  validated?: Record<string, unknown>;
  startIndex?: number;
  resume?: ResumePoint;
}

async function executeWorkflow(state: RunState, cw: CompiledWorkflow, rawInputs: Record<string, unknown>, opts: ExecuteOptions): Promise<WorkflowOutcome> {
  let inputs: Record<string, unknown>;
  try {
    inputs = opts.validated ?? cw.validateInputs(rawInputs);
  } catch (err) {
    // A callee given inputs its schema refuses: still a started-and-finished pair for listeners.
    if (state.events.enabled) await state.events.emit({ type: 'workflow.started', workflowId: cw.workflowId, inputs: rawInputs });
    return finishWorkflow(state, cw, { status: 'failed', outputs: {}, error: errorInfo(err) });
  }
  if (state.events.enabled) await state.events.emit({ type: 'workflow.started', workflowId: cw.workflowId, inputs });
  const outputs: Record<string, unknown> = {};
  state.workflows[cw.workflowId] = { inputs, outputs };

  if (!opts.resume) {
    for (const dep of cw.dependsOn) {
      if (state.completed.has(dep.workflow)) continue;
      const depOutcome = await state.execute(dep, rawInputs);
      if (depOutcome.status === 'failed') {
        const cause = depOutcome.error ? `: ${depOutcome.error.message}` : '';
        return finishWorkflow(state, cw, { status: 'failed', outputs, error: { code: 'E_DEPENDENCY', message: `workflow "${cw.workflowId}" depends on "${dep.ref}", which failed${cause}` } });
      }
    }
  }

  const steps: Record<string, { outputs: Record<string, unknown> }> = opts.resume ? { ...opts.resume.steps } : {};
  const base: ExpressionContext = {
    inputs,
    outputs,
    steps,
    workflows: state.workflows,
    sourceDescriptions: cw.sourceDescriptions,
    components: (cw.components ?? {}) as Record<string, unknown>,
  };
  if (cw.v11) base.self = cw.registry.baseUri;
  const loop = new StepLoop(state, cw, base);
  const outcome = await loop.run(opts.startIndex ?? 0);
  try {
    for (const [name, output] of cw.outputs) outputs[name] = output(base);
  } catch (err) {
    if (outcome.status === 'passed') return finishWorkflow(state, cw, { status: 'failed', outputs, error: errorInfo(err) });
  }
  return finishWorkflow(state, cw, { ...outcome, outputs });
}

async function finishWorkflow(state: RunState, cw: CompiledWorkflow, outcome: WorkflowOutcome): Promise<WorkflowOutcome> {
  const entry = state.workflows[cw.workflowId];
  state.workflows[cw.workflowId] = entry ? { ...entry, outputs: outcome.outputs } : { outputs: outcome.outputs };
  state.completed.add(cw.workflow);
  if (state.events.enabled) {
    await state.events.emit({
      type: 'workflow.finished',
      workflowId: cw.workflowId,
      status: outcome.status,
      outputs: outcome.outputs,
      ...(outcome.error ? { error: outcome.error } : {}),
    });
  }
  return outcome;
}

type LoopOutcome = Omit<WorkflowOutcome, 'outputs'>;

/** The success action a passed step takes, if any. */
type SuccessChoice = CompiledStep['onSuccess'][number] | undefined;

type ActionLike = { name: string; type: 'end' | 'goto' | 'retry'; stepId?: string; workflowId?: string; retryAfter?: number; retryLimit?: number; parameters?: FailureAction['parameters'] };

/** The step loop of one workflow execution: which step runs next and how often it was retried. */
class StepLoop {
  /** Retries spent per failure action name during the current visit to a step. */
  readonly #retries = new Map<string, number>();

  constructor(
    readonly state: RunState,
    readonly cw: CompiledWorkflow,
    readonly base: ExpressionContext,
  ) {}

  async run(startIndex: number): Promise<LoopOutcome> {
    const { state, cw } = this;
    if (cw.concurrent) return this.#runByDependencies(startIndex);
    let index = startIndex;
    let attempt = 1;
    while (index < cw.steps.length) {
      if (state.signal?.aborted) throw new RunAborted();
      const cs = cw.steps[index]!;
      countStep(state, cw, cs);
      const { result, ctx } = await executeStep(state, cw, cs, this.base, attempt);
      if (result.status === 'passed') {
        let action = this.#passed(cs, result, ctx);
        if (action instanceof Promise) action = await action;
        this.#retries.clear();
        attempt = 1;
        if (!action) {
          index += 1;
          continue;
        }
        if (action.type === 'end') return { status: 'passed' };
        if (action.stepId !== undefined) {
          index = cw.stepIndex.get(action.stepId)!;
          continue;
        }
        return this.#gotoWorkflow(action.workflowId!, cs, action, ctx);
      }

      let action = this.#choose(cs, cs.onFailure, ctx, (a) => a.type === 'retry' && (this.#retries.get(a.name) ?? 0) >= (a.retryLimit ?? 1));
      if (action instanceof Promise) action = await action;
      const failure = result.error ?? { code: 'E_STEP_FAILED', message: describeFailure(cw, result) };
      if (!action) {
        await this.#finishStep(cs, result, undefined, '');
        return { status: 'failed', error: failure };
      }
      if (action.type === 'retry') {
        await this.#retry(cs, result, action, ctx, this.#retries);
        attempt += 1;
        continue;
      }
      await this.#finishStep(cs, result, action, action.origin === 'step' ? 'onFailure' : 'failureActions (workflow)');
      this.#retries.clear();
      attempt = 1;
      if (action.type === 'end') return { status: 'failed', error: { code: failure.code, message: `${failure.message} (failure action "${action.name}" ended the workflow)` } };
      if (action.stepId !== undefined) {
        index = cw.stepIndex.get(action.stepId)!;
        continue;
      }
      return this.#gotoWorkflow(action.workflowId!, cs, action, ctx);
    }
    return { status: 'passed' };
  }

  /**
   * 1.1 workflows that use step dependsOn: a step starts once every step it depends on (explicitly
   * or through output references) has passed, up to `concurrency` at a time, the ready steps in
   * document order. Each step keeps its own retries. A failure with no action that handles it, or
   * an `end`, stops starting new steps; the running ones finish. `goto` a step has no meaning in
   * this model and fails the step; `goto` a workflow transfers once the running steps finished.
   * Results are listed in document order (then attempt), so reports do not depend on timing.
   */
  async #runByDependencies(startIndex: number): Promise<LoopOutcome> {
    const { state, cw } = this;
    const pending = cw.steps.filter((s) => s.index >= startIndex);
    const passed = new Set<string>(Object.keys(this.base.steps).filter((id) => (cw.stepIndex.get(id) ?? Infinity) < startIndex));
    const sinks = new Map<CompiledStep, StepResult[]>();
    const running = new Map<CompiledStep, Promise<{ cs: CompiledStep; outcome: StepOutcomeKind }>>();
    let outcome: LoopOutcome | undefined;
    let transfer: { ref: string; cs: CompiledStep; action: ActionLike; ctx: ExpressionContext } | undefined;
    try {
      for (;;) {
        if (!outcome && !transfer) {
          for (const cs of [...pending]) {
            if (running.size >= state.concurrency) break;
            if (!cs.deps.every((d) => passed.has(d))) continue;
            pending.splice(pending.indexOf(cs), 1);
            const sink: StepResult[] = [];
            sinks.set(cs, sink);
            running.set(cs, resultSink.run(sink, () => this.#runOne(cs)).then((o) => ({ cs, outcome: o })));
          }
        }
        if (running.size === 0) break;
        const done = await Promise.race(running.values());
        running.delete(done.cs);
        const o = done.outcome;
        if (o.kind === 'passed') passed.add(done.cs.stepId);
        else if (o.kind === 'end') outcome ??= { status: 'passed' };
        else if (o.kind === 'goto-workflow') transfer ??= { ref: o.ref, cs: done.cs, action: o.action, ctx: o.ctx };
        else outcome ??= o.error ? { status: 'failed', error: o.error } : { status: 'failed' };
      }
    } finally {
      // Deterministic report: document order, each step's executions (and nested runs) together.
      // Into the enclosing step's sink when this workflow itself runs inside a concurrent step.
      const into = resultSink.getStore() ?? state.results;
      for (const cs of cw.steps) into.push(...(sinks.get(cs) ?? []));
    }
    if (outcome) return outcome;
    if (transfer) return this.#gotoWorkflow(transfer.ref, transfer.cs, transfer.action, transfer.ctx);
    if (pending.length > 0) {
      const blocked = pending.map((s) => `${s.stepId} (waits for ${s.deps.filter((d) => !passed.has(d)).join(', ')})`);
      return { status: 'failed', error: { code: 'E_DEPENDENCY', message: `workflow "${cw.workflowId}": steps never became ready: ${blocked.join('; ')}` } };
    }
    return { status: 'passed' };
  }

  /** One step of a dependsOn workflow, with its own retries, to its outcome. */
  async #runOne(cs: CompiledStep): Promise<StepOutcomeKind> {
    const { state, cw } = this;
    const retries = new Map<string, number>();
    for (let attempt = 1; ; attempt++) {
      if (state.signal?.aborted) throw new RunAborted();
      countStep(state, cw, cs);
      const { result, ctx } = await executeStep(state, cw, cs, this.base, attempt);
      if (result.status === 'passed') {
        // Always awaited (one tick even without events): concurrent steps interleave as they always have.
        const action = await this.#passed(cs, result, ctx);
        if (!action) return { kind: 'passed' };
        if (action.type === 'end') return { kind: 'end' };
        if (action.workflowId !== undefined) return { kind: 'goto-workflow', ref: action.workflowId, action, ctx };
        return { kind: 'failed', error: { code: 'E_DOCUMENT_INVALID', message: `${cs.where}: success action "${action.name}" goes to step "${action.stepId}", but in a workflow that uses dependsOn the order follows the dependencies; remove the goto or the dependsOn` } };
      }
      let action = this.#choose(cs, cs.onFailure, ctx, (a) => a.type === 'retry' && (retries.get(a.name) ?? 0) >= (a.retryLimit ?? 1));
      if (action instanceof Promise) action = await action;
      const failure = result.error ?? { code: 'E_STEP_FAILED', message: describeFailure(cw, result) };
      if (!action) {
        await this.#finishStep(cs, result, undefined, '');
        return { kind: 'failed', error: failure };
      }
      if (action.type === 'retry') {
        await this.#retry(cs, result, action, ctx, retries);
        continue;
      }
      await this.#finishStep(cs, result, action, action.origin === 'step' ? 'onFailure' : 'failureActions (workflow)');
      if (action.type === 'end') return { kind: 'failed', error: { code: failure.code, message: `${failure.message} (failure action "${action.name}" ended the workflow)` } };
      if (action.workflowId !== undefined) return { kind: 'goto-workflow', ref: action.workflowId, action, ctx };
      return { kind: 'failed', error: { code: 'E_DOCUMENT_INVALID', message: `${cs.where}: failure action "${action.name}" goes to step "${action.stepId}", but in a workflow that uses dependsOn the order follows the dependencies` } };
    }
  }

  /** goto a workflow is a one-way transfer: this workflow ends with that one's status. */
  async #gotoWorkflow(ref: string, cs: CompiledStep, action?: ActionLike, ctx?: ExpressionContext): Promise<LoopOutcome> {
    const target = findWorkflowRef(this.cw.registry, ref, cs.where);
    const outcome = await this.state.execute(target, this.#actionInputs(cs, action, ctx));
    return outcome.error ? { status: outcome.status, error: outcome.error } : { status: outcome.status };
  }

  /**
   * The inputs of a workflow an action calls: the current inputs, or (1.1) the action's
   * `parameters` evaluated in the step's context (they replace the current inputs entirely).
   */
  #actionInputs(cs: CompiledStep, action: ActionLike | undefined, ctx: ExpressionContext | undefined): Record<string, unknown> {
    const params = action?.parameters;
    if (!this.cw.v11 || !params || params.length === 0) return this.base.inputs as Record<string, unknown>;
    const inputs: Record<string, unknown> = {};
    for (const p of resolveParameters(params, this.cw.components, `${cs.where} action "${action.name}"`)) {
      const v = compileValue(p.value, true)(ctx ?? this.base);
      if (v !== undefined) inputs[p.name] = v;
    }
    return inputs;
  }

  /**
   * A step that passed: its outputs become readable to the steps after it, its success action is
   * chosen (criteria events first) and the step is recorded. A promise only when events must go
   * out, so the hot loop skips the hop; callers await it in the order chosen-then-finished.
   */
  #passed(cs: CompiledStep, result: StepResult, ctx: ExpressionContext): SuccessChoice | Promise<SuccessChoice> {
    (this.base.steps as Record<string, { outputs: Record<string, unknown> }>)[cs.stepId] = { outputs: result.outputs };
    const finish = (action: SuccessChoice): SuccessChoice | Promise<SuccessChoice> => {
      const finishing = this.#finishStep(cs, result, action, action ? (action.origin === 'step' ? 'onSuccess' : 'successActions (workflow)') : '');
      return finishing ? finishing.then(() => action) : action;
    };
    const chosen = this.#choose(cs, cs.onSuccess, ctx, () => false);
    return chosen instanceof Promise ? chosen.then(finish) : finish(chosen);
  }

  /**
   * A failed step's retry action: counts it against its limit (`retries`, per action name, for
   * the current visit to the step), records the step, runs the step or workflow the action names,
   * then waits its delay. The caller runs the step again.
   */
  async #retry(cs: CompiledStep, result: StepResult, action: EffectiveFailureAction, ctx: ExpressionContext, retries: Map<string, number>): Promise<void> {
    const { state, cw } = this;
    const spent = (retries.get(action.name) ?? 0) + 1;
    retries.set(action.name, spent);
    const delay = retryDelayMs(action.retryAfter, ctx.exchange?.response?.headers);
    const origin = action.origin === 'step' ? 'onFailure' : 'failureActions (workflow)';
    await this.#finishStep(cs, result, action, `${origin}: retry ${spent} of ${action.retryLimit ?? 1}${delay.ms > 0 ? ` after ${delay.ms / 1000} s (${delay.from})` : ''}`);
    if (action.stepId !== undefined) await this.#sideStep(cw.steps[cw.stepIndex.get(action.stepId)!]!);
    else if (action.workflowId !== undefined) await state.execute(findWorkflowRef(cw.registry, action.workflowId, cs.where), this.#actionInputs(cs, action, ctx));
    if (delay.ms > 0) await this.#sleep(delay.ms);
  }

  /** A retry that names a step runs that step once (its own actions do not apply), then retries. */
  async #sideStep(cs: CompiledStep): Promise<void> {
    countStep(this.state, this.cw, cs);
    const { result } = await executeStep(this.state, this.cw, cs, this.base, 1);
    if (result.status === 'passed') (this.base.steps as Record<string, { outputs: Record<string, unknown> }>)[cs.stepId] = { outputs: result.outputs };
    await this.#finishStep(cs, result, undefined, '');
  }

  async #sleep(ms: number): Promise<void> {
    try {
      await sleep(ms, undefined, this.state.signal ? { signal: this.state.signal } : undefined);
    } catch {
      throw new RunAborted();
    }
  }

  /** The first matching action; its criteria results go out as events when someone listens. */
  #choose<T extends { name: string; criteria?: Criterion[] }>(cs: CompiledStep, actions: readonly T[], ctx: ExpressionContext, skip: (a: T) => boolean): T | undefined | Promise<T | undefined> {
    if (!this.state.events.enabled) return chooseAction(actions, ctx, skip, undefined, this.cw.v11);
    const seen: Array<[T, CriterionResult]> = [];
    const action = chooseAction(actions, ctx, skip, seen, this.cw.v11);
    return (async () => {
      for (const [a, result] of seen) {
        await this.state.events.emit({ type: 'criterion.evaluated', workflowId: this.cw.workflowId, stepId: cs.stepId, source: `action:${a.name}`, result });
      }
      return action;
    })();
  }

  /** Records the step; returns a promise only when events must go out (the hot loop skips the hop). */
  #finishStep(cs: CompiledStep, result: StepResult, action: ActionLike | undefined, reason: string): Promise<void> | undefined {
    if (action) result.action = { name: action.name, type: action.type };
    (resultSink.getStore() ?? this.state.results).push(result);
    return this.state.events.enabled ? this.#emitFinish(cs, result, action, reason) : undefined;
  }

  async #emitFinish(cs: CompiledStep, result: StepResult, action: ActionLike | undefined, reason: string): Promise<void> {
    const { state, cw } = this;
    if (action) {
      const described: { name: string; type: 'end' | 'goto' | 'retry'; stepId?: string; workflowId?: string; retryAfter?: number; retryLimit?: number } = { name: action.name, type: action.type };
      if (action.stepId !== undefined) described.stepId = action.stepId;
      if (action.workflowId !== undefined) described.workflowId = action.workflowId;
      if (action.type === 'retry') {
        if (action.retryAfter !== undefined) described.retryAfter = action.retryAfter;
        described.retryLimit = action.retryLimit ?? 1;
      }
      await state.events.emit({ type: 'action.taken', workflowId: cw.workflowId, stepId: cs.stepId, action: described, reason });
    }
    await state.events.emit({
      type: 'step.finished',
      workflowId: cw.workflowId,
      stepId: cs.stepId,
      status: result.status,
      outputs: result.outputs,
      ...(result.error ? { error: result.error } : {}),
      ...(result.message ? { message: result.message } : {}),
    });
  }
}

function describeFailure(cw: CompiledWorkflow, result: StepResult): string {
  const status = result.response ? ` (HTTP ${result.response.status})` : '';
  const criteria = result.failedCriteria.map((c) => c.message ?? c.condition).join('; ');
  return `step "${result.stepId}" of workflow "${cw.workflowId}" failed${status}${criteria ? `: ${criteria}` : ''}`;
}

type StepOutcomeKind =
  | { kind: 'passed' }
  | { kind: 'end' }
  | { kind: 'failed'; error?: ErrorInfo }
  | { kind: 'goto-workflow'; ref: string; action: ActionLike; ctx: ExpressionContext };
