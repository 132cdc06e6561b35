// `offsetctl changes apply <id>` of an approved request to abandon a run: the run is found again
// in the store and checked against the request (the same run, connector, cluster and step, still
// interrupted; else refused with nothing changed), shown, asked about, then abandoned through the
// door (abandonAudited: past the policy only for a request the store has as being applied, for
// that run), which frees its lock; the outcome is recorded on the request.
import type { ChangeRequestRecord } from '../../store/index.js';
import type { ApplyOptions } from './apply.js';
import { auditRefused } from './move-face.js';
import { stdout, warnUnaudited } from './say.js';
import { resolveConnection } from '../connection.js';
import { openHistory } from './history-actions.js';
import { requestHeading } from '../../present/index.js';
import { confirm } from '../confirm.js';
import { cliActorFor } from '../actor.js';
import * as ops from '../../ops/index.js';

export async function applyAbandonRequest(id: string, request: ChangeRequestRecord, opts: ApplyOptions): Promise<void> {
  const conn = await resolveConnection(opts.url || opts.context ? opts : { ...opts, url: request.clusterUrl });
  const { store } = await openHistory(opts);
  const ctx = { url: conn.url, http: conn.http, store };
  const actor = await cliActorFor(store);
  const audit = { actor, ...(conn.contextName ? { context: conn.contextName } : {}) };
  try {
    const { doc } = await ops.approvedAbandon(ctx, id);
    const plan = await ops.planAbandon(ctx, doc.runId);
    ops.checkAbandonRequest(doc, plan.run);
    const c = plan.run.connector;
    stdout(`${requestHeading(request)}\nRun ${plan.run.id}: ${plan.run.operation} of ${c} on ${plan.run.clusterUrl}, interrupted. ` +
      `${plan.liveText ? `${c} is ${plan.liveText} now. ` : ''}Abandoning the run changes no offsets and leaves ${c} as it is.\n`);
    if (opts.dryRun) {
      stdout('dry run: nothing was changed\n');
      return;
    }
    await confirm(`Abandon run ${plan.run.id} (approved change request ${id})?`, { yes: opts.yes === true });
    warnUnaudited(await ops.startApplying(ctx, id));
    const by = actor.dbUser ? `${actor.dbUser}@${actor.host}` : actor.user;
    let done: Awaited<ReturnType<typeof ops.abandonAudited>>;
    try {
      done = await ops.abandonAudited(ctx, audit, plan, { by, reason: `${doc.reason} (change request ${id})` }, id);
    } catch (err) {
      warnUnaudited(await ops.finishApplying(ctx, id, { succeeded: false, runIds: [], message: (err as Error).message }));
      throw err;
    }
    warnUnaudited(await ops.finishApplying(ctx, id, { succeeded: true, runIds: [done.id], message: `run ${done.id} abandoned` }));
    stdout(`Run ${done.id} abandoned by ${by} (change request ${id}): ${doc.reason}. The lock on ${c} is free.\n`);
  } catch (err) {
    await auditRefused({ ctx, audit }, { action: 'abandon', connector: request.connectors[0]! }, err);
    throw err;
  } finally {
    await store.close();
    await conn.http.close().catch(() => undefined);
  }
}
