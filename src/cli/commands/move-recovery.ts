// `runs resume` and `rollback` for moves, copies and imports: the run knows both clusters' URLs;
// the connection to each is the one configured for it (--url/--context for the cluster the
// command is pointed at, --to for the other, else the recorded URL with the credentials of a
// context made for it). Each returns false when the run or connector is none of theirs, and the
// plain rewind/reset/rollback path goes on.
import type { RunRecord } from '../../store/index.js';
import { OpsError } from '../../ops/errors.js';
import type { Connection, ConnectionOptions } from '../connection.js';
import { stderr, stdout } from './say.js';
import { applyWithSignals, cliAuditScope, printOutcome, resolveTarget } from './move-face.js';
import { historyStoreChoice } from '../history-store.js';
import { openCommandStore } from '../store-choice.js';
import { runAudited } from '../../ops/index.js';
import { resolveConnection } from '../connection.js';
import { profileOptionsFor } from '../source-db.js';
import { confirm } from '../confirm.js';
import { preflightKafkaSettings } from '../kafka-settings.js';
import { WorkerRoot, clusterIdentity, lookupKeys } from '../../ops/cluster/index.js';
import { moveApprovalReason, requestImportUndoInstead, requestUndoInstead, undoFacts } from '../change-request.js';
import * as move from '../../ops/move/index.js';

interface RecoveryOptions extends ConnectionOptions {
  to?: string;
  yes?: boolean;
  dryRun?: boolean;
}

/** A connection to `url`: the command's own when it points there, else --to, else the URL itself. */
export async function connectionFor(url: string, own: Connection | undefined, opts: RecoveryOptions): Promise<Connection> {
  const same = (a: string, b: string): boolean => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
  if (own && (same(own.url, url) || own.urls.some((u) => same(u, url)))) return own;
  if (opts.to) {
    const target = await resolveTarget(opts.to, opts);
    if (same(target.url, url) || target.urls.some((u) => same(u, url))) return target;
  }
  return resolveTarget(url, opts);
}

/** The store the run was journaled in (the team store when one is chosen), before the clusters are known. */
async function openStoreFor(opts: ConnectionOptions): Promise<import('../../store/index.js').Store> {
  return openCommandStore(await historyStoreChoice(opts));
}

/**
 * A resume or rollback of a move, copy or import in the audit trail: the entry of the start names
 * the run it acts on (known before it begins), the entry of the end its outcome.
 */
async function audited<T extends { status: string; message: string; warnings: string[]; runId?: string }>(
  ctx: { store: import('../../store/index.js').Store }, conn: Connection, what: import('../../ops/index.js').AuditedRun & { runId: string }, apply: () => Promise<T>,
): Promise<T> {
  return runAudited(ctx, await cliAuditScope(conn, ctx.store), what, (started) => {
    started(what.runId);
    return apply();
  });
}

