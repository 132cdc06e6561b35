// Applying a plan: the journaled workflow run under the connector's lock (taken through the
// store), with recovery after a failure once the connector was stopped. Reports through events;
// cancelled through an AbortSignal (the face owns Ctrl-C, prompts and text).
import type { ResumePoint, RunEvent } from '../../arazzo/index.js';
import type { ActorSource, RunRecord } from '../../store/index.js';
import type { OpsContext } from '../context.js';
import { OpsError } from '../errors.js';
import { REWIND, RESET, ROLLBACK, specFor, loadOpsWorkflow, type OperationSpec } from '../workflows/index.js';
import { resumePointFor, type Plan } from '../plan/index.js';
import { finishRecovery, runOperation, type OperationOutcome } from './run-operation.js';
import { IcebergTableRun } from './iceberg-tables.js';
import { redactText } from '../../http/redact.js';

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
  /**
   * A reviewed change (a saved plan, an approved request): its digest and request id go into the
   * run's context when the run is opened, so the same plan is found applied and not applied twice.
   */
  reviewed?: { planDigest: string; requestId?: string };
  /** Awaited before each step of the operation's own workflow (a face's test hooks). */
  beforeStep?: (stepId: string, runId: string) => Promise<void>;
  /** How long a read-back may take to show a write before it counts as a mismatch (default 15 s). */
  verifyTimeoutMs?: number;
  /**
   * Who the run is recorded under, when the face serves several users (the console's signed-in
   * user); otherwise the store's own actor (the CLI's OS and database user).
   */
  actor?: ActorSource;
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
    const run = { ...(await ctx.store.takeOverRun(plan.runId, options.actor ? { actor: options.actor } : {})), clusterUrl: ctx.url };
    const spec = specFor(run.operation);
    if (plan.finishesRecovery) {
      started(options, run, plan, 'recovery');
      return finishRecovery({ ...common, run, spec, inputs: run.inputs });
    }
    const workflow = await loadOpsWorkflow(spec.workflow, run.clusterUrl);
    // The journal as it is now, not as it was when planned.
    let resume = resumePointFor(workflow, await ctx.store.stepsOf(run.id));
    // Brought back by someone since the kill: from the stop step again, with the state read first.
    if (plan.restopsConnector && resume) resume = fromStep(resume, workflow.stepOrder, spec.stopStep);
    const initialState = resume?.steps.readInitialState?.outputs.initialState;
    started(options, run, plan, resume?.stepId ?? workflow.stepOrder[0]);
    return runOperation({
      ...common, run, spec, inputs: run.inputs, onChunk: chunks(run.id),
      ...(resume ? { resume } : {}),
      ...(typeof initialState === 'string' ? { initialState } : {}),
    });
  }
  const spec = SPECS[plan.operation];
  // An Iceberg sink's tables are set back with its group (src/ops/run/iceberg-tables.ts).
  const iceberg = plan.profile?.iceberg;
  if (iceberg?.refusal) throw new OpsError('E_PREFLIGHT', `${iceberg.refusal}; nothing was changed`, { field: 'iceberg.tables' });
  const tables = iceberg && iceberg.heads.length > 0 ? new IcebergTableRun(ctx.store, iceberg) : undefined;
  const beforeStep = tables ? tables.wrap(options.beforeStep, spec.mutatingStep) : options.beforeStep;
  const run = await ctx.store.beginRun({
    clusterUrl: plan.clusterUrl, clusterKey: plan.clusterKey, ...(plan.lockKey ? { lockKey: plan.lockKey } : {}), connector: plan.connector, operation: plan.operation,
    workflowFile: plan.workflow.file, workflowId: plan.workflow.workflowId, inputs: plan.inputs,
    context: {
      connectorType: plan.connectorType, stateBefore: plan.stateBefore,
      ...(plan.snapshotId ? { restoringSnapshotId: plan.snapshotId } : {}), ...(options.batchId ? { batchId: options.batchId } : {}),
      ...(options.reviewed ? { planDigest: options.reviewed.planDigest, ...(options.reviewed.requestId ? { requestId: options.reviewed.requestId } : {}) } : {}),
      ...(plan.supersedes?.stateBefore ? { stateBeforeInterruption: plan.supersedes.stateBefore } : {}),
      // A Debezium source's slot as read when planned: a rollback to this run's snapshot is checked against it.
      ...(plan.profile?.source ? { sourceIdentity: plan.profile.source } : {}),
      // The Connect cluster's members: a rollback on another Connect cluster of the same Kafka cluster never picks this run's snapshot.
      ...(plan.clusterMembers ? { clusterMembers: plan.clusterMembers } : {}),
      // An Iceberg sink's table heads: a rollback to this run's snapshot sets the tables back to them.
      ...(iceberg ? { icebergTables: iceberg.heads } : {}),
    },
    ...(options.actor ? { actor: options.actor } : {}),
  }, { takeOverStale: plan.operation === 'rollback' });
  started(options, run, plan);
  const ran = await runOperation({ ...common, ...(beforeStep ? { beforeStep } : {}), run, spec, inputs: plan.inputs, onChunk: chunks(run.id) });
  const outcome = tables ? await withTables(ran, tables, run.id) : ran;
  // The stored account (runs show) says what happened to the tables too.
  if (outcome !== ran) await recordAccount(ctx, run.id, outcome);
  const restored = plan.operation === 'rollback' && outcome.status === 'succeeded' ? `; restored snapshot ${plan.snapshotId}` : '';
  return { ...outcome, message: outcome.message + restored, warnings: [...plan.warnings, ...outcome.warnings], diff: { ...plan.diff.counts }, ...(plan.positions ? { positions: plan.positions } : {}) };
}

