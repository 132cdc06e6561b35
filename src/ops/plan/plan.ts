// Planning a change: everything read and checked before anything changes, as plain data. A plan
// is what a face shows (diff, warnings, the state the connector is left in) and asks about; it is
// then handed to applyPlan unchanged. Planning changes nothing anywhere: it reads Kafka Connect
// and the store, and refuses bad input with an OpsError whose code exits 2.
import { lockKeyOf, needsConnectGroup } from './lock-key.js';
import type { ResumePoint } from '../../arazzo/index.js';
import type { KafkaSettings } from '../../kafka/connection.js';
import {
  actorName, isGroupKey, lockBase, lockedError, StoreError, type ChangeOperation as Operation, type LockRecord, type RunRecord, type SnapshotRecord, type StepRecord,
} from '../../store/index.js';
import { clusterIdentity, connectGroupOf, lookupKeys, requireSupportedWorker, sameConnectCluster, WorkerRoot, type ClusterIdentity } from '../cluster/index.js';
import { getConnectorInfo, getOffsets, getSettledConnectorInfo, type ConnectorInfo, type TaskState } from '../connect/index.js';
import type { OpsContext } from '../context.js';
import { diffOffsets, checkPartitionCount, DEFAULT_LIMITS, offsetEntries, planSnapshotRestore, validateOffsetsShape, checkPluginRules, type OffsetDiff, type OffsetLimits, type ConnectorType, type OffsetEntry } from '../offsets/index.js';
import { changesNothing, defaultRollbackSnapshot } from './empty-change.js';
import { connectorIdentity, type ConnectorIdentity } from './identity.js';
import { OpsError } from '../errors.js';
import { fileSourceForwardTargets, sinkForwardTargets, checkSinkTargets, type ForwardTarget, type PositionTargets } from '../positions/index.js';
import { checkProfile, replayedRecords, type ProfileOptions, type ProfileReport, type RecordedTable, type SourceIdentity } from '../profiles/index.js';
import { specFor, targetStateFor, loadOpsWorkflow, WORKFLOW_FILES, type ResumeAfter, type TargetState, type OpsWorkflow, type WorkflowKind } from '../workflows/index.js';

export type { ResumeAfter, TargetState };

export interface Plan {
  operation: Operation | 'resume';
  /** The operation the workflow performs (for resume: the interrupted run's). */
  runOperation: Operation;
  connector: string;
  connectorType: ConnectorType;
  clusterUrl: string;
  /** The cluster's identity (`kafka:<kafka_cluster_id>`, else `url:<url>`): the run, its lock and snapshot are keyed by it. */
  clusterKey: string;
  /**
   * The Connect cluster's members when planned (ops/cluster/members.ts): two Connect clusters on
   * one Kafka cluster share `clusterKey`; a saved plan or a snapshot of the other is refused.
   */
  clusterMembers?: string[];
  /** Where its offsets live, the key its run locks (ops/plan/lock-key.ts): `clusterKey` or narrower; absent: `clusterKey`. */
  lockKey?: string;
  /** The connector as planned: cluster, name, type, class, topics (a saved plan is refused for another one). */
  identity: ConnectorIdentity;
  /** The connector's state and tasks when planned (a face shows FAILED tasks). */
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
  /**
   * Applying would change nothing: the diff is empty and the connector would end in the state it
   * is in. A face says so and does not apply (applyPlan then runs nothing: no stop, no snapshot).
   * Always false for resume: an interrupted run is finished even when its offsets are written.
   */
  nothingToChange: boolean;
  /** Targets beyond their partition's end (a sink's log end, a FileStreamSource's file size): shown, and applied only after an explicit yes. */
  forwardTargets: ForwardTarget[];
  /** Partitions per PATCH when applying (src/ops/offsets/limits.ts): a larger set is written chunk by chunk. */
  chunkSize: number;
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
   * Resume of a run that was cancelled (Ctrl-C) or died while putting its connector back: what
   * is finished is its recovery (the connector put back as it was, offsets restored from its
   * snapshot if they had changed), never the change the operator cancelled.
   */
  finishesRecovery?: boolean;
  /**
   * Resume: the run had stopped the connector, but it is not STOPPED now (someone resumed it
   * after the kill): the run goes on from its stop step, so the change is made on a stopped connector.
   */
  restopsConnector?: boolean;
  /** Rollback: the interrupted run it takes over, and that run's state before (its snapshot records that state, not the crash's). */
  supersedes?: { runId: string; stateBefore?: string };
  /**
   * Rewind to a position (`--to-time`, `--to-earliest`, ...): how the target offsets were
   * computed, per partition (committed, target, log start/end, replayed/skipped records).
   */
  positions?: PositionTargets;
  /**
   * What the connector's profile read and said (docs/connectors.md): facts shown with the plan,
   * and for a Debezium source the slot's identity, recorded with the run (a rollback checks it).
   * Its warnings are in `warnings`.
   */
  profile?: ProfileReport;
}

