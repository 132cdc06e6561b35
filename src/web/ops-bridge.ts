// The console's only door into the operations. It exposes the plan/apply API the ops layer is
// moving to (planRewind, planReset, planRollback, planResume, applyPlan over an OpsContext),
// implemented here over today's functions: the plan is today's pre-flight (the same checks, the
// same messages, nothing sent but reads), and applying it is today's rewindConnector /
// resetConnector / rollbackConnector / resumeRun with `yes` (the console asked already, by
// having the operator type the connector's name). When src/ops exports plan/apply itself, this
// file shrinks to re-exports; no page or handler imports src/ops or src/store directly.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import type { RunEvent } from '../arazzo/index.js';
import type { HttpSender } from '../http/client.js';
import { getConnectorInfo, getOffsets, listConnectors, type ConnectorInfo, type ConnectorSummary } from '../ops/connect-client.js';
import { diffOffsets, type DiffKind } from '../ops/diff.js';
import { OpsError } from '../ops/errors.js';
import { offsetsList as planEntries, planSnapshotRestore } from '../ops/offsets-plan.js';
import { offsetsList, validateOffsetsShape } from '../ops/offsets-shape.js';
import { targetStateFor } from '../ops/operations.js';
import { checkPluginRules } from '../ops/plugin-rules.js';
import { readOffsetsInput } from '../ops/preflight-input.js';
import type { OperationOutcome } from '../ops/run-operation.js';
import type { OpsConnection, OpsIO, ResumeAfter } from '../ops/begin-change.js';
import type { EventRecord, RunRecord, SnapshotRecord, StepRecord, Store } from '../store/index.js';

export { OpsError } from '../ops/errors.js';
export type { RunEvent } from '../arazzo/index.js';
export type { OperationOutcome } from '../ops/run-operation.js';
export type { ConnectorInfo, ConnectorSummary, TaskState } from '../ops/connect-client.js';
export type { EventRecord, RunRecord, SnapshotRecord, StepRecord, Store } from '../store/index.js';
export { isRefusal } from './refusal.js';

export interface OpsContext {
  url: string;
  http: HttpSender;
  store: Store;
}

export type Operation = 'rewind' | 'reset' | 'rollback' | 'resume';

export interface PlanDiffEntry {
  key: string;
  partition: Record<string, unknown>;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  kind: DiffKind;
}

/** Everything a change would do, as plain data: the console previews it, applyPlan runs it. */
export interface Plan {
  operation: Operation;
  connector: string;
  connectorType: 'source' | 'sink';
  clusterUrl: string;
  stateBefore: string;
  tasks: number;
  current: unknown[];
  /** The offsets the operation writes (for rewind, the operator's entries). */
  target: unknown[];
  diff: { entries: PlanDiffEntry[]; counts: Record<DiffKind, number> };
  warnings: string[];
  nothingToChange: boolean;
  resumeAfter?: ResumeAfter;
  targetState?: 'RUNNING' | 'PAUSED' | 'STOPPED';
  snapshotId?: string;
  runId?: string;
}

/**
 * What the console may offer beyond today's operations. Sink positions (time, earliest, latest,
 * shift-by) and the topic's log start/end/lag come with the Kafka position work; the pages show
 * those controls and columns only when these are true.
 */
export const capabilities = { sinkPositions: false, logPositions: false } as const;

export type SinkPosition = { kind: 'earliest' } | { kind: 'latest' } | { kind: 'time'; time: string } | { kind: 'shift'; by: number };

/**
 * A sink moved to a position on every partition of its topics. Not available until the ops
 * layer can read the topics' positions (capabilities.sinkPositions); then this calls it.
 */
export async function planPosition(_ctx: OpsContext, _req: { connector: string; position: SinkPosition; resumeAfter?: ResumeAfter }): Promise<Plan> {
  throw new OpsError('E_USAGE', 'moving a sink to a position (time, earliest, latest, shift-by) needs Kafka access, which this build of offsetctl does not have yet; edit the offsets or paste JSON instead', { field: 'position' });
}

/** Log start/end and lag per `topic/partition` of a sink (capabilities.logPositions); undefined when not available. */
export async function logPositions(_ctx: OpsContext, _connector: string): Promise<Record<string, { logStart?: number; logEnd?: number; lag?: number }> | undefined> {
  return undefined;
}

export async function listConnectorsOf(ctx: OpsContext): Promise<ConnectorSummary[]> {
  return listConnectors(ctx.http, ctx.url);
}

export async function connectorInfo(ctx: OpsContext, name: string): Promise<ConnectorInfo> {
  return getConnectorInfo(ctx.http, ctx.url, name);
}

