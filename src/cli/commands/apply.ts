// `offsetctl apply <plan.json>`: a plan saved by `--plan-out`, applied exactly as saved. The file's
// digest is checked first, then the plan against the cluster now (src/ops/changes/check.ts: age,
// cluster, the connector's identity, a plan already applied); it is shown again (diff against the
// offsets now, what moved since planning) and asked about like any change. Offsets that moved in a
// way that changes what the plan does need their own yes: asked at a terminal, or
// --accept-moved-offsets; --yes alone never passes them. Exit status as for any change.
import { profileOptionsFor, withSourceDbFlags, type SourceDbOptions } from '../source-db.js';
import type { Command } from 'commander';
import type { CheckedPlan, OpsContext, Plan, SavedPlan } from '../../ops/index.js';
import { OpsError } from '../../ops/errors.js';
import { addConnectionOptions, type Connection, resolveConnection } from '../connection.js';
import { addKafkaOptions, type KafkaFlags, preflightKafkaSettings } from '../kafka-settings.js';
import { limitFlags, withLimitFlags, type ChangeOptions, type LimitOptions } from './change-flags.js';
import { currentIO } from '../io.js';
import * as load from '../load.js';

export interface ApplyOptions extends ChangeOptions, LimitOptions, KafkaFlags, SourceDbOptions {
  maxAge?: string;
  acceptMovedOffsets?: boolean;
  concurrency?: string;
}

const HELP = `
The plan is applied only as saved: its digest must match its content (sha256; tamper-evidence
against edits, not a signature), the connector must be the one planned (Kafka cluster, type,
connector.class, topics), the plan younger than --max-age, and not applied before. Offsets that
moved since planning are shown; a move that changes what the plan does (a rewind that would now
skip records, an offset that went back, partitions that appeared or went) needs
--accept-moved-offsets or a yes at the terminal, never --yes alone. The snapshot is taken now.
Exit status: 0 done, 1 the run failed (the message says which state the connector is in), 2 refused before anything changed.`;

export function register(program: Command): void {
  withSourceDbFlags(addKafkaOptions(withLimitFlags(addConnectionOptions(
    program
      .command('apply')
      .argument('<plan>', 'a plan file written by --plan-out (rewind, reset, rollback; one connector or a batch)')
      .option('--max-age <age>', 'refuse a plan older than this: 90m, 12h, 2d, 1w (default 24h)')
      .option('--accept-moved-offsets', 'apply even though the starting offsets moved in a way that changes what the plan does (shown first)')
      .option('--yes', 'do not ask for confirmation (scripts); does not accept moved offsets')
      .option('--dry-run', 'check the plan against the cluster and show it, change nothing')
      .option('--allow-forward', 'write targets beyond a partition\'s end without asking (scripts); they are always shown')
      .option('--concurrency <n>', 'a batch plan: connectors changed at once (default 4)')
      .description('apply a saved plan (`rewind|reset|rollback ... --plan-out <file>`) exactly as saved, after checking it still fits'),
  )))).addHelpText('after', HELP)
    .action(async (file: string, opts: ApplyOptions) => applyFile(file, opts));
}

async function applyFile(file: string, opts: ApplyOptions): Promise<void> {
  if (opts.planOut !== undefined) throw new OpsError('E_USAGE', '--plan-out makes a plan; `apply` applies one', { field: 'plan-out' });
  const maxAgeMs = await maxAge(opts.maxAge);
  const { readSavedPlanFile } = await load.planFile();
  const saved = await readSavedPlanFile(file);
  if (saved.plans.length > 1) return applyBatchFile(file, saved, opts, maxAgeMs);
  const { runChange } = await load.opsCommands();
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

async function check(ops: typeof import('../../ops/index.js'), ctx: OpsContext, conn: Connection, saved: SavedPlan, opts: ApplyOptions, maxAgeMs: number): Promise<CheckedPlan> {
  const kafka = await preflightKafkaSettings(opts, conn.context);
  const limits = ops.resolveLimits(limitFlags(opts), currentIO().env);
  const profileFor = (connector: string) => profileOptionsFor(opts, conn.context, connector);
  return ops.checkSavedPlan(ctx, saved, { maxAgeMs, limits, profileFor, ...(kafka ? { kafka } : {}) });
}

async function maxAge(text: string | undefined): Promise<number> {
  const { DEFAULT_MAX_AGE_MS } = await load.opsChanges();
  if (text === undefined) return DEFAULT_MAX_AGE_MS;
  const { parseAge } = await load.store();
  const ms = parseAge(text);
  if (ms === undefined || ms <= 0) throw new OpsError('E_USAGE', `--max-age ${text} is not an age: give a whole number with m, h, d or w, like --max-age 12h`, { field: 'max-age' });
  return ms;
}

/** Who planned it and when. */
export async function showPlanned(checked: CheckedPlan, file: string, info: (text: string) => unknown): Promise<void> {
  const { plannedLine } = await load.present();
  const { ago } = await load.opsChanges();
  info(`Saved plan ${file}: ${plannedLine(checked.saved, ago(Math.max(0, checked.ageMs)))}`);
}

/** The table of offsets that moved since planning (the diff is against the offsets now), and what else changed. */
export async function showMoved(checked: CheckedPlan, info: (text: string) => unknown): Promise<void> {
  const { movementTable } = await load.present();
  const { renderTable } = await load.renderTable();
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
  const { movedRefusal } = await load.opsChanges();
  const how = '--accept-moved-offsets, or a yes at a terminal without --yes';
  if (opts.yes || currentIO().stdin.isTTY !== true) throw movedRefusal(checked, how);
  const { confirm } = await load.confirm();
  try {
    await confirm('The starting offsets moved in a way that changes this plan (see CHANGES THE PLAN above). Apply it to the offsets as they are now?');
  } catch {
    throw movedRefusal(checked, how);
  }
}

/** A saved plan of many connectors: checked as one (any refusal refuses all), asked once, applied under one batch id. */
async function applyBatchFile(file: string, saved: SavedPlan, opts: ApplyOptions, maxAgeMs: number): Promise<void> {
  const ops = await load.ops();
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
  await (await load.governanceCheck()).refuseIfGovernedElsewhere(conn, opts as import('../kafka-settings.js').KafkaFlags).catch(async (err: unknown) => {
    await conn.http.close();
    throw err;
  });
  const { openCommandStore } = await load.storeChoice();
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
  const batch = await load.opsBatch();
  const ops = await load.ops();
  const cli = await load.batch();
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
  const { approvalReason, requestInstead } = await load.changeRequest();
  const reason = how.requestId === undefined ? await approvalReason(conn, ctx.store, todo) : undefined;
  if (reason !== undefined) {
    // Four-eyes: the saved plan, as it is, becomes a request someone else approves.
    await requestInstead(conn, ctx, saved, out, undefined, reason);
    return;
  }
  await acceptMoved(checked, opts);
  const { confirm } = await load.confirm();
  await confirm(`Apply the ${how.requestId ? `approved change request ${how.requestId}` : `saved ${saved.operation}`} of ${todo.length} connector(s)? Each is stopped while its offsets change (snapshot first), then put back as planned.`, { yes: opts.yes === true });
  const { confirmForwardTargets } = await load.renderForwardTargets();
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
