// `offsetctl changes apply <id>` of an approved rollback of a moved connector: the move to undo is
// found again (the same lookup `rollback` makes), checked against the request (the same move
// run, on the same two clusters, else refused with nothing changed), shown, asked about, then
// undone through the door (applyMoveRollbackAudited: past the policy only for a request the
// store has as being applied), audited, its outcome recorded on the request.
import type { ChangeRequestRecord } from '../../store/index.js';
import type { ApplyOptions } from './apply.js';
import { applyWithSignals, auditRefused, cliAuditScope, printOutcome } from './move-face.js';
import { connectionFor } from './move-recovery.js';
import { stderr, stdout, warnUnaudited } from './say.js';
import { undoFacts } from '../change-request.js';
import { resolveConnection } from '../connection.js';
import { openCommandStore } from '../store-choice.js';
import { requestHeading } from '../../present/index.js';
import { confirm } from '../confirm.js';
import * as ops from '../../ops/index.js';
import * as move from '../../ops/move/index.js';

export async function applyMoveUndoRequest(id: string, request: ChangeRequestRecord, opts: ApplyOptions): Promise<void> {
  const stored = ops.requestedMove(request);
  const own = await resolveConnection(opts.url || opts.context ? opts : { ...opts, url: stored.from.url });
  const store = await openCommandStore(own.store);
  const from = await connectionFor(stored.from.url, own, opts);
  const to = await connectionFor(stored.to.url, own, opts);
  const ctx = { url: from.url, http: from.http, store };
  const audit = await cliAuditScope(own, store);
  const json = own.output === 'json';
  const info = (text: string): unknown => (json ? stderr : stdout)(`${text}\n`);
  try {
    const { doc } = await ops.approvedMove(ctx, id);
    const moved = await move.moveToUndo(store, [doc.from.key], doc.connector);
    await ops.checkMoveUndoRequest(doc, moved ? undoFacts(moved) : undefined, { from: from.http, to: to.http });
    const plan = await move.planMoveRollback(ctx, to, moved!);
    info(requestHeading(request));
    info(
      `Roll back run ${plan.runId} (${plan.operation} of ${plan.connector}): ${plan.connector} will run again on ${plan.fromUrl} with its offsets, ` +
        `and nothing of it stays on ${plan.toUrl}.`,
    );
    for (const w of plan.warnings) stderr(`warning: ${w}\n`);
    if (opts.dryRun) {
      stdout('dry run: nothing was changed\n');
      return;
    }
    await confirm(`Undo the ${plan.operation} of ${plan.connector} (approved change request ${id})?`, { yes: opts.yes === true });
    warnUnaudited(await ops.startApplying(ctx, id));
    let outcome: Awaited<ReturnType<typeof move.applyMoveRollbackAudited>>;
    try {
      const keys = { from: doc.from.key, to: doc.to.key };
      outcome = await applyWithSignals(
        (signal, beforeStep, onEvent) =>
          move.applyMoveRollbackAudited(ctx, to, plan, keys, audit, { signal, onEvent, ...(beforeStep ? { beforeStep } : {}) }, id),
        info,
      );
    } catch (err) {
      warnUnaudited(await ops.finishApplying(ctx, id, { succeeded: false, runIds: [], message: (err as Error).message }));
      throw err;
    }
    warnUnaudited(await ops.finishApplying(ctx, id, { succeeded: outcome.status === 'succeeded', runIds: [outcome.runId], message: outcome.message }));
    printOutcome(outcome, json, plan.warnings);
  } catch (err) {
    await auditRefused({ ctx, audit }, { action: 'rollback', connector: stored.connector }, err);
    throw err;
  } finally {
    await store.close();
    for (const c of new Set([own, from, to])) await c.http.close().catch(() => undefined);
  }
}