/** `runs resume <id>` of a move, copy or import (its companion run id works too). */
export async function resumeMovedRun(runId: string, opts: RecoveryOptions): Promise<boolean> {
  const store = await openStoreFor(opts);
  let run: RunRecord | undefined;
  try {
    run = await store.getRun(runId).catch(() => undefined);
  } finally {
    await store.close();
  }
  if (!run) return false;
  if ((run.operation as string) === 'import') return resumeImport(run, opts);
  if (!move.isMoveRun(run)) return false;
  if (typeof run.context.undoes === 'string') {
    throw new OpsError('E_PREFLIGHT', `run ${run.id} was undoing a move (run ${run.context.undoes}) when it was interrupted; finish the undo with \`offsetctl rollback ${run.connector}\``);
  }
  const own = await resolveConnection(opts).catch(() => undefined);
  const storeAgain = await openStoreFor(opts);
  const moved = await move.moveRunOf(storeAgain, runId).finally(() => storeAgain.close());
  const from = await connectionFor(moved.move.fromUrl, own, opts);
  const to = await connectionFor(moved.move.toUrl, own, opts);
  const json = from.output === 'json';
  const info = (text: string): unknown => (json ? stderr : stdout)(`${text}\n`);
  const opened = await openCommandStore(from.store);
  const ctx = { url: from.url, http: from.http, store: opened };
  try {
    const sourceDbOpts = opts as RecoveryOptions & import('../source-db.js').SourceDbOptions;
    const plan = await move.planMoveResume(ctx, to, runId, { profile: await profileOptionsFor(sourceDbOpts, from.context, moved.main.connector) });
    info(`Resume run ${plan.runId}: ${plan.operation} of ${plan.connector} from ${plan.fromUrl} to ${plan.toUrl}${plan.targetName !== plan.connector ? ` as ${plan.targetName}` : ''}, at step ${plan.resumeAt}${plan.lastStep ? ` (the last finished step was ${plan.lastStep})` : ''}`);
    if (plan.release) {
      info(`  before it starts there: waits up to ${Math.round(plan.release.waitMs / 1000)} s for replication slot "${plan.release.slotName}" on ` +
        `${plan.release.database} to be inactive; still active then: the new one is not started and the move is put back`);
    }
    for (const w of plan.warnings) stderr(`warning: ${w}\n`);
    if (opts.dryRun) {
      stdout('dry run: nothing was changed\n');
      return true;
    }
    await confirm(`Finish the ${plan.operation} of ${plan.connector}?`, { yes: opts.yes === true });
    let kafka: import('../../kafka/connection.js').KafkaSettings | undefined;
    if (moved.move.translate) {
      kafka = await preflightKafkaSettings(opts, to.context);
    }
    const what = { action: 'resume', connector: plan.connector, clusterUrl: plan.fromUrl, clusterKey: run.clusterKey, runId: plan.runId, message: `the ${plan.operation} to ${plan.toUrl}, at step ${plan.resumeAt}` };
    const outcome = await applyWithSignals((signal, beforeStep, onEvent) => audited(ctx, from, what, () => move.applyMoveResume(ctx, to, plan, { signal, onEvent, ...(beforeStep ? { beforeStep } : {}), ...(kafka ? { kafka } : {}) })), info);
    printOutcome(outcome, json, plan.warnings);
  } finally {
    await opened.close();
    await from.http.close();
    if (to !== from) await to.http.close();
    if (own && own !== from && own !== to) await own.http.close();
  }
  return true;
}

async function resumeImport(run: RunRecord, opts: RecoveryOptions): Promise<boolean> {
  const own = await resolveConnection(opts).catch(() => undefined);
  const conn = await connectionFor(run.clusterUrl, own, opts);
  const json = conn.output === 'json';
  const info = (text: string): unknown => (json ? stderr : stdout)(`${text}\n`);
  const store = await openCommandStore(conn.store);
  try {
    info(`Resume run ${run.id}: import of ${run.connector} on ${run.clusterUrl}${run.lastStep ? ` (the last finished step was ${run.lastStep})` : ''}`);
    if (opts.dryRun) {
      stdout('dry run: nothing was changed\n');
      return true;
    }
    await confirm(`Finish the import of ${run.connector}?`, { yes: opts.yes === true });
    const what = { action: 'resume', connector: run.connector, clusterUrl: run.clusterUrl, clusterKey: run.clusterKey, runId: run.id, message: 'the import' };
    const outcome = await applyWithSignals((signal, beforeStep, onEvent) => audited({ store }, conn, what, () => move.applyImportResume({ url: conn.url, http: conn.http, store }, run.id, { signal, onEvent, ...(beforeStep ? { beforeStep } : {}) })), info);
    printOutcome(outcome, json, []);
  } finally {
    await store.close();
    await conn.http.close();
    if (own && own !== conn) await own.http.close();
  }
  return true;
}