export interface RewindRequest {
  connector: string;
  /** The target offsets as data: `{"offsets": [...]}` or a bare list (never a file path). */
  offsets: unknown;
  resumeAfter?: ResumeAfter;
  /** The face's limits (flags, environment); default DEFAULT_LIMITS. */
  limits?: OffsetLimits;
  /**
   * The Kafka cluster, for the broker checks of sink targets (partition counts, log ends); without
   * it they are skipped with a warning (not for positions: those were read from the broker).
   */
  kafka?: KafkaSettings;
  /** The position these offsets were computed from (positionTargets), carried into the plan. */
  positions?: PositionTargets;
  /** For the connector's profile: its source database, the risks accepted (src/ops/profiles). */
  profile?: ProfileOptions;
}

export interface ResetRequest {
  connector: string;
  resumeAfter?: ResumeAfter;
  profile?: ProfileOptions;
}

export interface RollbackRequest {
  connector: string;
  /** Default: the connector's latest snapshot on this cluster. */
  snapshotId?: string;
  /** Default: the state the connector had when the snapshot was taken (RUNNING, PAUSED; else STOPPED). */
  targetState?: TargetState;
  limits?: OffsetLimits;
  profile?: ProfileOptions;
}

export interface ResumeRequest {
  runId: string;
  limits?: OffsetLimits;
  /** Without a source database a resumed run is not refused (it must be finishable): the risk is a warning. */
  profile?: ProfileOptions;
}

/**
 * Checks target offsets against the connector and shows what they change.
 *
 * @example const plan = await planRewind(ctx, { connector: 'orders-sink', offsets: { offsets: [...] } })
 */
export async function planRewind(ctx: OpsContext, req: RewindRequest): Promise<Plan> {
  const root = new WorkerRoot(ctx.http, ctx.url);
  const resumeAfter = req.resumeAfter ?? 'auto';
  // Refuse workers without the offsets API (below 3.6) before the connector is read.
  await requireSupportedWorker(root);
  const limits = req.limits ?? DEFAULT_LIMITS;
  if (req.positions && req.positions.connector !== req.connector) {
    throw new OpsError('E_USAGE', `positions computed for ${req.positions.connector} cannot plan a rewind of ${req.connector}`, { field: 'positions' });
  }
  const info = await getSettledConnectorInfo(ctx.http, ctx.url, req.connector);
  validateOffsetsShape(info.type, req.offsets);
  const target = offsetEntries(req.offsets);
  checkPartitionCount(target.length, limits, 'the offsets input');
  const warnings = checkPluginRules(info.config, target);
  // A sink's targets must name its topics (and, with the broker known, existing partitions);
  // targets beyond a partition's end are carried in the plan for the face to show and ask about.
  let forwardTargets: ForwardTarget[];
  if (info.type === 'sink') {
    // Position targets were just read from the broker the sink consumes from (partitions, log
    // start and end): asking a cluster again, maybe another one, would add nothing.
    if (!req.kafka && !req.positions) warnings.push('partition numbers and log ends were not checked against the broker; pass --bootstrap <host:port> (or set OFFSETCTL_BOOTSTRAP, or a context\'s bootstrap) to check them');
    const topics = await checkSinkTargets({ http: ctx.http, url: ctx.url, connector: info.name, config: info.config, target, ...(req.kafka ? { kafka: req.kafka } : {}) });
    forwardTargets = sinkForwardTargets(target, topics);
  } else {
    forwardTargets = fileSourceForwardTargets(info.config, target);
  }
  const current = offsetEntries(await getOffsets(ctx.http, ctx.url, req.connector));
  const diff = diffOffsets(current, target);
  const replayed = req.positions ? { records: req.positions.plan.totals.replay, wholePartitions: 0 } : replayedRecords(current, target);
  const report = await checkProfile({ operation: 'rewind', connector: info, current, target, ...(info.type === 'sink' ? { replayed } : {}), options: req.profile ?? {} });
  warnings.push(...report.warnings);
  const planned = plan(ctx, info, await withConnectGroup(ctx, info, await clusterIdentity(root, { members: true })), {
    operation: 'rewind', kind: 'rewind', current, target, diff, warnings,
    stateAfter: stateAfter(resumeAfter, info.state), resumeAfter, forwardTargets, chunkSize: limits.chunkSize,
    nothingToChange: changesNothing(diff, { now: info.state, resumeAfter }),
    inputs: { connectorName: req.connector, offsets: target, resumeAfter },
  });
  if (req.positions) planned.positions = req.positions;
  return withProfile(planned, report);
}