export async function connectorOffsets(ctx: OpsContext, name: string): Promise<unknown[]> {
  return offsetsList(await getOffsets(ctx.http, ctx.url, name));
}

/**
 * Parses pasted offsets JSON with the CLI's reader, so a typo gets the CLI's message (with line
 * and column); `source` names the input in that message.
 */
export async function parseOffsetsText(text: string, source = 'pasted offsets'): Promise<unknown> {
  try {
    return await readOffsetsInput('-', Readable.from([Buffer.from(text, 'utf8')]));
  } catch (err) {
    if (err instanceof OpsError) throw new OpsError(err.code, err.message.replace(/^<stdin>/, source).replace('fix the file and run again', 'fix it and preview again'), { ...(err.field ? { field: err.field } : {}) });
    throw err;
  }
}

export async function planRewind(ctx: OpsContext, req: { connector: string; offsets: unknown; resumeAfter?: ResumeAfter }): Promise<Plan> {
  const info = await getConnectorInfo(ctx.http, ctx.url, req.connector);
  validateOffsetsShape(info.type, req.offsets);
  const target = offsetsList(req.offsets);
  const warnings = checkPluginRules(info.config, target as Parameters<typeof checkPluginRules>[1]);
  const current = offsetsList(await getOffsets(ctx.http, ctx.url, req.connector));
  const diff = diffOffsets(current, target);
  return planOf('rewind', ctx, info, current, target, diff, warnings, { resumeAfter: req.resumeAfter ?? 'auto' });
}

export async function planReset(ctx: OpsContext, req: { connector: string; resumeAfter?: ResumeAfter }): Promise<Plan> {
  const info = await getConnectorInfo(ctx.http, ctx.url, req.connector);
  const current = offsetsList(await getOffsets(ctx.http, ctx.url, req.connector));
  const diff = diffOffsets(current, [], { mode: 'replace' });
  return planOf('reset', ctx, info, current, [], diff, [], { resumeAfter: req.resumeAfter ?? 'auto' });
}

export async function planRollback(ctx: OpsContext, req: { connector: string; snapshotId?: string; targetState?: 'RUNNING' | 'PAUSED' | 'STOPPED' }): Promise<Plan> {
  const snapshot = findSnapshot(ctx, req.connector, req.snapshotId);
  const info = await getConnectorInfo(ctx.http, ctx.url, req.connector);
  if (info.type !== snapshot.connectorType) {
    throw new OpsError('E_PREFLIGHT', `snapshot ${snapshot.id} holds ${snapshot.connectorType} offsets but ${req.connector} is now a ${info.type} connector; nothing was changed`);
  }
  const current = offsetsList(await getOffsets(ctx.http, ctx.url, req.connector));
  const target = planSnapshotRestore(planEntries(snapshot.offsets), planEntries(current));
  const diff = diffOffsets(current, snapshot.offsets, { mode: 'replace' });
  return planOf('rollback', ctx, info, current, target, diff, [], {
    snapshotId: snapshot.id, targetState: req.targetState ?? targetStateFor(snapshot.stateBefore),
  });
}

export async function planResume(ctx: OpsContext, req: { runId: string }): Promise<Plan> {
  const run = getRun(ctx, req.runId);
  if (run.displayStatus !== 'interrupted') {
    throw new OpsError('E_PREFLIGHT', run.status === 'running'
      ? `run ${run.id} is still running in process ${run.pid}: there is nothing to resume yet`
      : `run ${run.id} is ${run.status}: there is nothing to resume (see \`offsetctl runs show ${run.id}\`)`);
  }
  if (run.clusterUrl !== ctx.url) {
    throw new OpsError('E_PREFLIGHT', `run ${run.id} ran against ${run.clusterUrl}, but this console is connected to ${ctx.url}; switch to the matching context`);
  }
  const info = await getConnectorInfo(ctx.http, ctx.url, run.connector);
  const current = offsetsList(await getOffsets(ctx.http, ctx.url, run.connector));
  const target = Array.isArray(run.inputs.offsets) ? run.inputs.offsets : [];
  const diff = diffOffsets(current, target, run.operation === 'rewind' ? {} : { mode: 'replace' });
  return planOf('resume', ctx, info, current, target, diff, [], { runId: run.id });
}

/**
 * Runs a plan: the same journaled, snapshot-first operation the CLI runs. `onEvent` gets the
 * engine's events as they happen. Refusals (lock held, pre-flight changed since the preview)
 * throw OpsError/StoreError; a run that started and failed returns status `failed`.
 */