/** The run's account with its tables: what was set back, or, when the run failed after that, the tables put back too. */
async function withTables(ran: OperationOutcome, tables: IcebergTableRun, runId: string): Promise<OperationOutcome> {
  let outcome = ran;
  if (tables.error && outcome.status === 'failed') {
    // The engine's account names the last polled criterion; the cause is the table step (before any offset was written).
    const rest = outcome.message.replace(/^.*? failed at step \S+: [\s\S]*?\. (?=Recovery |Nothing |The connector )/, '');
    const head = `${outcome.operation} of ${outcome.connector} failed at the Iceberg table step, before any offset was written: ${tables.error}.`;
    outcome = { ...outcome, message: `${head} ${rest}` };
  }
  if (tables.done.length === 0) return outcome;
  if (outcome.status === 'succeeded') return { ...outcome, message: `${outcome.message}; ${tables.describe()}` };
  const failed = await tables.undo(runId);
  const put = failed.length === 0 ? `The Iceberg table(s) it had set back were put back (${tables.done.map((s) => `${s.table} at ${s.current}`).join(', ')}).`
    : `The Iceberg table(s) could NOT all be put back: ${failed.join('; ')}; set them back by hand (snapshot ids in \`offsetctl runs show ${runId}\`).`;
  return { ...outcome, message: `${outcome.message} ${put}` };
}

/** The run's message rewritten with the tables' account (the run has finished: its lock was released already). */
async function recordAccount(ctx: OpsContext, runId: string, outcome: OperationOutcome): Promise<void> {
  const status = outcome.status === 'succeeded' ? 'succeeded' : 'failed';
  await ctx.store.finishRun(runId, { status, message: redactText(outcome.message), ...(outcome.connectorState ? { connectorState: outcome.connectorState } : {}) })
    .catch(() => undefined);
}

/** A resume point moved back to `stepId`: only the outputs of the steps before it are kept. */
function fromStep(resume: ResumePoint, order: readonly string[], stepId: string): ResumePoint {
  const before = new Set(order.slice(0, order.indexOf(stepId)));
  return { stepId, steps: Object.fromEntries(Object.entries(resume.steps).filter(([id]) => before.has(id))) };
}

function started(options: ApplyOptions, run: RunRecord, plan: Plan, resumeAt?: string): void {
  options.onEvent?.({
    type: 'ops.run.started', at: new Date().toISOString(), runId: run.id, operation: plan.operation,
    connector: run.connector, clusterUrl: run.clusterUrl, ...(resumeAt ? { resumeAt } : {}),
  });
}

/** The outcome of a plan with nothing to change (status `unchanged`, exit 0): nothing ran. */
export function unchangedOutcome(plan: Plan): import('../run/run-operation.js').OperationOutcome {
  const why = plan.operation === 'reset' ? `${plan.connector} has no offsets`
    : plan.operation === 'rollback' ? `${plan.connector} already has the offsets of snapshot ${plan.snapshotId} and is ${plan.stateBefore}`
      : `the ${plan.targetOffsets.length} partition(s) already have these offsets`;
  return {
    operation: plan.operation, connector: plan.connector, clusterUrl: plan.clusterUrl, status: 'unchanged', warnings: plan.warnings, diff: { ...plan.diff.counts },
    message: `nothing to change: ${why}; ${plan.connector} was not stopped and no snapshot was taken`,
    ...(plan.snapshotId ? { snapshotId: plan.snapshotId } : {}),
    ...(plan.positions ? { positions: plan.positions } : {}),
    ...(plan.profile ? { profile: { name: plan.profile.profile, facts: plan.profile.facts } } : {}),
  };
}

/** A dry run's outcome: the plan's counts and warnings, nothing changed. */
export function dryRunOutcome(plan: Plan): import('../run/run-operation.js').OperationOutcome {
  return {
    operation: plan.operation, connector: plan.connector, clusterUrl: plan.clusterUrl, status: 'dry-run',
    message: 'dry run: nothing was changed', warnings: plan.warnings, diff: { ...plan.diff.counts },
    ...(plan.snapshotId ? { snapshotId: plan.snapshotId } : {}),
    ...(plan.positions ? { positions: plan.positions } : {}),
    ...(plan.profile ? { profile: { name: plan.profile.profile, facts: plan.profile.facts } } : {}),
  };
}
