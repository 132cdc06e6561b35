// The changing commands' actions (rewind, reset, rollback, runs resume; registered in ops.ts) and
// runChange, the CLI face of a change that `apply` and `changes apply` use too. Loaded only through
// its door (load.opsActions()), so it imports what it needs statically: the ops layer, the store
// choice, the prompts; the other verbs' action modules a rewind seldom needs (batches, a replay, a
// move's undo) through their doors. Exit statuses: 0 done, 1 the run failed, 2 refused before any change.
import type { Command } from 'commander';
import type { AuditScope, OperationOutcome, OpsContext, Plan } from '../../ops/index.js';
import * as ops from '../../ops/index.js';
import { OpsError } from '../../ops/errors.js';
import { hasPosition } from '../../ops/positions/index.js';
import { stdout, stderr } from './say.js';
import { progressPrinter } from './progress.js';
import { ReportedFailure, exitStatusFor } from '../exit-status.js';
import { type Connection, resolveConnectionOr } from '../connection.js';
import type { BatchCliOptions } from './batch.js';
import * as load from '../load.js';
import { limitFlags, resumeAfterFrom, type ChangeOptions, type LimitOptions } from './change-flags.js';
import { positionTargetsFor, wantsPosition, type PositionOptions } from './rewind-positions.js';
import { profileOptionsFor, type SourceDbOptions } from '../source-db.js';
import { checkVerifyFlags, markBeforeChange, verifyAfter } from './verify-after.js';
import { preflightKafkaSettings, type KafkaFlags } from '../kafka-settings.js';
import { currentIO } from '../io.js';
import { useColor } from '../render/color.js';
import { readOffsetsInput } from '../offsets-input.js';
import { boundedStdin, checkInputSize } from '../offsets-limits.js';
import { openHistory, refusal } from './history-actions.js';
import { refuseIfGovernedElsewhere } from '../governance-check.js';
import { openCommandStore } from '../store-choice.js';
import { cliActorFor } from '../actor.js';
import { takeoverLine } from '../render/takeover.js';
import { showOutcome, showPlan } from './change-output.js';
import { writeSavedPlan } from '../plan-file.js';
import { approvalReason, requestInstead } from '../change-request.js';
import { planQuestion } from '../render/ops-plan.js';
import { confirmForwardTargets } from '../render/forward-targets.js';
import { confirm } from '../confirm.js';
import { Halt } from '../halt.js';
import { killAfterSendFromEnv, secondSignalDelayFromEnv, testHooksFromEnv } from '../test-hooks.js';

/** Several connectors, a selector or batch flags make a batch (batch.ts, loaded only then). */
function isBatch(names: readonly string[], opts: BatchCliOptions): boolean {
  return names.length !== 1 || opts.selector !== undefined || opts.all === true || opts.concurrency !== undefined || opts.skipInvalid === true;
}

type RewindOptions = ChangeOptions & LimitOptions & PositionOptions & BatchCliOptions & SourceDbOptions;