/** Every offset of the connector deleted (a snapshot is kept by the run). */
export async function planReset(ctx: OpsContext, req: ResetRequest): Promise<Plan> {
  const root = new WorkerRoot(ctx.http, ctx.url);
  const resumeAfter = req.resumeAfter ?? 'auto';
  // Refuse workers without the offsets API (below 3.6) before the connector is read.
  await requireSupportedWorker(root);
  const info = await getSettledConnectorInfo(ctx.http, ctx.url, req.connector);
  const current = offsetEntries(await getOffsets(ctx.http, ctx.url, req.connector));
  const diff = diffOffsets(current, [], { mode: 'replace' });
  const report = await checkProfile({ operation: 'reset', connector: info, current, target: [], options: req.profile ?? {} });
  return withProfile(plan(ctx, info, await withConnectGroup(ctx, info, await clusterIdentity(root, { members: true })), {
    operation: 'reset', kind: 'reset', current, target: [], diff, warnings: [...report.warnings],
    stateAfter: stateAfter(resumeAfter, info.state), resumeAfter,
    // Resetting a connector that has no offsets would only store an empty snapshot.
    nothingToChange: changesNothing(diff, { now: info.state, resumeAfter }),
    inputs: { connectorName: req.connector, resumeAfter },
  }), report);
}

