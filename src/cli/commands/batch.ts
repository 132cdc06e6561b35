import type { SourceDbOptions } from '../source-db.js';
// `rewind | reset | rollback` over several connectors (names, --selector <regex>, --all) and
// `runs resume --batch <id>`: selection, both phases of src/ops/batch/batch.ts, one confirmation for
// the whole batch, progress on a terminal, and the per-connector summary (table or JSON).
// Exit status: 0 every connector done, 1 at least one did not end as asked (the summary says
// which, and its state), 2 refused before anything changed.
import type { BatchEvent, BatchRow, BatchSummary } from '../../ops/batch/index.js';
import type { BatchFaceOptions, OpsContext, Plan } from '../../ops/index.js';
import type { Connection, ConnectionOptions } from '../connection.js';
import type { PositionOptions } from './rewind-positions.js';
import { resumeAfterFrom } from './change-flags.js';
import { currentIO } from '../io.js';
import { OpsError } from '../../ops/errors.js';
import { historyStoreChoice } from '../history-store.js';
import { openCommandStore } from '../store-choice.js';
import { resolveConnection } from '../connection.js';
import { checkSelection, incompleteCount, selectConnectors } from '../../ops/batch/index.js';
import { listConnectorNames } from '../../ops/index.js';
import { positionTargetsFor, wantsPosition } from './rewind-positions.js';
import { profileOptionsFor } from '../source-db.js';
import { auditRefusal } from '../../ops/audit/index.js';
import { approvalReason, requestInstead } from '../change-request.js';
import { writeSavedPlan } from '../plan-file.js';
import { confirm } from '../confirm.js';
import { testHooksFromEnv } from '../test-hooks.js';
import { cliActorFor } from '../actor.js';
import { readOffsetsInput } from '../offsets-input.js';
import { renderTable } from '../render/table.js';
import { refuseIfGovernedElsewhere } from '../governance-check.js';
import * as batch from '../../ops/batch/index.js';

export interface BatchCliOptions extends ConnectionOptions {
  yes?: boolean;
  dryRun?: boolean;
  leaveStopped?: boolean;
  resume?: boolean;
  selector?: string;
  all?: boolean;
  concurrency?: string;
  skipInvalid?: boolean;
  offsets?: string;
  snapshot?: string;
  planOut?: string;
}