/** `rollback <connector>` when its run to undo is a move, copy or import. */
export async function rollbackMoved(connector: string, opts: RecoveryOptions & { snapshot?: string }): Promise<boolean> {
  if (opts.snapshot !== undefined) return false;
  const own = await resolveConnection(opts);
  const store = await openCommandStore(own.store);
  let handled = false;
  try {
    const keys = lookupKeys(await clusterIdentity(new WorkerRoot(own.http, own.url)));
    const moved = await move.moveToUndo(store, keys, connector);
    const json = own.output === 'json';
    const info = (text: string): unknown => (json ? stderr : stdout)(`${text}\n`);
    if (moved) {
      handled = true;
      const from = await connectionFor(moved.move.fromUrl, own, opts);
      const to = await connectionFor(moved.move.toUrl, own, opts);
      const ctx = { url: from.url, http: from.http, store };
      try {
        const plan = await move.planMoveRollback(ctx, to, moved);
        // Where each copy is and in which state: the two lines differ by more than their URL.
        const where = (name: string, url: string, state: string | undefined, role: string): string =>
          (state ? `${name} is ${state} on ${url} (${role})` : `${name} is not on ${url} (${role})`);
        const now = [
          where(plan.connector, plan.fromUrl, plan.sourceState, 'the original'), where(plan.targetName, plan.toUrl, plan.targetState, `the ${plan.operation}'s copy`),
        ].join('; ');
        info(`Roll back run ${plan.runId} (${plan.operation} of ${plan.connector}${plan.interrupted ? ', interrupted' : ''}): ${now}. ${plan.connector} will run again on ${plan.fromUrl} with its offsets (${plan.stateBefore ?? 'its state'} as before), and nothing of it stays on ${plan.toUrl}.`);
        for (const w of plan.warnings) stderr(`warning: ${w}\n`);
        if (opts.dryRun) {
          stdout('dry run: nothing was changed\n');
          return true;
        }
        const facts = undoFacts(moved);
        const reason = await moveApprovalReason(own, store, { operation: 'rollback', ...facts });
        if (reason !== undefined) {
          // Four-eyes, like the move itself: the undo becomes a request; `changes apply` checks it names the same run.
          await requestUndoInstead(own, ctx, to, facts, info, reason);
          return true;
        }
        await confirm(`Undo the ${plan.operation} of ${plan.connector}?`, { yes: opts.yes === true });
        const scope = await cliAuditScope(own, store);
        const keys = { from: facts.from.key, to: facts.to.key };
        const outcome = await applyWithSignals((signal, beforeStep, onEvent) =>
          move.applyMoveRollbackAudited(ctx, to, plan, keys, scope, { signal, onEvent, ...(beforeStep ? { beforeStep } : {}) }), info);
        printOutcome(outcome, json, plan.warnings);
      } finally {
        if (from !== own) await from.http.close();
        if (to !== own && to !== from) await to.http.close();
      }
      return true;
    }
    const imported = await move.importToUndo({ url: own.url, http: own.http, store }, keys, connector);
    if (imported) {
      handled = true;
      info(`Roll back run ${imported.id} (import of ${connector} on ${own.url}): ${connector} will be deleted (stopped first, its offsets kept in a snapshot).`);
      if (opts.dryRun) {
        stdout('dry run: nothing was changed\n');
        return true;
      }
      // Four-eyes where a policy (or the context) requires approval for rollback: a change request instead, nothing deleted
      // (the door refuses an undo that is not that request being applied, whatever the face does).
      if (await requestImportUndoInstead(own, { url: own.url, http: own.http, store }, imported, info)) return true;
      await confirm(`Delete ${connector}, which that import created?`, { yes: opts.yes === true });
      const scope = await cliAuditScope(own, store);
      const outcome = await applyWithSignals((signal, beforeStep, onEvent) =>
        move.rollbackImportAudited({ url: own.url, http: own.http, store }, keys[0]!, imported, scope, { signal, onEvent, ...(beforeStep ? { beforeStep } : {}) }), info);
      printOutcome({ ...outcome, warnings: [] }, json, []);
    }
    return handled;
  } finally {
    await store.close();
    if (!handled) await own.http.close();
    else await own.http.close().catch(() => undefined);
  }
}
