// The actions of `apply <plan>` (registered in apply.ts), and the checked-plan steps `changes apply`
// shares. Loaded only through their door (load.applyActions()), so they import what they need statically.
import { profileOptionsFor } from '../source-db.js';
import type { CheckedPlan, OpsContext, Plan, SavedPlan } from '../../ops/index.js';
import { OpsError } from '../../ops/errors.js';
import { type Connection, resolveConnection } from '../connection.js';
import { preflightKafkaSettings } from '../kafka-settings.js';
import { limitFlags } from './change-flags.js';
import { currentIO } from '../io.js';
import type { ApplyOptions } from './apply.js';
import { readSavedPlanFile } from '../plan-file.js';
import { runChange } from './ops-actions.js';
import { DEFAULT_MAX_AGE_MS, ago, movedRefusal } from '../../ops/changes/index.js';
import { parseAge } from '../../store/index.js';
import { movementTable, plannedLine } from '../../present/index.js';
import { renderTable } from '../render/table.js';
import { confirm } from '../confirm.js';
import { openCommandStore } from '../store-choice.js';
import { approvalReason, requestInstead } from '../change-request.js';
import { confirmForwardTargets } from '../render/forward-targets.js';
import { refuseIfGovernedElsewhere } from '../governance-check.js';
import * as ops from '../../ops/index.js';
import * as batch from '../../ops/batch/index.js';
import * as cli from './batch.js';

export async function applyFile(file: string, opts: ApplyOptions): Promise<void> {
  if (opts.planOut !== undefined) throw new OpsError('E_USAGE', '--plan-out makes a plan; `apply` applies one', { field: 'plan-out' });
  const maxAgeMs = await maxAge(opts.maxAge);
  const saved = await readSavedPlanFile(file);
  if (saved.plans.length > 1) return applyBatchFile(file, saved, opts, maxAgeMs);
  let checked: CheckedPlan | undefined;
  await runChange(opts, { action: saved.operation, connector: saved.plans[0]!.connector }, async (ops, ctx, conn) => {
    checked = await check(ops, ctx, conn, saved, opts, maxAgeMs);
    return checked.connectors[0]!.plan;
  }, saved.clusterUrl, {
    before: async (_plan, info) => showPlanned(checked!, file, info),
    after: async (_plan, info) => showMoved(checked!, info),
    beforeConfirm: async () => acceptMoved(checked!, opts),
    reviewed: { planDigest: saved.digest },
    saved,
  });
}

export async function check(ops: typeof import('../../ops/index.js'), ctx: OpsContext, conn: Connection, saved: SavedPlan, opts: ApplyOptions, maxAgeMs: number): Promise<CheckedPlan> {
  const kafka = await preflightKafkaSettings(opts, conn.context);
  const limits = ops.resolveLimits(limitFlags(opts), currentIO().env);
  const profileFor = (connector: string) => profileOptionsFor(opts, conn.context, connector);
  return ops.checkSavedPlan(ctx, saved, { maxAgeMs, limits, profileFor, ...(kafka ? { kafka } : {}) });
}

export async function maxAge(text: string | undefined): Promise<number> {
  if (text === undefined) return DEFAULT_MAX_AGE_MS;
  const ms = parseAge(text);
  if (ms === undefined || ms <= 0) throw new OpsError('E_USAGE', `--max-age ${text} is not an age: give a whole number with m, h, d or w, like --max-age 12h`, { field: 'max-age' });
  return ms;
}

/** Who planned it and when. */
export async function showPlanned(checked: CheckedPlan, file: string, info: (text: string) => unknown): Promise<void> {
  info(`Saved plan ${file}: ${plannedLine(checked.saved, ago(Math.max(0, checked.ageMs)))}`);
}

/** The table of offsets that moved since planning (the diff is against the offsets now), and what else changed. */
export async function showMoved(checked: CheckedPlan, info: (text: string) => unknown): Promise<void> {
  for (const c of checked.connectors) for (const note of c.notes) info(`note: ${note}`);
  const moved = movementTable(checked.connectors);
  if (moved.rows.length === 0) {
    info('The starting offsets are as planned.');
    return;
  }
  info(`The starting offsets moved since planning (the diff above is against the offsets now):\n${renderTable(moved.header, moved.rows, moved.align)}`);
  if (checked.changesMeaning) info('Some of these moves change what the plan does (CHANGES THE PLAN: YES).');
}

/** Moved offsets that change the plan: asked at a terminal without --yes; otherwise only --accept-moved-offsets passes. */
export async function acceptMoved(checked: CheckedPlan, opts: ApplyOptions): Promise<void> {
  if (!checked.changesMeaning || opts.acceptMovedOffsets) return;
  const how = '--accept-moved-offsets, or a yes at a terminal without --yes';
  if (opts.yes || currentIO().stdin.isTTY !== true) throw movedRefusal(checked, how);
  try {
    await confirm('The starting offsets moved in a way that changes this plan (see CHANGES THE PLAN above). Apply it to the offsets as they are now?');
  } catch {
    throw movedRefusal(checked, how);
  }
}