/** `rewind`: a replay (--time-column), a batch, or one connector to --offsets or a position. */
export async function rewind(names: string[], opts: RewindOptions, cmd: Command): Promise<void> {
  // A Debezium source is rewound by reading rows again: --to-time on a column is a replay (replay-actions.ts).
  const asReplay = opts as { timeColumn?: string };
  if (asReplay.timeColumn !== undefined) return (await load.replayActions()).rewindAsReplay(names, cmd.optsWithGlobals());
  // --offsets is required unless a position says where to go: a usage error like commander's own.
  if (opts.offsets === undefined && !hasPosition(opts)) {
    cmd.error("error: required option '--offsets <file|->' not specified (or give a position: --to-time, --to-earliest, --to-latest, --shift-by, --to-offset)", { exitCode: 2, code: 'commander.missingMandatoryOptionValue' });
  }
  // A batch takes --offsets (one document, or one per connector) or a position, which every
  // connector gets its own targets for (issue 20, point 13).
  if (checkVerifyFlags(opts, isBatch(names, opts)) === undefined && isBatch(names, opts)) {
    return (await load.batch()).runBatch('rewind', names, opts);
  }
  const connector = names[0]!;
  await runChange(opts, { action: 'rewind', connector }, async (ops, ctx, conn) => {
    const resumeAfter = resumeAfterFrom(opts);
    const limits = ops.resolveLimits(limitFlags(opts), currentIO().env);
    const profile = await profileOptionsFor(opts, conn.context, connector);
    if (await wantsPosition(opts)) {
      // Positions (issue 8): target offsets computed from Kafka instead of read from a file;
      // the per-partition table travels in the plan (plan.positions).
      const positions = await positionTargetsFor(conn, connector, opts);
      return ops.planRewind(ctx, { connector, offsets: positions.offsets, resumeAfter, limits, positions, profile });
    }
    // The sink pre-flight's broker checks use the same Kafka settings as positions: --bootstrap,
    // else OFFSETCTL_BOOTSTRAP, else the context's, with their security settings.
    const kafka = await preflightKafkaSettings(opts, conn.context);
    // The size limit is checked before the file is read, and stdin is cut off past it.
    const offsetsArg = opts.offsets as string;
    await checkInputSize(offsetsArg, limits);
    const offsets = offsetsArg === '-' ? await readOffsetsInput('-', boundedStdin(limits)) : await readOffsetsInput(offsetsArg);
    return ops.planRewind(ctx, { connector, offsets, resumeAfter, limits, profile, ...(kafka ? { kafka } : {}) });
  });
}

/** `reset`: a batch, or one connector's offsets deleted (a snapshot first). */
export async function reset(names: string[], opts: ChangeOptions & BatchCliOptions & SourceDbOptions): Promise<void> {
  if (checkVerifyFlags(opts, isBatch(names, opts)) === undefined && isBatch(names, opts)) {
    return (await load.batch()).runBatch('reset', names, opts);
  }
  const connector = names[0]!;
  await runChange(opts, { action: 'reset', connector }, async (ops, ctx, conn) => ops.planReset(ctx, { connector, resumeAfter: resumeAfterFrom(opts), profile: await profileOptionsFor(opts, conn.context, connector) }));
}

/** `rollback`: a batch, a move/copy/import undone by its own path, or a snapshot restored. */
export async function rollback(names: string[], opts: ChangeOptions & LimitOptions & BatchCliOptions & SourceDbOptions & { snapshot?: string }): Promise<void> {
  if (checkVerifyFlags(opts, isBatch(names, opts)) === undefined && isBatch(names, opts)) {
    return (await load.batch()).runBatch('rollback', names, opts);
  }
  const connector = names[0]!;
  // A connector whose run to undo is a move, copy or import is put back by its own path.
  if (await (await load.moveRecovery()).rollbackMoved(connector, opts)) return;
  await runChange(opts, { action: 'rollback', connector }, async (ops, ctx, conn) => {
    const after = resumeAfterFrom(opts);
    const targetState = after === 'never' ? 'STOPPED' : after === 'always' ? 'RUNNING' : undefined;
    const limits = ops.resolveLimits(limitFlags(opts), currentIO().env);
    const profile = await profileOptionsFor(opts, conn.context, connector);
    return ops.planRollback(ctx, { connector, limits, profile, ...(opts.snapshot ? { snapshotId: opts.snapshot } : {}), ...(targetState ? { targetState } : {}) });
  });
}