/** True when the command line asks for the batch path rather than one connector. */
export async function runBatch(operation: 'rewind' | 'reset' | 'rollback', names: string[], opts: BatchCliOptions): Promise<void> {

  // Selection mistakes that need no cluster are refused before stdin or the cluster is read.
  const selection = { names, ...(opts.selector !== undefined ? { selector: opts.selector } : {}), ...(opts.all ? { all: true } : {}) };
  checkSelection(selection);
  const resumeAfter = resumeAfterFrom(opts);
  const concurrency = batch.parseConcurrency(opts.concurrency);
  if (opts.snapshot !== undefined) {
    throw new OpsError('E_USAGE', '--snapshot names one connector\'s snapshot: with several connectors each is rolled back to its own latest snapshot; drop --snapshot or name one connector', { field: 'snapshot' });
  }
  const byPosition = operation === 'rewind' && (await wantsPosition(opts as PositionOptions));
  const offsetsFor = operation === 'rewind' && !byPosition ? await readBatchOffsets(opts.offsets) : undefined;
  const conn = await resolveConnection(opts);
  await refuseIfGovernedElsewhere(conn, opts as import('../kafka-settings.js').KafkaFlags).catch(async (err: unknown) => {
    await conn.http.close();
    throw err;
  });
  const json = conn.output === 'json';
  const { ctx, close } = await openBatchContext(conn);
  try {
    const connectors = selectConnectors(await listConnectorNames(ctx.http, ctx.url), selection);
    // A position gives every connector its own targets, looked up for it as for one connector.
    const targetsFor = byPosition
      ? async (connector: string) => {
        const positions = await positionTargetsFor(conn, connector, opts as PositionOptions);
        return { offsets: positions.offsets, positions };
      }
      : offsetsFor ? async (connector: string) => ({ offsets: offsetsFor(connector) }) : undefined;
    const profileFor = (connector: string) => profileOptionsFor(opts as SourceDbOptions & { allowForward?: boolean }, conn.context, connector);
    const ops = batch.changeOps(ctx, { operation, resumeAfter, profileFor, ...(targetsFor ? { targetsFor } : {}) }, await faceOptions(conn, ctx.store));
    const batchId = batch.newBatchId();
    const progress = progressLine(!json && currentIO().stderr.isTTY === true);
    let planned: Awaited<ReturnType<typeof batch.planBatch<Plan>>>;
    try {
      planned = await batch.planBatch(ops, connectors, { concurrency, skipInvalid: opts.skipInvalid === true, onEvent: progress.onEvent });
    } catch (err) {
      // The whole batch refused in pre-flight: one entry for it in the audit trail.
      const face = await faceOptions(conn, ctx.store);
      if (face.audit) await auditRefusal(ctx, face.audit, { action: operation }, err).catch(() => undefined);
      throw err;
    } finally {
      progress.stop();
    }
    const out = (text: string): void => void (json ? currentIO().stderr : currentIO().stdout).write(`${text}\n`);
    // Only a batch that is applied now is recorded under its id (runs --batch finds it); a dry run,
    // a plan file or a change request shows none, so nobody looks up an id that was never stored.
    const todoNow = planned.plans.filter((p) => !p.nothingToChange);
    // Where the context or the team store's policy requires approval, the batch becomes a request.
    const reason = !opts.dryRun && opts.planOut === undefined && todoNow.length > 0 ? await approvalReason(conn, ctx.store, todoNow) : undefined;
    const appliedNow = !opts.dryRun && opts.planOut === undefined && reason === undefined;
    out(await planTable(planned.plans, planned.skipped, operation, conn.url, appliedNow ? batchId : undefined));
    if (opts.planOut !== undefined) {
      // One saved plan for the whole batch: reviewed, then applied as one (`offsetctl apply`).
      const todo = planned.plans.filter((p) => !p.nothingToChange);
      if (todo.length === 0) throw new OpsError('E_PREFLIGHT', `none of the ${planned.plans.length} connector(s) has anything to change: no plan was written`, { field: 'plan-out' });
      const chosen = opts.selector !== undefined ? `--selector ${opts.selector}` : opts.all ? '--all' : names.join(' ');
      out(await writeSavedPlan(opts.planOut, todo, ctx.store, chosen));
      return;
    }
    if (reason !== undefined) {
      // Four-eyes: the batch becomes one request someone else approves; nothing changes now.
      const chosen = opts.selector !== undefined ? `--selector ${opts.selector}` : opts.all ? '--all' : names.join(' ');
      await requestInstead(conn, ctx, todoNow, out, chosen, reason);
      return;
    }
    if (opts.dryRun) {
      if (json) currentIO().stdout.write(`${JSON.stringify({ operation, dryRun: true, plans: planned.plans.map(planSummary), skipped: planned.skipped }, null, 2)}\n`);
      else out('dry run: nothing was changed');
      return;
    }
    const after = resumeAfter === 'never' ? 'left STOPPED' : resumeAfter === 'always' ? 'resumed' : 'put back to the state it had';
    await confirm(`${capitalize(operation)} ${planned.plans.length} connector(s)? Each is stopped while its offsets change (snapshot first), then ${after}.`, { yes: opts.yes === true });

    const rows = await applyWithCancel(batchId, concurrency, !json && currentIO().stderr.isTTY === true, (options) => batch.applyBatch(ops, planned.plans, batchId, options));
    const summary = batch.summarize(batchId, operation, connectors, [...rows, ...planned.skipped]);
    await printSummary(summary, json);
  } finally {
    await close();
  }
}

/** The store for the whole batch (plans of rollbacks read snapshots from it) beside the connection. */
async function openBatchContext(conn: Connection): Promise<{ ctx: OpsContext; close: () => Promise<void> }> {
  const store = await openCommandStore(conn.store);
  return {
    ctx: { url: conn.url, http: conn.http, store },
    close: async () => {
      await store.close();
      await conn.http.close();
    },
  };
}

/** The integration tests' hooks (OFFSETCTL_TEST_*), as for a single change, and the OS (and database) user for the audit trail. */
export async function faceOptions(conn: Connection, store: OpsContext['store']): Promise<BatchFaceOptions> {
  const beforeStep = testHooksFromEnv();
  return { ...(beforeStep ? { beforeStep } : {}), audit: { actor: await cliActorFor(store), ...(conn.contextName ? { context: conn.contextName } : {}) } };
}

