// Planning a change: everything read and checked before anything changes, as plain data. A plan
// is what a face shows (diff, warnings, the state the connector is left in) and asks about; it is
// then handed to applyPlan unchanged. Planning changes nothing anywhere: it reads Kafka Connect
// and the store, and refuses bad input with an OpsError whose code exits 2.
import type { ResumePoint } from '../arazzo/index.js';
import type { Operation, SnapshotRecord, StepRecord } from '../store/index.js';
import { getConnectorInfo, getOffsets, type ConnectorInfo, type TaskState } from './connect-client.js';
import type { OpsContext } from './context.js';
import { diffOffsets, type OffsetDiff } from './diff.js';
import { OpsError } from './errors.js';
import { offsetEntries, planSnapshotRestore, type ConnectorType, type OffsetEntry } from './offsets.js';
import { validateOffsetsShape } from './offsets-shape.js';
import { specFor, targetStateFor } from './operations.js';
import { checkPluginRules } from './plugin-rules.js';
import type { PositionTargets } from './positions-targets.js';
import { loadOpsWorkflow, WORKFLOW_FILES, type OpsWorkflow, type WorkflowKind } from './workflow-files.js';

/** After the change: `auto` puts the connector back as it was, `always` resumes it, `never` leaves it STOPPED. */
export type ResumeAfter = 'auto' | 'always' | 'never';
export type TargetState = 'RUNNING' | 'PAUSED' | 'STOPPED';

export interface Plan {
  operation: Operation | 'resume';
  /** The operation the workflow performs (for resume: the interrupted run's). */
  runOperation: Operation;
  connector: string;
  connectorType: ConnectorType;
  clusterUrl: string;
  /** The connector's state and tasks when planned. */
  stateBefore: string;
  tasks: TaskState[];
  /** The state the connector is left in afterwards, as far as known when planning. */
  stateAfter: string;
  resumeAfter?: ResumeAfter;
  currentOffsets: OffsetEntry[];
  /** What the change writes (rewind, resume), or what the offsets become (reset: none, rollback: the snapshot). */
  targetOffsets: OffsetEntry[];
  diff: OffsetDiff;
  warnings: string[];
  /** The diff is empty: applying would write offsets equal to the current ones. */
  nothingToChange: boolean;
  workflow: { kind: WorkflowKind; file: string; workflowId: string };
  /** The workflow inputs applyPlan runs with. */
  inputs: Record<string, unknown>;
  /** Rollback: the snapshot restored. */
  snapshotId?: string;
  snapshot?: Pick<SnapshotRecord, 'id' | 'takenAt' | 'partitions' | 'stateBefore'>;
  /** Resume: the interrupted run, and the step it continues at. */
  runId?: string;
  resumeAt?: string;
  /**
   * Rewind to a position (`--to-time`, `--to-earliest`, ...): how the target offsets were
   * computed, per partition (committed, target, log start/end, replayed/skipped records).
   */
  positions?: PositionTargets;
}

export interface RewindRequest {
  connector: string;
  /** The target offsets as data: `{"offsets": [...]}` or a bare list (never a file path). */
  offsets: unknown;
  resumeAfter?: ResumeAfter;
  /** The position these offsets were computed from (positionTargets), carried into the plan. */
  positions?: PositionTargets;
}

export interface ResetRequest {
  connector: string;
  resumeAfter?: ResumeAfter;
}

export interface RollbackRequest {
  connector: string;
  /** Default: the connector's latest snapshot on this cluster. */
  snapshotId?: string;
  /** Default: the state the connector had when the snapshot was taken (RUNNING, PAUSED; else STOPPED). */
  targetState?: TargetState;
}

export interface ResumeRequest {
  runId: string;
}

/**
 * Checks target offsets against the connector and shows what they change.
 *
 * @example const plan = await planRewind(ctx, { connector: 'orders-sink', offsets: { offsets: [...] } })
 */
export async function planRewind(ctx: OpsContext, req: RewindRequest): Promise<Plan> {
  const resumeAfter = req.resumeAfter ?? 'auto';
  const info = await getConnectorInfo(ctx.http, ctx.url, req.connector);
  validateOffsetsShape(info.type, req.offsets);
  const target = offsetEntries(req.offsets);
  const warnings = checkPluginRules(info.config, target);
  const current = offsetEntries(await getOffsets(ctx.http, ctx.url, req.connector));
  const planned = plan(ctx, info, {
    operation: 'rewind', kind: 'rewind', current, target, diff: diffOffsets(current, target), warnings,
    stateAfter: stateAfter(resumeAfter, info.state), resumeAfter,
    inputs: { connectorName: req.connector, offsets: target, resumeAfter },
  });
  if (req.positions) {
    if (req.positions.connector !== req.connector) throw new OpsError('E_USAGE', `positions computed for ${req.positions.connector} cannot plan a rewind of ${req.connector}`, { field: 'positions' });
    planned.positions = req.positions;
  }
  return planned;
}