/** `runs resume`: a batch's interrupted runs, a move's, or one run finished from its last finished step. */
export async function resume(id: string | undefined, own: BatchCliOptions & { batch?: string }, opts: ChangeOptions & LimitOptions): Promise<void> {
  if (opts.planOut !== undefined) {
    throw new OpsError('E_USAGE', '--plan-out is not for `runs resume`: an interrupted run has already stopped its connector and changed it part-way, so it is finished now (`runs resume`) or undone (`offsetctl rollback`), not saved for review; the change it finishes was planned and confirmed when it started', { field: 'plan-out' });
  }
  // Commander may hand --batch to the parent `runs`, which defines it too: read both levels.
  const batchId = own.batch ?? (opts as { batch?: string }).batch;
  if (batchId !== undefined) return (await load.batch()).resumeBatch(batchId, { ...own, ...opts });
  if (id === undefined) throw new OpsError('E_USAGE', 'runs resume needs a run id (`offsetctl runs` lists them), or --batch <id>', { field: 'id' });
  if (await (await load.moveRecovery()).resumeMovedRun(id, { ...opts, ...own })) return;
  // The run knows its cluster: --url is only needed to override it.
  const { store } = await openHistory(opts);
  let clusterUrl: string;
  let connector: string;
  try {
    ({ clusterUrl, connector } = await store.getRun(id));
  } catch (err) {
    throw refusal(err);
  } finally {
    await store.close();
  }
  await runChange(opts, { action: 'resume', connector }, async (ops, ctx, conn) => ops.planResume(ctx, {
    runId: id, limits: ops.resolveLimits(limitFlags(opts), currentIO().env), profile: await profileOptionsFor(opts as SourceDbOptions, conn.context, connector),
  }), clusterUrl);
}

type OpsModule = typeof import('../../ops/index.js');

/** What `offsetctl apply` adds to a change: lines after the diff, a question of its own, the reviewed plan's digest. */
export interface ChangeFace {
  /** Shown above the plan (who planned it, when). */
  before?: (plan: Plan, info: (text: string) => unknown) => Promise<void>;
  /** Shown after the diff (what moved since the plan was made). */
  after?: (plan: Plan, info: (text: string) => unknown) => Promise<void>;
  /** Asked before the change's own question (offsets that moved in a way that changes the plan). */
  beforeConfirm?: (plan: Plan) => Promise<void>;
  reviewed?: { planDigest: string; requestId?: string };
  /** The saved plan this change applies (`apply <file>`): where approval is required, it becomes the request as it is. */
  saved?: import('../../ops/changes/index.js').SavedPlan;
  /** An approved request: marked as being applied before the run, its outcome recorded after. */
  applying?: { start(): Promise<void>; finish(outcome: OperationOutcome): Promise<void> };
}

/**
 * The CLI face of a change: connect, plan, show the plan, stop at --dry-run, ask (or --yes),
 * apply with Ctrl-C as an abort, print the outcome. A failed run exits 1 (through main). The run
 * and any refusal once the store is open go into the audit trail under the OS user.
 */