/**
 * `runs resume --batch <id>`: finishes every interrupted run of the batch, concurrently, and runs
 * the members that never started (the batch recorded them before its first connector started),
 * with the targets fixed when the batch was planned.
 */
export async function resumeBatch(batchId: string, opts: BatchCliOptions): Promise<void> {
  const concurrency = batch.parseConcurrency(opts.concurrency);

  const store = await openCommandStore(await historyStoreChoice(opts));
  let runs;
  let recorded;
  try {
    runs = await store.listRuns({ batchId });
    recorded = await store.getBatch(batchId);
  } finally {
    await store.close();
  }
  if (runs.length === 0 && !recorded) throw new OpsError('E_USAGE', `no runs of batch ${batchId} in ${store.location} (list runs with \`offsetctl runs\`)`, { field: 'batch' });
  const interrupted = runs.filter((r) => r.displayStatus === 'interrupted');
  const started = new Set(runs.map((r) => r.connector));
  const unstarted = (recorded?.members ?? []).filter((m) => !started.has(m.connector));
  if (interrupted.length === 0 && unstarted.length === 0) {
    throw new OpsError('E_PREFLIGHT', `batch ${batchId}: none of its ${runs.length} run(s) is interrupted and every member started, there is nothing to resume (see \`offsetctl runs --batch ${batchId}\`)`);
  }
  let conn;
  try {
    conn = await resolveConnection(opts);
  } catch (err) {
    if ((err as { code?: string }).code !== 'E_CONFIG' || opts.url || opts.context) throw err;
    conn = await resolveConnection({ ...opts, url: interrupted[0]?.clusterUrl ?? recorded!.clusterUrl });
  }
  const json = conn.output === 'json';
  const out = (text: string): void => void (json ? currentIO().stderr : currentIO().stdout).write(`${text}\n`);
  const runIds = new Map(interrupted.map((r) => [r.connector, r.id]));
  const { ctx, close } = await openBatchContext(conn);
  try {
    const face = await faceOptions(conn, ctx.store);
    const resumeOps = batch.resumeOps(ctx, (connector) => runIds.get(connector) ?? '', face);
    const resuming = [...runIds.keys()];
    const planned = await batch.planBatch(resumeOps, resuming, { concurrency });
    // The members that never started: planned now, as the batch asked, with its targets.
    const profileFor = (connector: string) => profileOptionsFor(opts as SourceDbOptions, conn.context, connector);
    const fresh = unstarted.length === 0 || !recorded ? undefined : await planUnstarted(ctx, recorded, unstarted, concurrency, face, profileFor);
    if (resuming.length > 0) out(`Resuming ${resuming.length} interrupted run(s) of batch ${batchId}: ${resuming.join(', ')}`);
    if (fresh) {
      out(`Starting ${unstarted.length} member(s) of batch ${batchId} that never started (${recorded!.operation}): ${unstarted.map((m) => m.connector).join(', ')}`);
      await confirm(`${capitalize(recorded!.operation)} ${unstarted.length} connector(s) of batch ${batchId} that never started?`, { yes: opts.yes === true });
    }
    const rows = await applyWithCancel(batchId, concurrency, !json && currentIO().stderr.isTTY === true, async (options) => [
      ...await batch.applyBatch(resumeOps, planned.plans, batchId, options),
      ...(fresh ? await batch.applyBatch(fresh.ops, fresh.plans, batchId, options) : []),
    ]);
    const order = [...resuming, ...unstarted.map((m) => m.connector)];
    await printSummary(batch.summarize(batchId, 'resume', order, [...rows, ...(fresh?.skipped ?? [])]), json);
  } finally {
    await close();
  }
}