/** Every offset of the connector deleted (a snapshot is kept by the run). */
export async function planReset(ctx: OpsContext, req: ResetRequest): Promise<Plan> {
  const resumeAfter = req.resumeAfter ?? 'auto';
  const info = await getConnectorInfo(ctx.http, ctx.url, req.connector);
  const current = offsetEntries(await getOffsets(ctx.http, ctx.url, req.connector));
  return plan(ctx, info, {
    operation: 'reset', kind: 'reset', current, target: [], diff: diffOffsets(current, [], { mode: 'replace' }), warnings: [],
    stateAfter: stateAfter(resumeAfter, info.state), resumeAfter,
    inputs: { connectorName: req.connector, resumeAfter },
  });
}

/** A snapshot put back exactly: its partitions written, partitions it does not have removed. */
export async function planRollback(ctx: OpsContext, req: RollbackRequest): Promise<Plan> {
  const snapshot = await findSnapshot(ctx, req);
  const info = await getConnectorInfo(ctx.http, ctx.url, req.connector);
  if (info.type !== snapshot.connectorType) {
    throw new OpsError('E_PREFLIGHT', `snapshot ${snapshot.id} holds ${snapshot.connectorType} offsets but ${req.connector} is now a ${info.type} connector; nothing was changed`);
  }
  const current = offsetEntries(await getOffsets(ctx.http, ctx.url, req.connector));
  const restore = offsetEntries(snapshot.offsets);
  const targetState = req.targetState ?? targetStateFor(snapshot.stateBefore);
  return {
    ...plan(ctx, info, {
      operation: 'rollback', kind: 'restore', current, target: restore, diff: diffOffsets(current, restore, { mode: 'replace' }), warnings: [],
      stateAfter: targetState,
      inputs: { connectorName: req.connector, offsets: planSnapshotRestore(restore, current), targetState },
    }),
    snapshotId: snapshot.id,
    snapshot: { id: snapshot.id, takenAt: snapshot.takenAt, partitions: snapshot.partitions, stateBefore: snapshot.stateBefore },
  };
}

/**
 * Finishing an interrupted run from its journal. Refused when the run finished, when it died
 * during its own recovery (then rollback is the way), or when it ran against another cluster.
 */
export async function planResume(ctx: OpsContext, req: ResumeRequest): Promise<Plan> {
  const run = await ctx.store.getRun(req.runId).catch((err: unknown) => {
    throw (err as { code?: string }).code === 'E_NOT_FOUND' ? new OpsError('E_PREFLIGHT', (err as Error).message, { field: 'run' }) : err;
  });
  if (run.status !== 'running') {
    throw new OpsError('E_PREFLIGHT', `run ${run.id} is ${run.status}: there is nothing to resume (see \`offsetctl runs show ${run.id}\`)`);
  }
  if (run.context.recoveryStarted) {
    throw new OpsError('E_PREFLIGHT', `run ${run.id} died while putting the connector back after a failure; undo it with \`offsetctl rollback ${run.connector}\` instead`);
  }
  if (run.clusterUrl !== ctx.url) {
    throw new OpsError('E_PREFLIGHT', `run ${run.id} ran against ${run.clusterUrl}, but this command is connected to ${ctx.url}; pass --url ${run.clusterUrl} (with its credentials) or the matching --context`, { field: 'url' });
  }
  const spec = specFor(run.operation);
  const workflow = await loadOpsWorkflow(spec.workflow, run.clusterUrl);
  const resume = resumePointFor(workflow, await ctx.store.stepsOf(run.id));
  const info = await getConnectorInfo(ctx.http, ctx.url, run.connector);
  // The type as Kafka Connect reports it now: a journal may lack it (older versions did not
  // record it), and a source's rules applied to a sink would store the wrong snapshot. A
  // recorded type that no longer matches means the connector was replaced.
  const recorded = run.context.connectorType;
  if (recorded !== undefined && recorded !== info.type) {
    throw new OpsError('E_PREFLIGHT', `run ${run.id} worked on ${run.connector} as a ${recorded} connector, but it is now a ${info.type} connector; nothing was changed (undo the run with \`offsetctl rollback ${run.connector}\` if its snapshot fits)`);
  }
  const current = offsetEntries(await getOffsets(ctx.http, ctx.url, run.connector));
  const target = offsetEntries(run.inputs.offsets ?? []);
  const diff = run.operation === 'reset' ? diffOffsets(current, [], { mode: 'replace' }) : diffOffsets(current, target);
  const resumeAfter = run.inputs.resumeAfter;
  const before = run.context.stateBefore ?? info.state;
  return {
    ...plan(ctx, info, {
      operation: 'resume', runOperation: run.operation, kind: spec.workflow, current, target, diff, warnings: [],
      stateAfter: typeof run.inputs.targetState === 'string' ? run.inputs.targetState : isResumeAfter(resumeAfter) ? stateAfter(resumeAfter, before) : before,
      ...(isResumeAfter(resumeAfter) ? { resumeAfter } : {}),
      inputs: run.inputs,
    }),
    runId: run.id,
    resumeAt: resume?.stepId ?? workflow.stepOrder[0] ?? '',
  };
}

