// Many connectors at once: one batch id, then two phases. Pre-flight (plan) every connector
// first, so a refusal refuses the whole batch before anything stops (or, with skipInvalid,
// leaves the refused ones out and says so). Then apply every plan with bounded concurrency:
// each connector runs its own journaled workflow (own lock, snapshot, run and recovery), and
// the runs overlap so their stops and resumes land in the same rebalance rounds. A failing
// run puts its own connector back; it never stops the others, which finish their change.
// The per-connector operations come in through ConnectorOps, so this file knows nothing of
// how a plan is made or applied (batch-ops.ts makes them of planRewind/…/applyPlan).
import { randomBytes } from 'node:crypto';
import type { ApplyOptions, OpsEvent, OperationOutcome } from '../run/index.js';
import type { DiffKind } from '../offsets/index.js';
import { OpsError } from '../errors.js';

/** What the batch reads of a plan; the ops layer's Plan has these fields and more. */
export interface BatchPlan {
  operation: string;
  connector: string;
  connectorType: 'source' | 'sink';
  stateBefore: string;
  diff: { counts: Record<DiffKind, number> };
  warnings: string[];
  nothingToChange: boolean;
}

/** applyPlan's options as a batch passes them: always with the batch id (stored in each run's context). */
export type BatchApplyOptions = Pick<ApplyOptions, 'onEvent' | 'signal'> & { batchId: string };

/** The per-connector operations a batch is made of. */
export interface ConnectorOps<P extends BatchPlan = BatchPlan> {
  /** Pre-flight: reads only. Throws a refusal (exit-2 code) when the connector cannot be changed. */
  plan(connector: string): Promise<P>;
  /** The journaled change of one connector; a run that fails recovers its connector itself. */
  apply(plan: P, options: BatchApplyOptions): Promise<OperationOutcome>;
  /** The connector's state now (for the summary of connectors that were not changed or whose run threw). */
  state(connector: string): Promise<string>;
  /**
   * Records the batch's members before the first one starts (the store's saveBatch), so a batch
   * killed half-way still knows those that never ran. Absent when the batch is already recorded.
   */
  record?(batchId: string, plans: readonly P[]): Promise<void>;
}

export type BatchRowStatus = 'succeeded' | 'unchanged' | 'failed' | 'skipped' | 'refused' | 'cancelled';

/** One connector's line of the summary. */
export interface BatchRow {
  connector: string;
  /**
   * succeeded / failed: the run ran (a failed run recovered the connector, see `recovered`);
   * unchanged: nothing to change (its offsets were already the target), so nothing ran;
   * skipped: refused in pre-flight and left out (skipInvalid); refused: refused when its run
   * began (e.g. another run took its lock), nothing changed; cancelled: not started (Ctrl-C).
   */
  status: BatchRowStatus;
  /** The connector's state at the end, read from Kafka Connect ('unknown' when it did not answer). */
  finalState: string;
  message: string;
  runId?: string;
  snapshotId?: string;
  failedStep?: string;
  /** For a failed run: whether its recovery put the connector back. */
  recovered?: boolean;
  diff?: Record<DiffKind, number>;
}

export interface BatchSummary {
  batchId: string;
  operation: string;
  total: number;
  counts: Record<BatchRowStatus, number>;
  connectors: BatchRow[];
}

export type BatchEvent =
  | { type: 'phase'; phase: 'preflight' | 'apply'; total: number }
  | { type: 'planned'; connector: string; done: number; total: number; refused?: string }
  | { type: 'started'; connector: string }
  /** A step of a connector's run began (`waiting`: it is polling, e.g. for STOPPED). */
  | { type: 'step'; connector: string; stepId: string; waiting: boolean }
  | { type: 'finished'; connector: string; done: number; total: number; row: BatchRow };

export interface BatchOptions {
  concurrency: number;
  onEvent?: (event: BatchEvent) => void;
  signal?: AbortSignal;
}

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 64;

