// The console's only door into the operations: src/ops's plan → apply API re-exported as is (the
// same planning, checks, messages, journal and snapshot-before-change as the CLI), plus the few
// reads the pages need in the shapes they show (history with an unknown id as a refusal, pasted
// JSON read with the same reader as an offsets file, positions parsed with the same parser as
// `rewind --to-...`, log positions of the shown partitions). No page or handler imports src/ops
// or src/store directly; what both faces show is made in src/present.
import type { KafkaAccess } from '../kafka/connection.js';
import {
  clusterIdentity, lookupKeys, WorkerRoot, getConnectorInfo, getOffsets, listConnectors, offsetEntries, OpsError, parseOffsetsJson, parsePosition, planRewind, positionScope, positionTargets,
  type ConnectorInfo, type PositionFlags, type ConnectorSummary, type EventRecord, type OffsetEntry, type OpsContext, type Plan, type ResumeAfter,
  type ProfileOptions,
  type AuditRecord, type RunRecord, type SnapshotRecord, type StepRecord,
} from '../ops/index.js';
import { NO_KAFKA, readLogPositions, WITHOUT_SETTINGS, type LogPositionsResult, type ShownPartition } from './log-positions.js';

export { verifyAuditTrail } from '../ops/index.js';
export { actorName, applyAudited, approvalRule, auditRefusal, describeActor, OpsError, planReset, planResume, planRewind, planRollback } from '../ops/index.js';
export {
  checkApprovedChange, finishApplying, requestChange, requestedPlan, reviewChange, reviewedOps, sameIdentity, savePlan, startApplying,
} from '../ops/index.js';
// An approved move or copy request, applied from the console through the same door as the CLI's.
export { approvedMove, checkMoveRequest, isMoveRequest } from '../ops/index.js';
export { applyMoveAudited, planMove, type MovePlan } from '../ops/move/index.js';
export type { ClusterRef } from '../ops/move/index.js';
export type { MoveRequestDoc } from '../ops/changes/index.js';
export { applyBatch, incompleteCount, newBatchId, outcomeSentence, planBatch, summarize } from '../ops/index.js';
export type { BatchEvent, BatchRow, ChangeRequestRecord, CheckedPlan } from '../ops/index.js';
export { changeText, historyLines, statusText } from '../present/index.js';
export type {
  ActorSource,
  ApplyOptions, AuditActor, AuditRecord, AuditScope, ConnectorInfo, ConnectorSummary, EventRecord, OffsetEntry, OperationOutcome, OpsContext, OpsEvent, Plan, ResumeAfter,
  RunRecord, SharedConsoleState, SnapshotRecord, StepRecord, Store, TargetState, TaskState,
} from '../ops/index.js';
export type { OffsetDiffEntry as PlanDiffEntry } from '../ops/index.js';
export { isRefusal } from './refusal.js';
export type { PositionRow, PositionTargets } from '../ops/index.js';
export { positionTable } from '../present/index.js';
export type { LogPositionsResult, ShownPartition } from './log-positions.js';
export type { KafkaAccess };

export type Operation = Plan['operation'];

/** The console's context: the ops context plus Kafka access as `rewind` resolves it (secrets stay on the server). */
export type WebContext = OpsContext & {
  kafka?: KafkaAccess;
  /** The connector's profile options from the context (its `source-db:`): what a preview reads a Debezium source's slot with. */
  profile?: (connector: string) => Promise<ProfileOptions>;
};

/** A position as the form sends it: texts are parsed by the CLI's parser, so bad input gets the CLI's message. */
export type SinkPosition = { kind: 'earliest' } | { kind: 'latest' } | { kind: 'time'; time: string } | { kind: 'shift'; by: string };

/**
 * Whether the change page offers positions for this connector (which kinds, looked up where), and
 * why not: the ops layer's positionScope, so the console offers what `rewind --to-...` can do.
 */
export type PositionSupport =
  | { offered: true; kinds: Array<SinkPosition['kind']>; lookup: string }
  | { offered: false; why: string; missing: 'kafka-access' | 'position-support' };

const PLAIN_SOURCE_WHY = 'a source connector\'s offsets are its plugin\'s own (file positions, row ids, ...), so no Kafka time or log position maps to them (positions work for sinks, MirrorSourceConnector, and FileStreamSource to the earliest or latest); edit the offsets or paste JSON';