/** A snapshot put back exactly: its partitions written, partitions it does not have removed. */
export async function planRollback(ctx: OpsContext, req: RollbackRequest): Promise<Plan> {
  const root = new WorkerRoot(ctx.http, ctx.url);
  const cluster = await clusterIdentity(root, { members: true });
  await refuseWhileHeld(ctx, cluster, req.connector);
  const warnings: string[] = [];
  const snapshot = await findSnapshot(ctx, cluster, req, warnings);
  // Taking over an interrupted run: the connector's state now (STOPPED by the crash, most often)
  // is an accident; "before" for this rollback is the state before the interrupted run.
  const interrupted = await interruptedRun(ctx, cluster, req.connector);
  // Refuse workers without the offsets API (below 3.6) before the connector is read.
  await requireSupportedWorker(root);
  const info = await getSettledConnectorInfo(ctx.http, ctx.url, req.connector);
  if (info.type !== snapshot.connectorType) {
    throw new OpsError('E_PREFLIGHT', `snapshot ${snapshot.id} holds ${snapshot.connectorType} offsets but ${req.connector} is now a ${info.type} connector; nothing was changed`);
  }
  const current = offsetEntries(await getOffsets(ctx.http, ctx.url, req.connector));
  const restore = offsetEntries(snapshot.offsets);
  const targetState = req.targetState ?? targetStateFor(snapshot.stateBefore);
  const limits = req.limits ?? DEFAULT_LIMITS;
  const offsets = planSnapshotRestore(restore, current);
  checkPartitionCount(offsets.length, limits, `the rollback to snapshot ${snapshot.id}`);
  const diff = diffOffsets(current, restore, { mode: 'replace' });
  const recorded = await recordedSource(ctx, snapshot.runId);
  const recordedTables = await recordedIcebergTables(ctx, snapshot.runId);
  const report = await checkProfile({
    operation: 'rollback', connector: info, current, target: restore, options: req.profile ?? {}, ...(recordedTables ? { recordedTables } : {}),
    ...(info.type === 'sink' ? { replayed: replayedRecords(current, restore, 'replace') } : {}), ...(recorded ? { recorded } : {}),
  });
  warnings.push(...report.warnings);
  return {
    ...withProfile(plan(ctx, info, await withConnectGroup(ctx, info, cluster), {
      operation: 'rollback', kind: 'restore', current, target: restore, diff, warnings,
      stateAfter: targetState, chunkSize: limits.chunkSize,
      // An Iceberg sink's tables to restore are a change even when the offsets are as in the snapshot.
      nothingToChange: changesNothing(diff) && info.state === targetState && !(report.iceberg?.steps.length),
      inputs: { connectorName: req.connector, offsets, targetState },
    }), report),
    snapshotId: snapshot.id,
    snapshot: { id: snapshot.id, takenAt: snapshot.takenAt, partitions: snapshot.partitions, stateBefore: snapshot.stateBefore },
    ...(interrupted ? { supersedes: { runId: interrupted.id, ...(interrupted.context.stateBefore ? { stateBefore: interrupted.context.stateBefore } : {}) } } : {}),
  };
}

/**
 * Finishing an interrupted run from its journal. Refused when the run finished, when it died
 * during its own recovery (then rollback is the way), or when it ran against another cluster.
 */