/** A saved plan of many connectors: checked as one (any refusal refuses all), asked once, applied under one batch id. */
export async function applyBatchFile(file: string, saved: SavedPlan, opts: ApplyOptions, maxAgeMs: number): Promise<void> {
  await withChangeConnection(opts, saved.clusterUrl, async (conn, ctx, out) => {
    const checked = await check(ops, ctx, conn, saved, opts, maxAgeMs);
    await applyChecked(conn, ctx, checked, opts, out, { header: () => showPlanned(checked, file, out) });
  });
}

/** The connection (else the plan's own URL) and the store, for a command that applies reviewed plans. */
export async function withChangeConnection(opts: ApplyOptions, fallbackUrl: string, body: (conn: Connection, ctx: OpsContext, out: (text: string) => void) => Promise<void>): Promise<void> {
  let conn: Connection;
  try {
    conn = await resolveConnection(opts);
  } catch (err) {
    if ((err as { code?: string }).code !== 'E_CONFIG' || opts.url || opts.context) throw err;
    conn = await resolveConnection({ ...opts, url: fallbackUrl });
  }
  const json = conn.output === 'json';
  const out = (text: string): void => void (json ? currentIO().stderr : currentIO().stdout).write(`${text}\n`);
  await refuseIfGovernedElsewhere(conn, opts as import('../kafka-settings.js').KafkaFlags).catch(async (err: unknown) => {
    await conn.http.close();
    throw err;
  });
  const store = await openCommandStore(conn.store);
  try {
    await body(conn, { url: conn.url, http: conn.http, store }, out);
  } finally {
    await store.close();
    await conn.http.close();
  }
}

export interface CheckedApply {
  header: () => Promise<void>;
  /** An approved request: marked applying before any connector changes, its outcome recorded after. */
  requestId?: string;
  applying?: { start(): Promise<void>; finish(result: { succeeded: boolean; runIds: string[]; batchId?: string; message: string }): Promise<void> };
}

/** A checked plan of any number of connectors, shown, asked about and applied under one batch id. */
export async function applyChecked(conn: Connection, ctx: OpsContext, checked: CheckedPlan, opts: ApplyOptions, out: (text: string) => void, how: CheckedApply): Promise<void> {
  const json = conn.output === 'json';
  const saved = checked.saved;
  const concurrency = batch.parseConcurrency(opts.concurrency);
  const reviewed = ops.reviewedOps(ctx, checked, { ...(await cli.faceOptions(conn, ctx.store)), ...(how.requestId ? { requestId: how.requestId } : {}) });
  const connectors = saved.plans.map((p) => p.connector);
  const planned = await batch.planBatch<Plan>(reviewed, connectors, { concurrency });
  const batchId = batch.newBatchId();
  await how.header();
  const todoNow = planned.plans.some((p) => !p.nothingToChange);
  out(await cli.planTable(planned.plans, [], saved.operation, conn.url, opts.dryRun || !todoNow ? undefined : batchId));
  await showMoved(checked, out);
  for (const p of planned.plans) for (const w of p.warnings) currentIO().stderr.write(`warning: ${p.connector}: ${w}\n`);
  const todo = planned.plans.filter((p) => !p.nothingToChange);
  if (opts.dryRun || todo.length === 0) {
    const why = todo.length === 0 ? 'nothing to change: every connector already has these offsets' : 'dry run: nothing was changed';
    if (json) currentIO().stdout.write(`${JSON.stringify({ operation: saved.operation, dryRun: opts.dryRun === true, digest: saved.digest, changesMeaning: checked.changesMeaning, message: why }, null, 2)}\n`);
    else out(why);
    return;
  }
  const reason = how.requestId === undefined ? await approvalReason(conn, ctx.store, todo) : undefined;
  if (reason !== undefined) {
    // Four-eyes: the saved plan, as it is, becomes a request someone else approves.
    await requestInstead(conn, ctx, saved, out, undefined, reason);
    return;
  }
  await acceptMoved(checked, opts);
  await confirm(`Apply the ${how.requestId ? `approved change request ${how.requestId}` : `saved ${saved.operation}`} of ${todo.length} connector(s)? Each is stopped while its offsets change (snapshot first), then put back as planned.`, { yes: opts.yes === true });
  await confirmForwardTargets(todo.flatMap((p) => p.forwardTargets), { allowForward: opts.allowForward === true, yes: opts.yes === true });
  await how.applying?.start();
  const rows = await cli.applyWithCancel(batchId, concurrency, !json && currentIO().stderr.isTTY === true, (options) => batch.applyBatch(reviewed, todo, batchId, options));
  const summary = batch.summarize(batchId, saved.operation, connectors, rows);
  await how.applying?.finish({
    succeeded: batch.incompleteCount(summary) === 0, runIds: rows.map((r) => r.runId).filter((id): id is string => id !== undefined), batchId,
    message: batch.outcomeSentence(summary),
  });
  await cli.printSummary(summary, json);
}