/** `batch-YYYYMMDD-HHMMSS-xxxx`, like run and snapshot ids (sorts by time). */
export function newBatchId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `batch-${stamp}-${randomBytes(2).toString('hex')}`;
}

/** `--concurrency` as given on the command line; refused unless a whole number 1..MAX_CONCURRENCY. */
export function parseConcurrency(value: string | number | undefined): number {
  if (value === undefined) return DEFAULT_CONCURRENCY;
  const n = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY) {
    throw new OpsError('E_USAGE', `--concurrency ${String(value)} is not a whole number from 1 to ${MAX_CONCURRENCY}; pass e.g. --concurrency ${DEFAULT_CONCURRENCY}`, { field: 'concurrency' });
  }
  return n;
}

export interface PlannedBatch<P> {
  plans: P[];
  /** Refused in pre-flight and left out (only with skipInvalid). */
  skipped: BatchRow[];
}

/**
 * Phase 1: every connector's pre-flight (reads only). Any refusal throws E_PREFLIGHT naming
 * every refused connector and why, unless `skipInvalid`; then they come back as `skipped`.
 */
export async function planBatch<P extends BatchPlan>(
  ops: ConnectorOps<P>, connectors: readonly string[], options: BatchOptions & { skipInvalid?: boolean },
): Promise<PlannedBatch<P>> {
  const total = connectors.length;
  options.onEvent?.({ type: 'phase', phase: 'preflight', total });
  let done = 0;
  const results = await pool(connectors, options.concurrency, async (connector) => {
    try {
      const plan = await ops.plan(connector);
      options.onEvent?.({ type: 'planned', connector, done: ++done, total });
      return { connector, plan };
    } catch (err) {
      const refused = (err as Error).message;
      options.onEvent?.({ type: 'planned', connector, done: ++done, total, refused });
      return { connector, refused, code: (err as { code?: string }).code };
    }
  });
  const refused = results.filter((r) => r.refused !== undefined);
  if (refused.length > 0 && (!options.skipInvalid || refused.length === total)) {
    const lines = refused.map((r) => `  ${r.connector}: ${r.refused}`).join('\n');
    const hint = options.skipInvalid ? 'every connector was refused' : 'pass --skip-invalid to change the others and leave these out';
    throw new OpsError('E_PREFLIGHT', `pre-flight refused ${refused.length} of ${total} connector(s); nothing was changed (${hint}):\n${lines}`);
  }
  const skipped: BatchRow[] = [];
  for (const r of refused) {
    skipped.push({ connector: r.connector, status: 'skipped', finalState: await stateOrUnknown(ops, r.connector), message: `skipped: ${r.refused ?? ''}` });
  }
  return { plans: results.flatMap((r) => (r.plan ? [r.plan] : [])), skipped };
}

/**
 * Phase 2: apply every plan, at most `concurrency` at a time. Never throws for one connector:
 * each ends as a row. After an abort no further connector starts; the running ones get the
 * same signal, so their runs are cancelled and recover their connector.
 */
export async function applyBatch<P extends BatchPlan>(
  ops: ConnectorOps<P>, plans: readonly P[], batchId: string, options: BatchOptions,
): Promise<BatchRow[]> {
  const total = plans.length;
  // Before anything starts: a kill at any later moment leaves every member findable.
  await ops.record?.(batchId, plans);
  options.onEvent?.({ type: 'phase', phase: 'apply', total });
  let done = 0;
  return pool(plans, options.concurrency, async (plan) => {
    const row = await applyOne(ops, plan, batchId, options);
    options.onEvent?.({ type: 'finished', connector: plan.connector, done: ++done, total, row });
    return row;
  });
}

