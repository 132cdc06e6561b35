// The workflow runner: inputs, dependsOn, the step loop with its actions (end, goto, retry),
// the step budget, outputs and events. It owns its state; steps see a read-only context.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CriterionResult } from '../criteria/index.js';
import type { ExpressionContext } from '../context.js';
import type { Criterion } from '../types.js';
import { ArazzoError } from '../errors.js';
import type { SourceRegistry } from '../sources/index.js';
import { chooseAction, retryDelayMs } from './actions.js';
import { compileReachable, compileWorkflow, documentOf, findWorkflowRef, type CompiledStep, type CompiledWorkflow, type CompiledWorkflowRef } from './compile.js';
import { EventEmitter } from './events.js';
import { RunAborted, errorInfo, executeStep } from './run-step.js';
import type { ResumePoint, RunState, RunWorkflowOptions, StepResult, WorkflowOutcome, WorkflowResult } from './state.js';

export const DEFAULT_MAX_STEPS = 10_000;

/** The workflow to run: the one named, else the document's only workflow. */
export function selectWorkflow(registry: SourceRegistry, workflowId: string | undefined): CompiledWorkflowRef {
  if (workflowId !== undefined) return findWorkflowRef(registry, workflowId, 'the run');
  const workflows = documentOf(registry).workflows;
  if (workflows.length === 1) return { ref: workflows[0]!.workflowId, workflow: workflows[0]!, registry };
  throw new ArazzoError('E_WORKFLOW_NOT_FOUND', `the document has ${workflows.length} workflows (${workflows.map((w) => w.workflowId).join(', ')}): choose one with --workflow <id>`);
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
  compileReachable(cw);
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
    execute: (ref, callInputs) => executeWorkflow(state, compileWorkflow(ref.workflow, ref.registry), callInputs, {}),
  };
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
      `step budget exhausted: ${state.maxSteps} step executions in this run, and step "${state.stepNames.get(busiest) ?? busiest.stepId}" ran ${state.counts.get(busiest) ?? 0} times (a goto or retry loop that never ends?). If the loop is intended, raise the budget with --max-steps <n> (option maxSteps)`,
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

type ActionLike = { name: string; type: 'end' | 'goto' | 'retry'; stepId?: string; workflowId?: string; retryAfter?: number; retryLimit?: number };

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
    let index = startIndex;
    let attempt = 1;
    while (index < cw.steps.length) {
      if (state.signal?.aborted) throw new RunAborted();
      const cs = cw.steps[index]!;
      countStep(state, cw, cs);
      const { result, ctx } = await executeStep(state, cw, cs, this.base, attempt);
      if (result.status === 'passed') {
        (this.base.steps as Record<string, { outputs: Record<string, unknown> }>)[cs.stepId] = { outputs: result.outputs };
        let action = this.#choose(cs, cs.onSuccess, ctx, () => false);
        if (action instanceof Promise) action = await action;
        const finishing = this.#finishStep(cs, result, action, action ? (action.origin === 'step' ? 'onSuccess' : 'successActions (workflow)') : '');
        if (finishing) await finishing;
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
        return this.#gotoWorkflow(action.workflowId!, cs);
      }

      let action = this.#choose(cs, cs.onFailure, ctx, (a) => a.type === 'retry' && (this.#retries.get(a.name) ?? 0) >= (a.retryLimit ?? 1));
      if (action instanceof Promise) action = await action;
      const failure = result.error ?? { code: 'E_STEP_FAILED', message: describeFailure(cw, result) };
      if (!action) {
        await this.#finishStep(cs, result, undefined, '');
        return { status: 'failed', error: failure };
      }
      if (action.type === 'retry') {
        const spent = (this.#retries.get(action.name) ?? 0) + 1;
        this.#retries.set(action.name, spent);
        const delay = retryDelayMs(action.retryAfter, ctx.exchange?.response?.headers);
        const origin = action.origin === 'step' ? 'onFailure' : 'failureActions (workflow)';
        await this.#finishStep(cs, result, action, `${origin}: retry ${spent} of ${action.retryLimit ?? 1}${delay.ms > 0 ? ` after ${delay.ms / 1000} s (${delay.from})` : ''}`);
        if (action.stepId !== undefined) await this.#sideStep(cw.steps[cw.stepIndex.get(action.stepId)!]!);
        else if (action.workflowId !== undefined) await state.execute(findWorkflowRef(cw.registry, action.workflowId, cs.where), this.base.inputs as Record<string, unknown>);
        if (delay.ms > 0) await this.#sleep(delay.ms);
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
      return this.#gotoWorkflow(action.workflowId!, cs);
    }
    return { status: 'passed' };
  }

  /** goto a workflow is a one-way transfer: this workflow ends with that one's status. */
  async #gotoWorkflow(ref: string, cs: CompiledStep): Promise<LoopOutcome> {
    const target = findWorkflowRef(this.cw.registry, ref, cs.where);
    const outcome = await this.state.execute(target, this.base.inputs as Record<string, unknown>);
    return outcome.error ? { status: outcome.status, error: outcome.error } : { status: outcome.status };
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
    if (!this.state.events.enabled) return chooseAction(actions, ctx, skip, undefined);
    const seen: Array<[T, CriterionResult]> = [];
    const action = chooseAction(actions, ctx, skip, seen);
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
    this.state.results.push(result);
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
    });
  }
}

function describeFailure(cw: CompiledWorkflow, result: StepResult): string {
  const status = result.response ? ` (HTTP ${result.response.status})` : '';
  const criteria = result.failedCriteria.map((c) => c.message ?? c.condition).join('; ');
  return `step "${result.stepId}" of workflow "${cw.workflowId}" failed${status}${criteria ? `: ${criteria}` : ''}`;
}
