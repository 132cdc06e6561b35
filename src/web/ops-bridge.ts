// The console's only door into the operations: src/ops's plan → apply API re-exported as is (the
// same planning, checks, messages, journal and snapshot-before-change as the CLI), plus the few
// reads the pages need in the shapes they show (history with an unknown id as a refusal, pasted
// JSON read with the CLI's reader) and the capabilities the ops layer does not have yet. No page
// or handler imports src/ops or src/store directly.
import { Readable } from 'node:stream';
import { readOffsetsInput } from '../cli/offsets-input.js';
import {
  getConnectorInfo, getOffsets, listConnectors, offsetEntries, OpsError,
  type ConnectorInfo, type ConnectorSummary, type EventRecord, type OffsetEntry, type OpsContext, type Plan, type ResumeAfter,
  type RunRecord, type SnapshotRecord, type StepRecord,
} from '../ops/index.js';

export { applyPlan, OpsError, planReset, planResume, planRewind, planRollback } from '../ops/index.js';
export type {
  ApplyOptions, ConnectorInfo, ConnectorSummary, EventRecord, OffsetEntry, OperationOutcome, OpsContext, OpsEvent, Plan, ResumeAfter,
  RunRecord, SnapshotRecord, StepRecord, Store, TargetState, TaskState,
} from '../ops/index.js';
export type { OffsetDiffEntry as PlanDiffEntry } from '../ops/index.js';
export { isRefusal } from './refusal.js';

export type Operation = Plan['operation'];

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

export async function connectorOffsets(ctx: OpsContext, name: string): Promise<OffsetEntry[]> {
  return offsetEntries(await getOffsets(ctx.http, ctx.url, name));
}

/**
 * Parses pasted offsets JSON with the CLI's reader, so a typo gets the CLI's message (with line
 * and column); `source` names the input in that message.
 */
export async function parseOffsetsText(text: string, source = 'pasted offsets'): Promise<unknown> {
  try {
    return await readOffsetsInput('-', Readable.from([Buffer.from(text, 'utf8')]));
  } catch (err) {
    if (err instanceof OpsError) {
      throw new OpsError(err.code, err.message.replace(/^<stdin>/, source).replace('fix the file and run again', 'fix it and preview again'), { ...(err.field ? { field: err.field } : {}) });
    }
    throw err;
  }
}

// Store reads (history pages), limited to the cluster the console is connected to.

export async function listRuns(ctx: OpsContext, filter: { connector?: string; limit?: number } = {}): Promise<RunRecord[]> {
  return ctx.store.listRuns({ clusterUrl: ctx.url, ...filter });
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
  return ctx.store.listSnapshots({ clusterUrl: ctx.url, ...filter });
}

export async function getSnapshot(ctx: OpsContext, id: string): Promise<SnapshotRecord> {
  return notFoundAsRefusal(ctx.store.getSnapshot(id), 'snapshot');
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