export async function planResume(ctx: OpsContext, req: ResumeRequest): Promise<Plan> {
  const root = new WorkerRoot(ctx.http, ctx.url);
  const run = await ctx.store.getRun(req.runId).catch((err: unknown) => {
    throw (err as { code?: string }).code === 'E_NOT_FOUND' ? new OpsError('E_PREFLIGHT', (err as Error).message, { field: 'run' }) : err;
  });
  if (run.status !== 'running') {
    throw new OpsError('E_PREFLIGHT', `run ${run.id} is ${run.status}: there is nothing to resume (see \`offsetctl runs show ${run.id}\`)`);
  }
  // Its holder is still there (its process, or on a team store its live lease): not interrupted,
  // so nobody else may take it over. Refused here, before the diff is shown and asked about.
  if (run.displayStatus === 'running') {
    const lock = await ctx.store.lockOf(run.clusterKey, run.connector);
    const holder = lock?.runId === run.id ? lock.actor : run.resumedBy ?? run.actor;
    const lease = lock?.expiresAt ? `, lease until ${lock.expiresAt}` : '';
    throw new OpsError('E_PREFLIGHT', `run ${run.id} is not interrupted: ${actorName(holder)} (pid ${run.pid} on ${run.hostname}${lease}) is working on it; wait for it to finish (\`offsetctl runs show ${run.id}\`)`, { field: 'run' });
  }
  // Another worker URL of the same cluster is the same cluster: the run's key decides.
  const cluster = await clusterIdentity(root, { members: true });
  if (!lookupKeys(cluster).includes(run.clusterKey)) {
    throw new OpsError('E_PREFLIGHT', `run ${run.id} ran against ${run.clusterUrl}, but this command is connected to ${ctx.url}, which is another cluster; pass --url ${run.clusterUrl} (with its credentials) or the matching --context`, { field: 'url' });
  }
  const spec = specFor(run.operation);
  const workflow = await loadOpsWorkflow(spec.workflow, run.clusterUrl);
  const resume = resumePointFor(workflow, await ctx.store.stepsOf(run.id));
  // Refuse workers without the offsets API (below 3.6) before the connector is read.
  await requireSupportedWorker(root);
  const info = await getConnectorInfo(ctx.http, ctx.url, run.connector);
  // The type as Kafka Connect reports it now: a journal may lack it (older versions did not
  // record it), and a source's rules applied to a sink would store the wrong snapshot. A
  // recorded type that no longer matches means the connector was replaced.
  const recorded = run.context.connectorType;
  if (recorded !== undefined && recorded !== info.type) {
    throw new OpsError('E_PREFLIGHT', `run ${run.id} worked on ${run.connector} as a ${recorded} connector, but it is now a ${info.type} connector; nothing was changed (undo the run with \`offsetctl rollback ${run.connector}\` if its snapshot fits)`);
  }
  const current = offsetEntries(await getOffsets(ctx.http, ctx.url, run.connector));
  const before = run.context.stateBefore ?? info.state;
  // Cancelled, or died while putting the connector back: finish that, not the change.
  if (run.context.recoveryStarted || run.context.cancelled) return planRecoveryFinish(ctx, run, info, cluster, current, before);
  const target = offsetEntries(run.inputs.offsets ?? []);
  const diff = run.operation === 'reset' ? diffOffsets(current, [], { mode: 'replace' }) : diffOffsets(current, target);
  const resumeAfter = run.inputs.resumeAfter;
  // The run had stopped the connector; someone brought it back since: it is stopped again first.
  const stopped = (await ctx.store.stepsOf(run.id)).some((s) => s.workflowId === workflow.workflowId && s.stepId === spec.stopStep && s.status === 'passed');
  const restopsConnector = stopped && info.state !== 'STOPPED' && resume !== undefined && workflow.stepOrder.indexOf(resume.stepId) > workflow.stepOrder.indexOf(spec.stopStep);
  const report = await checkProfile({
    operation: 'resume', connector: info, current, target: run.operation === 'reset' ? [] : target,
    ...(info.type === 'sink' ? { replayed: replayedRecords(current, target, run.operation === 'reset' ? 'replace' : 'merge') } : {}),
    // A run killed half-way has stopped its connector: it must stay finishable without the source database.
    options: { ...req.profile, finishingRun: true },
  });
  const warnings = restopsConnector
    ? [`since the run was interrupted, ${run.connector} changed: the run had STOPPED it, it is now ${info.state}${info.tasks.length > 0 ? ` with ${info.tasks.map((t) => `task ${t.id} ${t.state}`).join(', ')}` : ''} (someone brought it back); it is stopped again before the ${run.operation} goes on${run.context.snapshotId ? `, and its offsets may have moved since snapshot ${run.context.snapshotId} (which still holds those of before the run)` : ''}`]
    : [];
  warnings.push(...report.warnings);
  return {
    ...withProfile(plan(ctx, info, await withConnectGroup(ctx, info, cluster), {
      // specFor above refused the operations planned elsewhere (a move's, an import's).
      operation: 'resume', runOperation: run.operation as Operation, kind: spec.workflow, current, target, diff, warnings,
      nothingToChange: false, chunkSize: (req.limits ?? DEFAULT_LIMITS).chunkSize,
      stateAfter: typeof run.inputs.targetState === 'string' ? run.inputs.targetState : isResumeAfter(resumeAfter) ? stateAfter(resumeAfter, before) : before,
      ...(isResumeAfter(resumeAfter) ? { resumeAfter } : {}),
      inputs: run.inputs,
    }), report),
    runId: run.id,
    resumeAt: restopsConnector ? spec.stopStep : resume?.stepId ?? workflow.stepOrder[0] ?? '',
    ...(restopsConnector ? { restopsConnector } : {}),
  };
}

/**
 * A cancelled run (or one that died during its recovery) is finished by putting the connector
 * back: the offsets of its snapshot where they may have changed, and the state of before.
 */