export function positionSupport(ctx: WebContext, info: ConnectorInfo): PositionSupport {
  const scope = positionScope(info, ctx.kafka ?? WITHOUT_SETTINGS);
  const kinds = (positions: string[]): Array<SinkPosition['kind']> => positions.filter((k): k is SinkPosition['kind'] => ['earliest', 'latest', 'time', 'shift'].includes(k));
  switch (scope.kind) {
    case 'plain': return { offered: false, why: PLAIN_SOURCE_WHY, missing: 'position-support' };
    case 'file': return { offered: true, kinds: kinds(scope.positions), lookup: `earliest: position 0 of ${scope.file} (the whole file is read again); latest: its size, read where the console runs` };
    case 'sink':
    case 'mirror':
      if (!scope.servers) return { offered: false, why: `positions need Kafka access: ${NO_KAFKA}`, missing: 'kafka-access' };
      return { offered: true, kinds: kinds(scope.positions), lookup: scope.kind === 'sink'
        ? `every partition of every topic the sink consumes, looked up on Kafka at ${scope.servers.join(',')}`
        : `every partition the MirrorMaker source copies, looked up on its source cluster at ${scope.servers.join(',')}` };
  }
}

/**
 * A sink moved to a position on every partition of its topics: the CLI's `rewind --to-...` path,
 * call for call (parsePosition → positionTargets → planRewind with the position table), so the
 * preview is the same diff as `rewind --to-... --dry-run` and the same refusals.
 */
export async function planPosition(
  ctx: WebContext, req: { connector: string; position: SinkPosition; resumeAfter?: ResumeAfter; profile?: ProfileOptions },
): Promise<Plan> {
  // Bad input is refused before anything is read, as the CLI parses its flags first.
  const position = parsePosition(positionFlags(req.position), Date.now());
  const info = await getConnectorInfo(ctx.http, ctx.url, req.connector);
  const support = positionSupport(ctx, info);
  if (!support.offered) {
    const noKafka = support.missing === 'kafka-access';
    throw new OpsError(noKafka ? 'E_CONFIG' : 'E_USAGE', `${req.connector}: ${support.why}`, { field: noKafka ? 'bootstrap' : 'position' });
  }
  if (!support.kinds.includes(req.position.kind)) throw new OpsError('E_USAGE', `${req.connector}: only ${support.kinds.join(', ')} can be computed for it (${support.lookup}); edit the offsets or paste JSON for another position`, { field: 'position' });
  const targets = await positionTargets(ctx, req.connector, position, ctx.kafka ?? WITHOUT_SETTINGS, { clientId: 'offsetctl-ui' });
  return planRewind(ctx, {
    connector: req.connector, offsets: targets.offsets, positions: targets, ...(req.resumeAfter ? { resumeAfter: req.resumeAfter } : {}),
    ...(req.profile ? { profile: req.profile } : {}),
  });
}

/**
 * The form's position as the CLI's flags. The time input is UTC without a zone
 * (`2026-11-30T14:05`): the zone is added here, and the text is then read by the CLI's parser.
 */
export function positionFlags(position: SinkPosition): PositionFlags {
  switch (position.kind) {
    case 'earliest': return { toEarliest: true };
    case 'latest': return { toLatest: true };
    case 'shift': return { shiftBy: position.by };
    case 'time': {
      const t = position.time.trim();
      if (t === '') throw new OpsError('E_USAGE', '--to-time: no time given; pick a date and time (UTC)', { field: 'to-time' });
      return { toTime: /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(t) ? `${t}Z` : t };
    }
  }
}

/** Log start/end and lag of the shown partitions of a sink (see log-positions.ts); never throws. */
export async function logPositions(ctx: WebContext, info: ConnectorInfo, shown: readonly ShownPartition[]): Promise<LogPositionsResult> {
  return readLogPositions(ctx, info, ctx.kafka, shown);
}

export async function listConnectorsOf(ctx: OpsContext): Promise<ConnectorSummary[]> {
  return listConnectors(ctx.http, ctx.url);
}

export async function connectorInfo(ctx: OpsContext, name: string): Promise<ConnectorInfo> {
  return getConnectorInfo(ctx.http, ctx.url, name);
}

export async function connectorOffsets(ctx: OpsContext, name: string): Promise<OffsetEntry[]> {
  return offsetEntries(await getOffsets(ctx.http, ctx.url, name));
}

/**
 * Parses pasted offsets JSON with the reader `rewind --offsets` uses, so a typo gets the CLI's
 * message (with line and column); `source` names the input in that message.
 */