async function planUnstarted(
  ctx: OpsContext,
  recorded: import('../../store/index.js').BatchRecord, members: ReadonlyArray<import('../../store/index.js').BatchMember>, concurrency: number,
  face: Awaited<ReturnType<typeof faceOptions>>, profileFor: (connector: string) => Promise<import('../../ops/profiles/index.js').ProfileOptions>,
): Promise<{ ops: ReturnType<typeof batch.changeOps>; plans: Plan[]; skipped: BatchRow[] }> {
  const targets = new Map(members.map((m) => [m.connector, m.offsets ?? []]));
  const resumeAfter = (['auto', 'always', 'never'] as const).find((r) => r === recorded.resumeAfter) ?? 'auto';
  const ops = batch.changeOps(ctx, {
    operation: recorded.operation, resumeAfter, record: false, profileFor,
    ...(recorded.operation === 'rewind' ? { targetsFor: async (connector: string) => ({ offsets: targets.get(connector) ?? [] }) } : {}),
  }, face);
  const planned = await batch.planBatch(ops, members.map((m) => m.connector), { concurrency, skipInvalid: true });
  return { ops, plans: planned.plans, skipped: planned.skipped };
}

/**
 * Runs the apply phase with Ctrl-C wired to one AbortSignal: no further connector starts, and
 * every running run is cancelled by applyPlan, which puts its connector back.
 */
