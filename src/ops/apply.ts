// Applying a plan: the journaled workflow run under the connector's lock (taken through the
// store), with recovery after a failure once the connector was stopped. Reports through events;
// cancelled through an AbortSignal (the face owns Ctrl-C, prompts and text).
import type { RunEvent } from '../arazzo/index.js';
import type { RunRecord } from '../store/index.js';
import type { OpsContext } from './context.js';
import { OpsError } from './errors.js';
import { REWIND, RESET, ROLLBACK, specFor, type OperationSpec } from './operations.js';
import { resumePointFor, unchangedOutcome, type Plan } from './plan.js';
import { runOperation, type OperationOutcome } from './run-operation.js';
import { loadOpsWorkflow } from './workflow-files.js';

/** Events of ops itself, beside the engine's RunEvents. */
export type OpsRunEvent =
  | { type: 'ops.run.started'; at: string; runId: string; operation: Plan['operation']; connector: string; clusterUrl: string; resumeAt?: string }
  /** A large set is written in chunks (Plan.chunkSize): chunk `index` of `total`, `size` partitions, is about to be written. */
  | { type: 'ops.chunk'; at: string; runId: string; index: number; total: number; size: number };

export type OpsEvent = RunEvent | OpsRunEvent;

export interface ApplyOptions {
  onEvent?: (event: OpsEvent) => void;
  /** Aborting cancels the run; once the connector was stopped, it is put back (recovery). */
  signal?: AbortSignal;
  /**
   * Marks the run as one connector of a batch: recorded in the run's context when the run is
   * opened (before its first step), so `runs --batch <id>` finds every run the batch started. A
   * resumed run keeps the batch id it was opened with.
   */
  batchId?: string;
  /** Awaited before each step of the operation's own workflow (a face's test hooks). */
  beforeStep?: (stepId: string, runId: string) => Promise<void>;
  /** How long a read-back may take to show a write before it counts as a mismatch (default 15 s). */
  verifyTimeoutMs?: number;
}

const SPECS: Record<'rewind' | 'reset' | 'rollback', OperationSpec> = { rewind: REWIND, reset: RESET, rollback: ROLLBACK };

/**
 * Runs a plan made by planRewind/planReset/planRollback/planResume against the same cluster.
 * Resolves with the outcome (succeeded or failed, with the connector's state); rejects only when
 * refused before anything changed (E_LOCKED, another cluster) or on an internal error.
 *
 * @example const outcome = await applyPlan(ctx, plan, { onEvent: print, signal })
 */
export async function applyPlan(ctx: OpsContext, plan: Plan, options: ApplyOptions = {}): Promise<OperationOutcome> {
  if (plan.clusterUrl !== ctx.url) {
    throw new OpsError('E_PREFLIGHT', `this plan was made for ${plan.clusterUrl}, not ${ctx.url}; plan again against this cluster`, { field: 'url' });
  }
  // Nothing to change: nothing runs (no lock, no stop, no snapshot); a face normally stops earlier.
  if (plan.nothingToChange && plan.operation !== 'resume') return unchangedOutcome(plan);
  const chunks = (runId: string) => (index: number, total: number, size: number): void =>
    options.onEvent?.({ type: 'ops.chunk', at: new Date().toISOString(), runId, index, total, size });
  const common = {
    store: ctx.store, http: ctx.http, connectorType: plan.connectorType,
    ...(options.onEvent ? { onProgress: options.onEvent } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.beforeStep ? { beforeStep: options.beforeStep } : {}),
    ...(options.verifyTimeoutMs !== undefined ? { verifyTimeoutMs: options.verifyTimeoutMs } : {}),
    chunkSize: plan.chunkSize,
  };
  if (plan.operation === 'resume') {
    if (!plan.runId) throw new OpsError('E_USAGE', 'a resume plan needs its runId', { field: 'runId' });
    // The run goes on through the URLs given now (another worker of the same cluster, as
    // planResume checked), not the one it was recorded under: that worker may be the one that
    // is gone, and requests to it would bypass the failover of the URLs given now.
    const run = { ...(await ctx.store.takeOverRun(plan.runId)), clusterUrl: ctx.url };
    const spec = specFor(run.operation);
    const workflow = await loadOpsWorkflow(spec.workflow, run.clusterUrl);
    // The journal as it is now, not as it was when planned.
    const resume = resumePointFor(workflow, await ctx.store.stepsOf(run.id));
    const initialState = resume?.steps.readInitialState?.outputs.initialState;
    started(options, run, plan, resume?.stepId ?? workflow.stepOrder[0]);
    return runOperation({
      ...common, run, spec, inputs: run.inputs, onChunk: chunks(run.id),
      ...(resume ? { resume } : {}),
      ...(typeof initialState === 'string' ? { initialState } : {}),
    });
  }
  const spec = SPECS[plan.operation];
  const run = await ctx.store.beginRun({
    clusterUrl: plan.clusterUrl, clusterKey: plan.clusterKey, connector: plan.connector, operation: plan.operation,
    workflowFile: plan.workflow.file, workflowId: plan.workflow.workflowId, inputs: plan.inputs,
    context: {
      connectorType: plan.connectorType, stateBefore: plan.stateBefore,
      ...(plan.snapshotId ? { restoringSnapshotId: plan.snapshotId } : {}), ...(options.batchId ? { batchId: options.batchId } : {}),
      ...(plan.supersedes?.stateBefore ? { stateBeforeInterruption: plan.supersedes.stateBefore } : {}),
    },
  }, { takeOverStale: plan.operation === 'rollback' });
  started(options, run, plan);
  const outcome = await runOperation({ ...common, run, spec, inputs: plan.inputs, onChunk: chunks(run.id) });
  const restored = plan.operation === 'rollback' && outcome.status === 'succeeded' ? `; restored snapshot ${plan.snapshotId}` : '';
  return { ...outcome, message: outcome.message + restored, warnings: [...plan.warnings, ...outcome.warnings], diff: { ...plan.diff.counts }, ...(plan.positions ? { positions: plan.positions } : {}) };
}

function started(options: ApplyOptions, run: RunRecord, plan: Plan, resumeAt?: string): void {
  options.onEvent?.({
    type: 'ops.run.started', at: new Date().toISOString(), runId: run.id, operation: plan.operation,
    connector: run.connector, clusterUrl: run.clusterUrl, ...(resumeAt ? { resumeAt } : {}),
  });
}