/** A dry run's outcome: the plan's counts and warnings, nothing changed. */
export function dryRunOutcome(plan: Plan): import('./run-operation.js').OperationOutcome {
  return {
    operation: plan.operation, connector: plan.connector, clusterUrl: plan.clusterUrl, status: 'dry-run',
    message: 'dry run: nothing was changed', warnings: plan.warnings, diff: { ...plan.diff.counts },
    ...(plan.snapshotId ? { snapshotId: plan.snapshotId } : {}),
    ...(plan.positions ? { positions: plan.positions } : {}),
  };
}

/** Where to pick up an interrupted run: undefined means from the start (no step finished). */
export function resumePointFor(workflow: Pick<OpsWorkflow, 'workflowId' | 'stepOrder' | 'decisionSteps'>, journal: StepRecord[]): ResumePoint | undefined {
  const passed = journal.filter((s) => s.workflowId === workflow.workflowId && s.status === 'passed');
  const last = passed.at(-1);
  if (!last) return undefined;
  const steps: ResumePoint['steps'] = {};
  for (const s of passed) steps[s.stepId] = { outputs: s.outputs };
  const index = workflow.stepOrder.indexOf(last.stepId);
  const rerun = workflow.decisionSteps.has(last.stepId) || index === workflow.stepOrder.length - 1;
  const stepId = rerun ? last.stepId : workflow.stepOrder[index + 1]!;
  return { stepId, steps };
}

interface PlanParts {
  operation: Plan['operation'];
  runOperation?: Operation;
  kind: WorkflowKind;
  current: OffsetEntry[];
  target: OffsetEntry[];
  diff: OffsetDiff;
  warnings: string[];
  stateAfter: string;
  resumeAfter?: ResumeAfter;
  inputs: Record<string, unknown>;
}

function plan(ctx: OpsContext, info: ConnectorInfo, parts: PlanParts): Plan {
  const { changed, added, removed } = parts.diff.counts;
  return {
    operation: parts.operation,
    runOperation: parts.runOperation ?? (parts.operation as Operation),
    connector: info.name, connectorType: info.type, clusterUrl: ctx.url,
    stateBefore: info.state, tasks: info.tasks, stateAfter: parts.stateAfter,
    ...(parts.resumeAfter ? { resumeAfter: parts.resumeAfter } : {}),
    currentOffsets: parts.current, targetOffsets: parts.target, diff: parts.diff, warnings: parts.warnings,
    nothingToChange: changed + added + removed === 0,
    workflow: { kind: parts.kind, ...WORKFLOW_FILES[parts.kind] },
    inputs: parts.inputs,
  };
}

function stateAfter(resumeAfter: ResumeAfter, before: string): string {
  return resumeAfter === 'never' ? 'STOPPED' : resumeAfter === 'always' ? 'RUNNING' : before;
}

function isResumeAfter(value: unknown): value is ResumeAfter {
  return value === 'auto' || value === 'always' || value === 'never';
}

async function findSnapshot(ctx: OpsContext, req: RollbackRequest): Promise<SnapshotRecord> {
  if (req.snapshotId) {
    const snapshot = await ctx.store.getSnapshot(req.snapshotId).catch((err: unknown) => {
      throw (err as { code?: string }).code === 'E_NOT_FOUND' ? new OpsError('E_PREFLIGHT', (err as Error).message, { field: 'snapshot' }) : err;
    });
    if (snapshot.connector !== req.connector || snapshot.clusterUrl !== ctx.url) {
      throw new OpsError('E_PREFLIGHT', `snapshot ${snapshot.id} belongs to connector ${snapshot.connector} on ${snapshot.clusterUrl}, not ${req.connector} on ${ctx.url}; nothing was changed`, { field: 'snapshot' });
    }
    return snapshot;
  }
  const latest = await ctx.store.latestSnapshot(ctx.url, req.connector);
  if (!latest) {
    throw new OpsError('E_PREFLIGHT', `no snapshot of ${req.connector} on ${ctx.url} in ${ctx.store.location}: snapshots are taken by rewind, reset and rollback (list them with \`offsetctl snapshots\`)`);
  }
  return latest;
}