export async function applyPlan(ctx: OpsContext, plan: Plan, options: { onEvent?: (event: RunEvent) => void; signal?: AbortSignal } = {}): Promise<OperationOutcome> {
  if (plan.clusterUrl !== ctx.url) throw new OpsError('E_PREFLIGHT', `this plan was made for ${plan.clusterUrl}, but the console is connected to ${ctx.url}; preview again`);
  const conn: OpsConnection = { url: ctx.url, http: ctx.http, stateDir: dirname(ctx.store.file) };
  const io: OpsIO = { info: () => undefined, color: false, ...(options.onEvent ? { onProgress: options.onEvent } : {}) };
  const flags = { yes: true, leaveStopped: plan.resumeAfter === 'never', resume: plan.resumeAfter === 'always' };
  switch (plan.operation) {
    case 'rewind': {
      // Today's rewind reads its offsets from a file: hand it the planned entries in a private one.
      const dir = mkdtempSync(join(tmpdir(), 'offsetctl-ui-'));
      const file = join(dir, 'offsets.json');
      writeFileSync(file, JSON.stringify({ offsets: plan.target }), { mode: 0o600 });
      try {
        return await (await import('../ops/rewind.js')).rewindConnector(conn, { ...flags, connector: plan.connector, offsets: file }, io);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    case 'reset':
      return (await import('../ops/reset.js')).resetConnector(conn, { ...flags, connector: plan.connector }, io);
    case 'rollback':
      return (await import('../ops/rollback.js')).rollbackConnector(conn, {
        yes: true, connector: plan.connector, leaveStopped: plan.targetState === 'STOPPED', resume: plan.targetState === 'RUNNING',
        ...(plan.snapshotId ? { snapshotId: plan.snapshotId } : {}),
      }, io);
    case 'resume':
      return (await import('../ops/resume-run.js')).resumeRun(conn, plan.runId ?? '', io);
  }
}

// Store reads (history pages).

export function listRuns(ctx: OpsContext, filter: { connector?: string; limit?: number } = {}): RunRecord[] {
  return ctx.store.listRuns({ clusterUrl: ctx.url, ...filter });
}

export function getRun(ctx: OpsContext, runId: string): RunRecord {
  return notFoundAsRefusal(() => ctx.store.getRun(runId), 'run');
}

export function runSteps(ctx: OpsContext, runId: string): StepRecord[] {
  return ctx.store.stepsOf(runId);
}

export function runEvents(ctx: OpsContext, runId: string): EventRecord[] {
  return ctx.store.eventsOf(runId);
}

export function listSnapshots(ctx: OpsContext, filter: { connector?: string } = {}): SnapshotRecord[] {
  return ctx.store.listSnapshots({ clusterUrl: ctx.url, ...filter });
}

export function getSnapshot(ctx: OpsContext, id: string): SnapshotRecord {
  return notFoundAsRefusal(() => ctx.store.getSnapshot(id), 'snapshot');
}

function findSnapshot(ctx: OpsContext, connector: string, snapshotId: string | undefined): SnapshotRecord {
  if (snapshotId) {
    const snapshot = getSnapshot(ctx, snapshotId);
    if (snapshot.connector !== connector || snapshot.clusterUrl !== ctx.url) {
      throw new OpsError('E_PREFLIGHT', `snapshot ${snapshot.id} belongs to connector ${snapshot.connector} on ${snapshot.clusterUrl}, not ${connector} on ${ctx.url}; nothing was changed`, { field: 'snapshot' });
    }
    return snapshot;
  }
  const latest = ctx.store.latestSnapshot(ctx.url, connector);
  if (!latest) throw new OpsError('E_PREFLIGHT', `no snapshot of ${connector} on ${ctx.url}: snapshots are taken by rewind, reset and rollback`);
  return latest;
}

function notFoundAsRefusal<T>(read: () => T, field: string): T {
  try {
    return read();
  } catch (err) {
    if ((err as { code?: string }).code === 'E_NOT_FOUND') throw new OpsError('E_PREFLIGHT', (err as Error).message, { field });
    throw err;
  }
}

function planOf(
  operation: Operation, ctx: OpsContext, info: ConnectorInfo, current: unknown[], target: unknown[],
  diff: ReturnType<typeof diffOffsets>, warnings: string[], extra: Partial<Plan>,
): Plan {
  const { changed, added, removed } = diff.counts;
  return {
    operation, connector: info.name, connectorType: info.type, clusterUrl: ctx.url, stateBefore: info.state, tasks: info.tasks.length,
    current, target, diff: { entries: diff.entries, counts: diff.counts }, warnings,
    nothingToChange: changed + added + removed === 0, ...extra,
  };
}