/** Both phases' rows as one summary, in the order the connectors were selected. */
export function summarize(batchId: string, operation: string, order: readonly string[], rows: readonly BatchRow[]): BatchSummary {
  const byName = new Map(rows.map((r) => [r.connector, r]));
  const connectors = order.flatMap((n) => (byName.has(n) ? [byName.get(n)!] : []));
  const counts: Record<BatchRowStatus, number> = { succeeded: 0, unchanged: 0, failed: 0, skipped: 0, refused: 0, cancelled: 0 };
  for (const r of connectors) counts[r.status]++;
  return { batchId, operation, total: connectors.length, counts, connectors };
}

/** Connectors the batch did not finish: failed, refused or cancelled (unchanged counts as done). */
export function incompleteCount(summary: BatchSummary): number {
  return summary.counts.failed + summary.counts.refused + summary.counts.cancelled;
}

/** "2 of 3 connector(s) succeeded, 1 did not": how a batch ended, for a change request's history. */
export function outcomeSentence(summary: BatchSummary): string {
  const incomplete = incompleteCount(summary);
  return `${summary.counts.succeeded} of ${summary.total} connector(s) succeeded${incomplete > 0 ? `, ${incomplete} did not` : ''}`;
}

async function applyOne<P extends BatchPlan>(ops: ConnectorOps<P>, plan: P, batchId: string, options: BatchOptions): Promise<BatchRow> {
  const connector = plan.connector;
  if (options.signal?.aborted) {
    return { connector, status: 'cancelled', finalState: await stateOrUnknown(ops, connector), message: 'not started: the batch was cancelled; nothing was changed' };
  }
  options.onEvent?.({ type: 'started', connector });
  let waitingOn = '';
  const onEvent = (event: OpsEvent): void => {
    if (event.type === 'step.started' && event.attempt === 1) {
      waitingOn = '';
      options.onEvent?.({ type: 'step', connector, stepId: event.stepId, waiting: false });
    }
    if (event.type === 'action.taken' && event.action.type === 'retry' && waitingOn !== event.stepId) {
      waitingOn = event.stepId;
      options.onEvent?.({ type: 'step', connector, stepId: event.stepId, waiting: true });
    }
  };
  try {
    const outcome = await ops.apply(plan, { batchId, onEvent, ...(options.signal ? { signal: options.signal } : {}) });
    const finalState = outcome.connectorState ?? await stateOrUnknown(ops, connector);
    return {
      // A no-op (the offsets already are the target) is not a failure: one reset of it exits 0 too.
      connector, status: outcome.status === 'succeeded' ? 'succeeded' : outcome.status === 'unchanged' ? 'unchanged' : 'failed', finalState, message: outcome.message,
      ...(outcome.runId ? { runId: outcome.runId } : {}), ...(outcome.snapshotId ? { snapshotId: outcome.snapshotId } : {}),
      ...(outcome.failedStep ? { failedStep: outcome.failedStep } : {}),
      ...(outcome.status === 'failed' ? { recovered: outcome.recovery?.succeeded ?? outcome.recovery === undefined } : {}),
      diff: { ...plan.diff.counts },
    };
  } catch (err) {
    const code = (err as { code?: string }).code;
    const status: BatchRowStatus = code !== undefined && REFUSALS.has(code) ? 'refused' : 'failed';
    return { connector, status, finalState: await stateOrUnknown(ops, connector), message: (err as Error).message };
  }
}

/** Codes meaning "refused before anything changed" (the CLI's exit 2). */
const REFUSALS = new Set(['E_USAGE', 'E_CONFIG', 'E_PREFLIGHT', 'E_OFFSETS_INVALID', 'E_CONNECTOR_NOT_FOUND', 'E_LOCKED', 'E_NOT_CONFIRMED', 'E_STORE']);

async function stateOrUnknown(ops: ConnectorOps<never> | ConnectorOps<BatchPlan> | { state(c: string): Promise<string> }, connector: string): Promise<string> {
  try {
    return await ops.state(connector);
  } catch {
    return 'unknown';
  }
}

/** Runs `fn` over `items`, at most `limit` at a time; results in input order. `fn` must not throw. */
async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