export async function runChange(opts: ChangeOptions, what: { action: string; connector: string }, makePlan: (ops: OpsModule, ctx: OpsContext, conn: Connection) => Promise<Plan>, fallbackUrl?: string, face: ChangeFace = {}): Promise<void> {
  // `runs resume` knows the run's cluster: no URL configured anywhere is fine there.
  const conn = await resolveConnectionOr(opts, fallbackUrl);
  const json = conn.output === 'json';
  // Human lines go to stdout in text mode; with --output json stdout carries only the result.
  const info = (text: string): unknown => (json ? stderr : stdout)(`${text}\n`);
  const color = !json && useColor(currentIO().stdout);
  // `runs resume` finishes a change already begun (as policies do not gate it): a connector it left stopped must not stay so.
  if (what.action !== 'resume') await refuseIfGovernedElsewhere(conn, opts as KafkaFlags).catch(async (err: unknown) => {
    await conn.http.close();
    throw err;
  });
  const store = await openCommandStore(conn.store);
  // The Kafka cluster, when known: a source's lock narrows to its Connect cluster (ops/cluster/connect-group.ts). A bad
  // Kafka flag is refused where the plan reads it; here it only leaves the lock on the wider key.
  const kafka = await preflightKafkaSettings(opts as KafkaFlags, conn.context).catch(() => undefined);
  const ctx: OpsContext = { url: conn.url, http: conn.http, store, ...(kafka ? { kafkaCluster: kafka } : {}) };
  // On a team store the database login is who acts (the identity PostgreSQL authenticated), as in a change request's history.
  const audit = { actor: await cliActorFor(store), ...(conn.contextName ? { context: conn.contextName } : {}) };
  let plan: Plan | undefined;
  let mark: import('../../ops/verify/index.js').RecordMark | undefined;
  try {
    plan = await makePlan(ops, ctx, conn);
    await face.before?.(plan, info);
    // Taking over someone's run (a dead holder's, on the team store maybe another operator's): say whose.
    const takenOver = plan.operation === 'resume' ? plan.runId : plan.supersedes?.runId;
    const takeover = takenOver ? [await takeoverLine(store, takenOver, plan.operation === 'resume' ? 'resume' : 'supersede')] : [];
    await showPlan(plan, { json, color, answeredBy: conn.answeringWorker(), afterHeading: takeover });
    await face.after?.(plan, info);
    if (opts.planOut !== undefined && !plan.nothingToChange) {
      // A saved plan: the whole pre-flight ran; nothing changes until `offsetctl apply <file>`.
      info(await writeSavedPlan(opts.planOut, [plan], store));
      return;
    }
    const reason = face.reviewed?.requestId === undefined && !opts.dryRun && !plan.nothingToChange ? await approvalReason(conn, store, [plan]) : undefined;
    if (reason !== undefined) {
      // Four-eyes: the change becomes a request someone else approves; nothing changes now.
      await requestInstead(conn, ctx, face.saved ?? [plan], info, undefined, reason);
      return;
    }
    let outcome: OperationOutcome;
    if (plan.nothingToChange) {
      // No stop, no snapshot, no run: writing offsets the connector already has only costs a rebalance.
      outcome = ops.unchangedOutcome(plan);
    } else if (opts.dryRun) {
      outcome = ops.dryRunOutcome(plan);
    } else {
      await face.beforeConfirm?.(plan);
      await confirm(planQuestion(plan), { yes: opts.yes === true });
      await confirmForwardTargets(plan.forwardTargets, { allowForward: opts.allowForward === true, yes: opts.yes === true });
      await face.applying?.start();
      // --verify: a source's topics are marked before the run stops and resumes it (the records after the mark are new).
      mark = await markBeforeChange(ctx, conn, plan.connector, opts, info);
      outcome = await applyWithSignals(ops, ctx, plan, audit, info, face.reviewed);
      await face.applying?.finish(outcome);
    }
    await showOutcome(plan, outcome, { json, color });
    // --verify: once it runs again, does it move? (with --rollback-on-failure, undone when not)
    if (outcome.status === 'succeeded') await verifyAfter(ops, ctx, conn, plan, outcome, opts, audit, info, mark);
    // With --output json the outcome on stdout is the whole account; in text, main prints the message.
    if (outcome.status === 'failed') throw new ReportedFailure('E_RUN_FAILED', json ? '' : outcome.message);
  } catch (err) {
    // A refusal before the run (pre-flight, no confirmation) is audited here; applyAudited
    // audits the ones it meets itself (another run holds the connector).
    if (exitStatusFor(err) === 2 && !ops.wasAudited(err)) {
      await ops.auditRefusal(ctx, audit, { ...what, ...(plan ? { clusterUrl: plan.clusterUrl, clusterKey: plan.clusterKey } : {}) }, err).catch(() => undefined);
    }
    throw err;
  } finally {
    await mark?.watch?.stop();
    await store.close();
    await conn.http.close();
  }
}