export async function parseOffsetsText(text: string, source = 'pasted offsets'): Promise<unknown> {
  try {
    return parseOffsetsJson(text, '<stdin>');
  } catch (err) {
    if (err instanceof OpsError) {
      throw new OpsError(err.code, err.message.replace(/^<stdin>/, source).replace('fix the file and run again', 'fix it and preview again'), { ...(err.field ? { field: err.field } : {}) });
    }
    throw err;
  }
}

// Store reads (history pages), limited to the cluster the console is connected to: by the
// cluster's identity (the Kafka cluster id its worker reports), as the CLI finds snapshots and
// locks, so every worker URL of one cluster shows the same runs and snapshots (with a team
// store, also those colleagues made through other workers).

/**
 * Which rows are this cluster's (one GET / to the worker): those under its identity's keys; a
 * worker that does not say which Kafka cluster it serves (unreachable now) leaves the rows made
 * through this URL, as before identities were known.
 */
async function ofThisCluster(ctx: OpsContext): Promise<{ clusterKeys: string[] } | { clusterUrl: string }> {
  const identity = await clusterIdentity(new WorkerRoot(ctx.http, ctx.url));
  return identity.kafkaClusterId ? { clusterKeys: lookupKeys(identity) } : { clusterUrl: ctx.url };
}

/**
 * Whether a run, snapshot or change request is of the context's cluster, by the lists' rule: an id
 * of another context's cluster in an address is refused as if it did not exist.
 */
export async function ofContextCluster(ctx: OpsContext): Promise<(row: { clusterUrl: string; clusterKey: string }) => boolean> {
  const scope = await ofThisCluster(ctx);
  return 'clusterKeys' in scope ? (row) => scope.clusterKeys.includes(row.clusterKey) : (row) => row.clusterUrl === ctx.url;
}

export async function listRuns(ctx: OpsContext, filter: { connector?: string; limit?: number } = {}): Promise<RunRecord[]> {
  return ctx.store.listRuns({ ...(await ofThisCluster(ctx)), ...filter });
}

export async function getRun(ctx: OpsContext, runId: string): Promise<RunRecord> {
  return notFoundAsRefusal(ctx.store.getRun(runId), 'run');
}

export async function runSteps(ctx: OpsContext, runId: string): Promise<StepRecord[]> {
  return ctx.store.stepsOf(runId);
}

export async function runEvents(ctx: OpsContext, runId: string): Promise<EventRecord[]> {
  return ctx.store.eventsOf(runId);
}

export async function listSnapshots(ctx: OpsContext, filter: { connector?: string } = {}): Promise<SnapshotRecord[]> {
  return ctx.store.listSnapshots({ ...(await ofThisCluster(ctx)), ...filter });
}

export async function getSnapshot(ctx: OpsContext, id: string): Promise<SnapshotRecord> {
  return notFoundAsRefusal(ctx.store.getSnapshot(id), 'snapshot');
}

/**
 * The audit trail, newest first (the audit page filters it further by what the user may see).
 * `thisCluster`: only the entries about the context's cluster, and those about no cluster (a
 * sign-in): a grant is scoped by context, so a connector name a user may see here says nothing of
 * a connector of that name on another context's cluster.
 */
export async function listAudit(ctx: OpsContext, filter: { connector?: string; since?: Date; limit?: number } = {}, options: { thisCluster?: boolean } = {}): Promise<AuditRecord[]> {
  if (!options.thisCluster) return ctx.store.listAudit(filter);
  // Filtered in the store, before its limit: a page then has up to `limit` rows of this cluster.
  const keys = lookupKeys(await clusterIdentity(new WorkerRoot(ctx.http, ctx.url)));
  return ctx.store.listAudit({ ...filter, clusterKeys: keys, withoutCluster: true });
}

/** Whether a team policy requires approval for some change on this context's cluster (one GET / to the worker, one store read). */
export async function clusterRequiresApproval(ctx: OpsContext): Promise<boolean> {
  const keys = lookupKeys(await clusterIdentity(new WorkerRoot(ctx.http, ctx.url)));
  return (await ctx.store.listPolicies({ clusterKeys: keys })).some((p) => p.requireApproval);
}

/** An unknown id is a refusal naming the field, as planRollback/planResume make it. */
async function notFoundAsRefusal<T>(read: Promise<T>, field: string): Promise<T> {
  try {
    return await read;
  } catch (err) {
    if ((err as { code?: string }).code === 'E_NOT_FOUND') throw new OpsError('E_PREFLIGHT', (err as Error).message, { field });
    throw err;
  }
}
