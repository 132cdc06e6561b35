// `offsetctl changes apply <id>` of an approved move or copy request: the move planned again with
// the choices approved (both clusters from the request, unless --url/--context name the
// original's), checked against the request (ops/changes/move-request.ts: the same two clusters,
// connector, class and configuration, else refused with nothing changed), shown, asked about,
// then applied through the door (applyMoveAudited: the policy lets it through only for a request
// the store has as being applied), under the original's lock, audited, its outcome recorded.
import type { ChangeRequestRecord } from '../../store/index.js';
import type { ApplyOptions } from './apply.js';
import { applyWithSignals, auditRefused, openFace, printOutcome } from './move-face.js';
import { describePlan, question, verifyOption } from './move-actions.js';
import { stderr, stdout, warnUnaudited } from './say.js';
import { currentIO } from '../io.js';
import { requestHeading } from '../../present/index.js';
import { confirm } from '../confirm.js';
import { profileOptionsFor } from '../source-db.js';
import * as ops from '../../ops/index.js';
import * as move from '../../ops/move/index.js';

export async function applyMoveRequest(id: string, request: ChangeRequestRecord, opts: ApplyOptions): Promise<void> {
  const stored = ops.requestedMove(request);
  const face = await openFace(opts.url || opts.context ? opts : { ...opts, url: stored.from.url }, stored.to.url);
  const json = face.source.output === 'json';
  const info = (text: string): unknown => (json ? stderr : stdout)(`${text}\n`);
  try {
    const { doc } = await ops.approvedMove(face.ctx, id);
    const plan = await move.planMove(face.ctx, face.to, {
      connector: doc.connector,
      mode: doc.operation === 'copy' ? 'copy' : 'move',
      ...doc.choices,
      limits: ops.resolveLimits({}, currentIO().env),
      // A Debezium source's slot (the move waits for it to be let go): read through the context's
      // source-db, as `move` reads it; a request keeps no login.
      ...(doc.operation === 'copy' ? {} : { profile: await profileOptionsFor({}, face.source.context, doc.connector) }),
    });
    await ops.checkMoveRequest(doc, plan, { from: face.ctx.http, to: face.to.http });
    info(requestHeading(request));
    info(describePlan(plan));
    for (const w of plan.warnings) stderr(`warning: ${w}\n`);
    if (opts.dryRun) {
      stdout('dry run: nothing was changed\n');
      return;
    }
    await confirm(`${question(plan)} (approved change request ${id})`, { yes: opts.yes === true });
    warnUnaudited(await ops.startApplying(face.ctx, id));
    let outcome: Awaited<ReturnType<typeof move.applyMoveAudited>>;
    try {
      outcome = await applyWithSignals(
        (signal, beforeStep, onEvent) =>
          move.applyMoveAudited(
            face.ctx,
            face.to,
            plan,
            face.audit,
            {
              signal,
              onEvent,
              ...(beforeStep ? { beforeStep } : {}),
              ...verifyOption(),
            },
            id,
          ),
        info,
      );
    } catch (err) {
      // Refused at the door or the lock: the request says so (nothing moved), and is not applied.
      warnUnaudited(await ops.finishApplying(face.ctx, id, { succeeded: false, runIds: [], message: (err as Error).message }));
      throw err;
    }
    warnUnaudited(
      await ops.finishApplying(face.ctx, id, {
        succeeded: outcome.status === 'succeeded',
        runIds: outcome.runId ? [outcome.runId] : [],
        message: outcome.message,
      }),
    );
    printOutcome(outcome, json, plan.warnings);
  } catch (err) {
    await auditRefused(face, { action: request.operation, connector: stored.connector }, err);
    throw err;
  } finally {
    await face.close();
  }
}