/**
 * Ctrl-C (or SIGTERM) during a run cancels it; ops then puts the connector back. A second one
 * stops offsetctl at once, but never silently: it says which run is left interrupted, what state
 * the connector is in now (read with a short timeout), and the commands that act on the run.
 */
async function applyWithSignals(ops: OpsModule, ctx: OpsContext, plan: Plan, audit: AuditScope, info: (text: string) => unknown, reviewed?: ChangeFace['reviewed']): Promise<OperationOutcome> {
  const controller = new AbortController();
  let runId: string | undefined;
  let leaving = false;
  // The second Ctrl-C halts the run's own requests and store calls (src/cli/halt.ts); the account
  // is made with the ungated ones.
  const halt = new Halt();
  const onSignal = (): void => {
    if (!controller.signal.aborted) {
      stderr(`\ninterrupted: putting ${plan.connector} back as it was (press Ctrl-C again to stop at once, leaving the run for \`offsetctl runs resume\`)\n`);
      controller.abort();
      return;
    }
    if (leaving) return;
    leaving = true;
    halt.halt();
    void leaveInterrupted(ops, ctx, plan, runId, halt).finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const beforeStep = testHooksFromEnv();
  const progress = progressPrinter(info);
  try {
    const verifyTimeoutMs = ops.verifyTimeoutMs(currentIO().env);
    return await ops.applyAudited({ ...ctx, http: killAfterSendFromEnv(halt.sender(ctx.http)), store: halt.store(ctx.store) }, plan, audit, {
      onEvent: (event) => {
        if (event.type === 'ops.run.started') runId = event.runId;
        progress(event);
      },
      signal: controller.signal, verifyTimeoutMs, ...(beforeStep ? { beforeStep } : {}), ...(reviewed ? { reviewed } : {}),
    });
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

/** The account printed on the second Ctrl-C: the run left interrupted, the connector's state now, the ways out. */
async function leaveInterrupted(ops: OpsModule, ctx: OpsContext, plan: Plan, runId: string | undefined, halt: import('../halt.js').Halt): Promise<void> {
  const c = plan.connector;
  // A request or store write already under way ends first, so the state and the run read below include it.
  await halt.settled(3000);
  await secondSignalDelayFromEnv();
  const state = await Promise.race([
    ops.getConnectorInfo(ctx.http, ctx.url, c).then((i) => `${c} is ${i.state}${i.state === 'STOPPED' && plan.stateBefore !== 'STOPPED' ? ` (it was ${plan.stateBefore} before)` : ''}`, (err: unknown) => `the state of ${c} could not be read (${(err as Error).message})`),
    new Promise<string>((resolve) => setTimeout(() => resolve(`the state of ${c} could not be read within 3 s`), 3000).unref()),
  ]);
  // A write under way when the second Ctrl-C came may have ended the run.
  const run = runId ? await ctx.store.getRun(runId).then((r) => r, (err: unknown) => err as Error) : undefined;
  if (run instanceof Error) {
    stderr(`\ninterrupted again: offsetctl stops now. ${state}. Run ${runId} could not be read (${run.message}): ` +
      `\`offsetctl runs show ${runId}\` says how it ended.\n`);
    return;
  }
  if (run && run.status !== 'running') {
    stderr(`\ninterrupted again: offsetctl stops now; the run had just ended (${run.status}): ${state}.\n`);
    return;
  }
  const lines = [`\ninterrupted again: offsetctl stops now, before ${c} was put back. ${state}.`];
  if (runId) {
    lines.push(
      `Run ${runId} is left interrupted, holding the lock on ${c}:`,
      `  offsetctl runs resume ${runId}      finishes putting ${c} back (the cancelled change is not made)`,
      `  offsetctl rollback ${c}             restores the offsets of before the run, if it stored its snapshot`,
      `  offsetctl runs abandon ${runId} --reason <why>   frees the lock and changes nothing`,
    );
  }
  stderr(`${lines.join('\n')}\n`);
}