export async function applyWithCancel(
  batchId: string, concurrency: number, tty: boolean,
  apply: (options: { concurrency: number; signal: AbortSignal; onEvent: (e: BatchEvent) => void }) => Promise<BatchRow[]>,
): Promise<BatchRow[]> {
  const controller = new AbortController();
  const onInterrupt = (): void => {
    if (!controller.signal.aborted) currentIO().stderr.write(`\ninterrupted: batch ${batchId} starts no more connectors; the running ones are put back\n`);
    controller.abort();
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  const progress = progressLine(tty);
  try {
    return await apply({ concurrency, signal: controller.signal, onEvent: progress.onEvent });
  } finally {
    progress.stop();
    process.removeListener('SIGINT', onInterrupt);
    process.removeListener('SIGTERM', onInterrupt);
  }
}

/** Reads --offsets once: a per-connector document {"connectors": {"<name>": <offsets>}}, or one offsets document for all. */
async function readBatchOffsets(file: string | undefined): Promise<(connector: string) => unknown> {
  if (file === undefined) throw new OpsError('E_USAGE', 'rewind needs --offsets <file|->', { field: 'offsets' });
  const doc = await readOffsetsInput(file);
  const perConnector = doc !== null && typeof doc === 'object' && !Array.isArray(doc) && 'connectors' in doc
    ? (doc as { connectors: unknown }).connectors : undefined;
  if (perConnector === undefined) return () => doc;
  if (perConnector === null || typeof perConnector !== 'object' || Array.isArray(perConnector)) {
    throw new OpsError('E_OFFSETS_INVALID', `${file}: "connectors" must be an object mapping each connector name to its offsets, like {"connectors": {"orders-sink": {"offsets": [...]}}}`, { field: 'offsets' });
  }
  const map = perConnector as Record<string, unknown>;
  return (connector) => {
    if (!Object.hasOwn(map, connector)) throw new OpsError('E_OFFSETS_INVALID', `${file} has no offsets for ${connector} under "connectors"; add them or leave the connector out`, { field: 'offsets' });
    return map[connector];
  };
}

/** `batchId` undefined: the batch is not applied now (a dry run, a plan file, a change request), so it has no id anyone could look up. */
export async function planTable(
  plans: readonly Plan[], skipped: readonly BatchRow[], operation: string, url: string, batchId: string | undefined,
): Promise<string> {
  const rows = plans.map((p) => [
    p.connector, p.connectorType, p.stateBefore, String(p.diff.counts.changed), String(p.diff.counts.added), String(p.diff.counts.removed),
    String(p.diff.counts.unchanged), p.warnings.length > 0 ? p.warnings.join('; ') : '',
  ]);
  const lines = [
    `Batch ${batchId ?? '(dry run, not recorded)'}: ${operation} of ${plans.length} connector(s) on ${url}`,
    renderTable(['CONNECTOR', 'TYPE', 'STATE', 'CHANGED', 'ADDED', 'REMOVED', 'UNCHANGED', 'WARNINGS'], rows, ['left', 'left', 'left', 'right', 'right', 'right', 'right']),
  ];
  if (skipped.length > 0) lines.push(`Skipped (refused in pre-flight, --skip-invalid):`, ...skipped.map((s) => `  ${s.connector}: ${s.message.replace(/^skipped: /, '')}`));
  return lines.join('\n');
}

function planSummary(p: Plan): Record<string, unknown> {
  return { connector: p.connector, type: p.connectorType, stateBefore: p.stateBefore, diff: p.diff.counts, warnings: p.warnings, nothingToChange: p.nothingToChange };
}

export async function printSummary(summary: BatchSummary, json: boolean): Promise<void> {
  // unchanged (nothing to change) is done, like one such reset exiting 0.
  const incomplete = incompleteCount(summary);
  if (json) {
    currentIO().stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    const table = '\n' + renderTable(
      ['CONNECTOR', 'RESULT', 'FINAL STATE', 'RUN', 'SNAPSHOT', 'DETAIL'],
      summary.connectors.map((r) => [r.connector, r.status, r.finalState, r.runId ?? '', r.snapshotId ?? '', detail(r)]),
    );
    const counts = Object.entries(summary.counts).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ');
    currentIO().stdout.write(`${table}\nbatch ${summary.batchId}: ${summary.operation} of ${summary.total} connector(s): ${counts} (runs: \`offsetctl runs --batch ${summary.batchId}\`)\n`);
  }
  if (incomplete > 0) {
    if (json) currentIO().exitCode = 1;
    else throw Object.assign(new Error(`batch ${summary.batchId}: ${incomplete} of ${summary.total} connector(s) did not complete (see the table above)`), { code: 'E_RUN_FAILED' });
  }
}

function detail(r: BatchRow): string {
  if (r.status === 'succeeded') return '';
  if (r.status === 'unchanged') return 'nothing to change: not stopped, no snapshot';
  if (r.status === 'failed') return `${r.failedStep ? `at ${r.failedStep}; ` : ''}${r.recovered === false ? 'NOT put back — ' : 'put back; '}${firstSentence(r.message)}`;
  return firstSentence(r.message);
}

function firstSentence(text: string): string {
  const one = text.split('\n')[0] ?? '';
  return one.length > 160 ? `${one.slice(0, 157)}…` : one;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * On a terminal: one line on stderr, redrawn twice a second, with the phase, n/N, and the
 * connector waited on longest (and for how long); a line per finished connector. Otherwise
 * nothing: the result goes to stdout at the end.
 */
export function progressLine(tty: boolean): { onEvent: (e: BatchEvent) => void; stop: () => void } {
  if (!tty) return { onEvent: () => undefined, stop: () => undefined };
  let phase = '';
  let done = 0;
  let total = 0;
  const steps = new Map<string, { stepId: string; since: number }>();
  const draw = (): void => {
    let longest: [string, { stepId: string; since: number }] | undefined;
    for (const entry of steps) if (!longest || entry[1].since < longest[1].since) longest = entry;
    const waiting = longest ? ` · waiting on ${longest[0]} (${longest[1].stepId}) ${((Date.now() - longest[1].since) / 1000).toFixed(1)} s` : '';
    currentIO().stderr.write(`\r\x1b[K${phase} ${done}/${total}${steps.size > 0 ? ` · ${steps.size} running` : ''}${waiting}`);
  };
  const timer = setInterval(draw, 500);
  timer.unref();
  return {
    onEvent: (e) => {
      if (e.type === 'phase') { phase = e.phase; done = 0; total = e.total; }
      if (e.type === 'planned') { done = e.done; if (e.refused) currentIO().stderr.write(`\r\x1b[K✗ ${e.connector}: refused: ${firstSentence(e.refused)}\n`); }
      if (e.type === 'started') steps.set(e.connector, { stepId: 'starting', since: Date.now() });
      if (e.type === 'step') steps.set(e.connector, { stepId: e.stepId, since: e.waiting ? steps.get(e.connector)?.since ?? Date.now() : Date.now() });
      if (e.type === 'finished') {
        done = e.done;
        steps.delete(e.connector);
        currentIO().stderr.write(`\r\x1b[K${e.row.status === 'succeeded' || e.row.status === 'unchanged' ? '✓' : '✗'} ${e.connector}: ${e.row.status} (${e.row.finalState})\n`);
      }
      draw();
    },
    stop: () => {
      clearInterval(timer);
      currentIO().stderr.write('\r\x1b[K');
    },
  };
}
