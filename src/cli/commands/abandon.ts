// `runs abandon <id> --reason <text>`: the way out of an interrupted run that changes no offsets.
// Shows the run and the connector's live state first, asks (or --yes), then records who abandoned
// it (the database login on the team store, else the OS login, with the host: what authenticated
// this person here) and why, and frees the connector's lock. The connector is left exactly as it
// is; the text says how to bring it back.
import type { Connection, ConnectionOptions } from '../connection.js';
import { OpsError } from '../../ops/errors.js';
import { stderr, stdout } from './say.js';
import { openHistory, refusal } from './history-actions.js';
import { resolveConnection } from '../connection.js';
import { requestAbandonInstead } from '../change-request.js';
import { confirm } from '../confirm.js';
import { cliActorFor } from '../actor.js';
import * as ops from '../../ops/index.js';

export interface AbandonOptions extends ConnectionOptions {
  reason?: string;
  yes?: boolean;
}

export async function abandonCommand(id: string, opts: AbandonOptions): Promise<void> {
  if (opts.reason === undefined || opts.reason.trim() === '') {
    throw new OpsError('E_USAGE', '--reason <text> is required: say why the run is abandoned (it is recorded with the run, with who abandoned it)', { field: 'reason' });
  }
  // The run is abandoned in the store it was found in (the team store named by --store,
  // OFFSETCTL_STORE or the context): opening the state folder's file instead refused every run
  // of the team store ("no run … in …/offsetctl.db") and left its lock for good (issue 30).
  const { store } = await openHistory(opts);
  let conn: Connection;
  try {
    const { clusterUrl } = await store.getRun(id).catch((err: unknown) => {
      throw refusal(err);
    });
    conn = await resolveConnection(opts.url || opts.context ? opts : { ...opts, url: clusterUrl });
  } catch (err) {
    await store.close();
    throw err;
  }
  const ctx = { url: conn.url, http: conn.http, store };
  try {
    const plan = await ops.planAbandon(ctx, id);
    const run = plan.run;
    const c = run.connector;
    const step = run.lastStep ? `after step ${run.lastStep}` : 'before its first step';
    const before = typeof run.context.stateBefore === 'string' ? ` It was ${run.context.stateBefore} before the run.` : '';
    const bringBack = plan.liveState === 'STOPPED' && run.context.stateBefore !== 'STOPPED'
      ? ` bring it back with \`offsetctl ${run.context.stateBefore === 'PAUSED' ? 'pause' : 'resume'} ${c} --url ${run.clusterUrl}\``
      : '';
    stdout([
      `Run ${run.id}: ${run.operation} of ${c} on ${run.clusterUrl}, interrupted ${step}${run.context.snapshotId ? ` (snapshot ${run.context.snapshotId} stored; \`offsetctl rollback ${c} --snapshot ${run.context.snapshotId}\` restores it)` : ' (no snapshot stored)'}.`,
      plan.liveText ? `${c} is ${plan.liveText} now.${before}` : `${c}: its state could not be read (${plan.unreadable}).${before}`,
      `Abandoning the run changes no offsets and leaves ${c} as it is${bringBack ? `;${bringBack}` : ''}.`,
      '',
    ].join('\n'));
    // Under a policy covering `abandon`: a change request instead (someone else approves, `changes apply` abandons it).
    if (await requestAbandonInstead(conn, ctx, run, opts.reason, (text) => (conn.output === 'json' ? stderr : stdout)(`${text}\n`))) return;
    await confirm(`Abandon run ${run.id}?`, { yes: opts.yes === true });
    // On the team store the database login names who gave it up (as in `runs`' BY column), else the OS login.
    const actor = await cliActorFor(store);
    const by = actor.dbUser ? `${actor.dbUser}@${actor.host}` : actor.user;
    // Through ops' door: the team's policy is checked and the act audited (refusals too).
    const scope = { actor, ...(conn.contextName ? { context: conn.contextName } : {}) };
    const done = await ops.abandonAudited(ctx, scope, plan, { by, reason: opts.reason });
    stdout(`Run ${done.id} abandoned by ${by}: ${opts.reason.trim()}. The lock on ${c} is free.\n`);
  } finally {
    await store.close();
    await conn.http.close();
  }
}