async function planRecoveryFinish(ctx: OpsContext, run: RunRecord, info: ConnectorInfo, cluster: ClusterIdentity, current: OffsetEntry[], before: string): Promise<Plan> {
  const mayHaveChanged = run.context.offsetsMayHaveChanged === true;
  const snapshot = mayHaveChanged && run.context.snapshotId ? offsetEntries((await ctx.store.getSnapshot(run.context.snapshotId)).offsets) : undefined;
  const target = snapshot ?? current;
  const diff = snapshot ? diffOffsets(current, snapshot, run.operation === 'reset' ? { mode: 'replace' } : {}) : diffOffsets(current, current);
  const targetState = targetStateFor(before);
  const why = run.context.cancelled ? 'was cancelled' : 'died while putting the connector back';
  return {
    ...plan(ctx, info, await withConnectGroup(ctx, info, cluster), {
      // planResume's specFor refused the operations planned elsewhere before this was called.
      operation: 'resume', runOperation: run.operation as Operation, kind: 'restore', current, target, diff,
      warnings: [`run ${run.id} (${run.operation} of ${run.connector}) ${why}: resuming it finishes its recovery, ${snapshot ? `writing back snapshot ${run.context.snapshotId} where the offsets differ and ` : 'with no offset to write back (none had changed), '}putting ${run.connector} back ${targetState}; the ${run.operation} itself is not made`],
      nothingToChange: false, stateAfter: targetState,
      inputs: { connectorName: run.connector, offsets: [], targetState },
    }),
    runId: run.id,
    resumeAt: 'recovery',
    finishesRecovery: true,
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
  nothingToChange: boolean;
  forwardTargets?: ForwardTarget[];
  chunkSize?: number;
  inputs: Record<string, unknown>;
}

/** The cluster with its Connect group, when the connector's lock needs it and Kafka can be asked (lock-key.ts). */
async function withConnectGroup(ctx: OpsContext, info: ConnectorInfo, cluster: ClusterIdentity): Promise<ClusterIdentity> {
  if (!ctx.kafkaCluster || !needsConnectGroup(info)) return cluster;
  const group = await connectGroupOf(ctx.kafkaCluster, cluster);
  return group ? { ...cluster, connectGroup: group } : cluster;
}

function plan(ctx: OpsContext, info: ConnectorInfo, cluster: ClusterIdentity, parts: PlanParts): Plan {
  return {
    operation: parts.operation,
    runOperation: parts.runOperation ?? (parts.operation as Operation),
    connector: info.name, connectorType: info.type, clusterUrl: ctx.url, clusterKey: cluster.key, identity: connectorIdentity(info, cluster),
    ...(cluster.members?.length ? { clusterMembers: cluster.members } : {}), lockKey: lockKeyOf(info, cluster.key, cluster.connectGroup),
    stateBefore: info.state, tasks: info.tasks, stateAfter: parts.stateAfter,
    ...(parts.resumeAfter ? { resumeAfter: parts.resumeAfter } : {}),
    currentOffsets: parts.current, targetOffsets: parts.target, diff: parts.diff, warnings: parts.warnings,
    nothingToChange: parts.nothingToChange, forwardTargets: parts.forwardTargets ?? [], chunkSize: parts.chunkSize ?? DEFAULT_LIMITS.chunkSize,
    workflow: { kind: parts.kind, ...WORKFLOW_FILES[parts.kind] },
    inputs: parts.inputs,
  };
}

/** The profile's facts and the slot's identity travel with the plan (its warnings are in plan.warnings already). */
function withProfile(planned: Plan, report: ProfileReport): Plan {
  if (report.facts.length > 0 || report.source || report.iceberg) planned.profile = report;
  return planned;
}

/** The Connect cluster's members recorded with the run that took a snapshot, if any (runs from before record none). */
async function snapshotMembers(ctx: OpsContext, snapshot: Pick<SnapshotRecord, 'runId'>): Promise<string[] | undefined> {
  if (!snapshot.runId) return undefined;
  const members = (await ctx.store.getRun(snapshot.runId).catch(() => undefined))?.context.clusterMembers;
  return Array.isArray(members) ? members.filter((m): m is string => typeof m === 'string') : undefined;
}

/** The source identity recorded with the run that took a snapshot (a Debezium source's slot), if any. */
async function recordedSource(ctx: OpsContext, runId: string | undefined): Promise<SourceIdentity | undefined> {
  if (!runId) return undefined;
  const run = await ctx.store.getRun(runId).catch(() => undefined);
  const source = run?.context.sourceIdentity;
  return source && typeof source === 'object' ? source as SourceIdentity : undefined;
}

/** An Iceberg sink's table heads recorded with the run that took a snapshot (src/ops/profiles/iceberg.ts), if any. */
async function recordedIcebergTables(ctx: OpsContext, runId: string | undefined): Promise<RecordedTable[] | undefined> {
  if (!runId) return undefined;
  const tables = (await ctx.store.getRun(runId).catch(() => undefined))?.context.icebergTables;
  return Array.isArray(tables) ? tables as RecordedTable[] : undefined;
}

function stateAfter(resumeAfter: ResumeAfter, before: string): string {
  return resumeAfter === 'never' ? 'STOPPED' : resumeAfter === 'always' ? 'RUNNING' : before;
}

function isResumeAfter(value: unknown): value is ResumeAfter {
  return value === 'auto' || value === 'always' || value === 'never';
}

async function findSnapshot(ctx: OpsContext, cluster: ClusterIdentity, req: RollbackRequest, warnings: string[]): Promise<SnapshotRecord> {
  if (req.snapshotId) {
    const snapshot = await ctx.store.getSnapshot(req.snapshotId).catch((err: unknown) => {
      throw (err as { code?: string }).code === 'E_NOT_FOUND' ? new OpsError('E_PREFLIGHT', (err as Error).message, { field: 'snapshot' }) : err;
    });
    if (snapshot.connector !== req.connector || !lookupKeys(cluster).includes(snapshot.clusterKey)) {
      throw new OpsError('E_PREFLIGHT', `snapshot ${snapshot.id} belongs to connector ${snapshot.connector} on ${snapshot.clusterUrl}, not ${req.connector} on ${ctx.url}; nothing was changed`, { field: 'snapshot' });
    }
    const takenOn = await snapshotMembers(ctx, snapshot);
    if (!sameConnectCluster(takenOn, cluster.members)) {
      throw new OpsError('E_PREFLIGHT', `snapshot ${snapshot.id} was taken on another Connect cluster of the same Kafka cluster (through ${snapshot.clusterUrl}, workers ${takenOn!.join(', ')}), `
        + `not the one ${ctx.url} belongs to; nothing was changed`, { field: 'snapshot' });
    }
    return snapshot;
  }
  // An interrupted run of this connector is what a plain `rollback` undoes: with its own snapshot,
  // never an older run's (that would silently undo the earlier run too).
  const interrupted = await interruptedRun(ctx, cluster, req.connector);
  if (interrupted) {
    const own = interrupted.context.snapshotId ?? (interrupted.operation === 'rollback' ? interrupted.context.restoringSnapshotId : undefined);
    if (own) {
      warnings.push(interrupted.context.snapshotId
        ? `rolling back interrupted run ${interrupted.id} (${interrupted.operation}) with its own snapshot ${own}`
        : `interrupted run ${interrupted.id} (a rollback to snapshot ${own}) had changed nothing yet; restoring ${own}, the snapshot it was restoring`);
      return ctx.store.getSnapshot(own);
    }
    const step = interrupted.lastStep ? `after step ${interrupted.lastStep}` : 'before its first step';
    throw new OpsError('E_PREFLIGHT', `run ${interrupted.id} (${interrupted.operation} of ${req.connector}) was interrupted ${step}, before its snapshot was stored: it changed no offsets, so there is nothing of it to roll back; nothing was changed. ` +
      `Finish it with \`offsetctl runs resume ${interrupted.id}\` (a cancelled run is finished by putting the connector back), or give it up without changing anything with \`offsetctl runs abandon ${interrupted.id} --reason <why>\` (which frees the lock; then \`offsetctl resume ${req.connector}\` if it is STOPPED); ` +
      `to restore an older snapshot anyway, name it: \`offsetctl rollback ${req.connector} --snapshot <id>\` (\`offsetctl snapshots ${req.connector}\` lists them)`, { field: 'snapshot' });
  }
  // Any worker URL of this cluster (and snapshots from before identities were known, through this URL).
  const listed = await ctx.store.listSnapshots({ connector: req.connector, clusterKeys: lookupKeys(cluster) });
  // Two Connect clusters on one Kafka cluster share the key: a snapshot taken on the other is never offered.
  const candidates: SnapshotRecord[] = [];
  for (const s of listed) {
    if (sameConnectCluster(await snapshotMembers(ctx, s), cluster.members)) candidates.push(s);
    else warnings.push(`snapshot ${s.id} was taken on another Connect cluster of the same Kafka cluster (through ${s.clusterUrl}): not offered`);
  }
  const { snapshot: latest, skipped } = await defaultRollbackSnapshot(ctx.store, candidates);
  if (skipped.length > 0) warnings.push(`skipped ${skipped.length} empty snapshot(s) taken by a reset of a connector that had no offsets (${skipped.map((s) => s.id).join(', ')})`);
  if (latest && latest.partitions === 0) warnings.push(`snapshot ${latest.id} is empty (${req.connector} had no offsets when it was taken): rolling back to it removes every current offset`);
  if (latest && latest.clusterUrl !== ctx.url) warnings.push(`snapshot ${latest.id} was taken through ${latest.clusterUrl}, another URL of the same cluster (${cluster.kafkaClusterId ?? cluster.key})`);
  if (!latest) {
    throw new OpsError('E_PREFLIGHT', `no snapshot of ${req.connector} on ${ctx.url} in ${ctx.store.location}: snapshots are taken by rewind, reset and rollback (list them with \`offsetctl snapshots\`)`);
  }
  return latest;
}

/**
 * A live holder (its process running; on the team store, its lease not yet passed) refuses a
 * rollback before anything else is looked at, its dry run too: the same E_LOCKED every time while
 * the lease lives, never "nothing of it to roll back" once and E_LOCKED the next (issue 30).
 */
async function refuseWhileHeld(ctx: OpsContext, cluster: ClusterIdentity, connector: string): Promise<void> {
  // A sink's group is the same offsets whichever Connect cluster runs it: held there, it is held here too.
  const lock = (await locksHere(ctx, cluster, connector)).find((l) => l.lock.alive && (l.here || isGroupKey(l.lock.clusterKey)))?.lock;
  if (lock) throw new StoreError('E_LOCKED', `${lockedError(lock).message} A rollback is refused while it holds the connector; nothing was changed.`);
}

/** The run whose process died while holding this connector's lock (`interrupted` in `runs`), if any. */
async function interruptedRun(ctx: OpsContext, cluster: ClusterIdentity, connector: string): Promise<RunRecord | undefined> {
  for (const { lock, run, here } of await locksHere(ctx, cluster, connector)) {
    if (here && !lock.alive && run?.status === 'running') return run;
  }
  return undefined;
}

/**
 * This connector's locks on this cluster, the exact keys first: under its keys or narrower ones
 * (lock-scope.ts). `here` is false for a narrow lock of a same-named connector in another Connect
 * cluster of the same Kafka cluster (its run's members do not meet these): narrow keys let both
 * be locked at once, and its run is not this connector's.
 */
async function locksHere(ctx: OpsContext, cluster: ClusterIdentity, connector: string): Promise<Array<{ lock: LockRecord; run: RunRecord | undefined; here: boolean }>> {
  const keys = lookupKeys(cluster);
  const mine = (await ctx.store.listLocks()).filter((l) => l.connector === connector && keys.includes(lockBase(l.clusterKey)))
    .sort((a, b) => Number(keys.includes(b.clusterKey)) - Number(keys.includes(a.clusterKey)));
  const out: Array<{ lock: LockRecord; run: RunRecord | undefined; here: boolean }> = [];
  for (const lock of mine) {
    const run = await ctx.store.getRun(lock.runId).catch(() => undefined);
    const members = run?.context.clusterMembers as string[] | undefined;
    out.push({ lock, run, here: lock.clusterKey === lockBase(lock.clusterKey) || sameConnectCluster(cluster.members, members) });
  }
  return out;
}
