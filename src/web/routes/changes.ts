// The console's change requests (four-eyes approval): listed, shown with the diff, approved or
// rejected, applied. Every POST has passed the CSRF check (app.ts); each route checks the role on
// the server for every connector of the request, in the request's context: an operator may
// review and apply, and the requester may never approve their own request. The acting identity is
// the signed-in user, handed to the store (its history) and to the audit trail (with issuer and
// groups); nothing a client sends names anyone.
import type { Hono } from 'hono';
import type { ChangeRequestRecord, ClusterRef, MoveRequestDoc, Plan, WebContext } from '../ops-bridge.js';
import {
  approvedMove, auditRefusal, checkApprovedChange, checkMoveRequest, finishApplying, isMoveRequest, isRefusal, ofContextCluster, OpsError, planMove,
  requestedPlan, reviewChange, sameIdentity, startApplying,
} from '../ops-bridge.js';
import type { JobEnd } from '../jobs.js';
import { actorOf, storeActor } from '../auth/index.js';
import type { Html } from '../html.js';
import { changeRequestPage, changesPage } from '../pages/changes.js';
import { str } from '../forms.js';
import { message, type C, type Env, type RouteDeps } from './deps.js';

export function changeRoutes(app: Hono<Env>, d: RouteDeps): void {
  /** The role check in a named context (a request's), not only the address's. */
  const mayIn = (c: C, need: 'viewer' | 'operator', context: string, connector?: string): boolean => c.get('session').access.may(need, context, connector);
  /** The context name a request is checked in when it names none (the address's). */
  const sessionContext = (c: C): string => d.contextName(c.get('context'));
  /** Which requests are of the address's context: those naming it, and those naming none made on its cluster. */
  const ofThisContext = async (c: C): Promise<(r: ChangeRequestRecord) => boolean> => {
    const cluster = await ofContextCluster(await d.opsContext(c));
    const here = d.contextName(c.get('context'));
    return (r) => (r.contextName !== undefined ? r.contextName === here : cluster(r));
  };
  const contextOf = (c: C, r: ChangeRequestRecord): string => r.contextName ?? sessionContext(c);
  const mayAll = (c: C, need: 'viewer' | 'operator', r: ChangeRequestRecord): boolean => r.connectors.every((name) => mayIn(c, need, contextOf(c, r), name));
  /** Who acts: for the store's history the signed-in user; for the audit the whole identity, and the context. */
  const acting = (c: C, r: ChangeRequestRecord) => ({
    actor: storeActor(c.get('session').identity),
    audit: { actor: actorOf(c.get('session').identity, 'operator'), ...(contextOf(c, r) ? { context: contextOf(c, r) } : {}) },
  });

  app.get('/changes', async (c) => {
    const all = await d.store.listChangeRequests({ limit: 200 });
    const here = await ofThisContext(c);
    return c.html(changesPage(all.filter((r) => here(r) && mayAll(c, 'viewer', r)), await d.frame(c)));
  });

  app.get('/changes/:id', async (c) => {
    const found = await load(c);
    if (found instanceof Response) return found;
    if (!mayAll(c, 'viewer', found)) return d.refuseChange(c, 'view change request', found.connectors[0]);
    return c.html(await page(c, found));
  });

  app.post('/changes/:id/approve', async (c) => review(c, 'approve'));
  app.post('/changes/:id/reject', async (c) => review(c, 'reject'));

  app.post('/changes/:id/apply', async (c) => {
    const found = await load(c);
    if (found instanceof Response) return found;
    if (!mayAll(c, 'operator', found)) return d.refuseChange(c, 'apply change request', found.connectors[0]);
    const ctx = await d.opsContext(c);
    const who = acting(c, found);
    try {
      if (isMoveRequest(found.plan)) return await applyMove(c, found, ctx, who);
      // The plan is checked again as `offsetctl changes apply` does, a Debezium source's slot read through the context's source-db.
      const { checked } = await checkApprovedChange(ctx, found.id, ctx.profile ? { profileFor: ctx.profile } : {});
      if (checked.changesMeaning) {
        const moved = checked.connectors.filter((x) => x.movement.changesMeaning).map((x) => x.saved.connector).join(', ');
        throw new OpsError('E_PLAN_MOVED', `the starting offsets of ${moved} moved since the request was made, in a way that changes what it does; nothing was changed: check them with \`offsetctl changes apply ${found.id}\` (it shows what moved) or request the change anew`, { field: 'offsets' });
      }
      await startApplying(ctx, found.id, who);
      const onEnd = async (end: JobEnd): Promise<string | undefined> => (await finishApplying(ctx, found.id, {
        succeeded: end.status === 'succeeded' || end.status === 'unchanged',
        runIds: end.batch ? end.batch.rows.flatMap((r) => (r.runId ? [r.runId] : [])) : end.runId ? [end.runId] : [],
        ...(end.batch ? { batchId: end.batch.id } : {}), message: end.message, ...who,
      })).auditWarning;
      // Many connectors are applied as one batch (one batch id, every one checked first), as `offsetctl changes apply` does.
      const job = checked.connectors.length > 1
        ? d.jobs.startBatch(ctx, checked, who.audit, { requestId: found.id, onEnd })
        : d.jobs.start(ctx, checked.connectors[0]!.plan, who.audit, { planDigest: found.digest, requestId: found.id, onEnd });
      return c.redirect(`/jobs/${job.id}`, 303);
    } catch (err) {
      if (!isRefusal(err)) throw err;
      // A refused apply (not approved, expired, the connector changed) is in the trail like the CLI's.
      for (const connector of found.connectors) {
        await auditRefusal({ store: d.store, url: ctx.url }, who.audit, { action: 'change-request', connector, clusterUrl: found.clusterUrl, clusterKey: found.clusterKey }, err).catch(() => undefined);
      }
      return c.html(await page(c, await d.store.getChangeRequest(found.id), err), 400);
    }
  });

  /**
   * An approved move or copy request, as `offsetctl changes apply` applies it: planned again with
   * the choices approved, checked against the request (the same two clusters, connector, class and
   * configuration, else refused with nothing changed), then applied as a job through ops' door
   * (applyMoveAudited, past the policy only for this request being applied). The target cluster is
   * reached through one of this console's contexts (its credentials), where the user must be an
   * operator of the new connector too; the undo of a move is applied from the CLI.
   */
  async function applyMove(c: C, found: ChangeRequestRecord, ctx: WebContext, who: ReturnType<typeof acting>): Promise<Response> {
    const { doc } = await approvedMove(ctx, found.id);
    if (doc.operation === 'rollback') {
      const how = `it is applied from the CLI, \`offsetctl changes apply ${found.id}\` (the move's other cluster is reached with --to); nothing was changed`;
      throw new OpsError('E_USAGE', `change request ${found.id} undoes a move: ${how}`, { field: 'id' });
    }
    const target = await targetOf(c, found, doc.to.url, ctx);
    if (!mayIn(c, 'operator', target.context, doc.targetName)) return d.refuseChange(c, 'apply change request', doc.targetName);
    const plan = await planMove(ctx, target.ref, {
      connector: doc.connector,
      mode: doc.operation === 'copy' ? 'copy' : 'move',
      ...doc.choices,
      // A Debezium source's slot (the move waits for it to be let go), read through the context's source-db.
      ...(doc.operation !== 'copy' && ctx.profile ? { profile: await ctx.profile(doc.connector) } : {}),
    });
    await checkMoveRequest(doc, plan, { from: ctx.http, to: target.ref.http });
    await startApplying(ctx, found.id, who);
    const onEnd = async (end: JobEnd): Promise<string | undefined> => (await finishApplying(ctx, found.id, {
      succeeded: end.status === 'succeeded', runIds: end.runId ? [end.runId] : [], message: end.message, ...who,
    })).auditWarning;
    const job = d.jobs.startMove(ctx, target.ref, plan, who.audit, { requestId: found.id, onEnd });
    return c.redirect(`/jobs/${job.id}`, 303);
  }

  /** The move's target through a context of this console (the request's own when it is the same URL), with its name for the role check. */
  async function targetOf(c: C, r: ChangeRequestRecord, url: string, ctx: WebContext): Promise<{ ref: ClusterRef; context: string }> {
    const same = (a: string, b: string): boolean => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
    if (same(url, ctx.url)) return { ref: { url: ctx.url, http: ctx.http }, context: contextOf(c, r) };
    for (const name of ['', ...(await d.contexts.names())]) {
      const resolved = await d.contexts.resolve(name).catch(() => undefined);
      if (resolved && same(resolved.url, url)) return { ref: { url: resolved.url, http: resolved.http }, context: d.contextName(name) };
    }
    const how = `apply it from the CLI, \`offsetctl changes apply ${r.id}\`; nothing was changed`;
    throw new OpsError('E_PREFLIGHT', `change request ${r.id}: no context of this console reaches ${url}, the ${r.operation}'s target: ${how}`, { field: 'url' });
  }

  async function review(c: C, decision: 'approve' | 'reject'): Promise<Response> {
    const found = await load(c);
    if (found instanceof Response) return found;
    if (!mayAll(c, 'operator', found)) return d.refuseChange(c, `${decision} change request`, found.connectors[0]);
    const form = await c.req.parseBody();
    try {
      await reviewChange(await d.opsContext(c), found.id, decision, { ...acting(c, found), ...(decision === 'reject' ? { reason: str(form.reason) } : {}) });
      return c.redirect(`/changes/${encodeURIComponent(found.id)}`, 303);
    } catch (err) {
      if (!isRefusal(err)) throw err;
      return c.html(await page(c, await d.store.getChangeRequest(found.id), err), 400);
    }
  }

  async function load(c: C): Promise<ChangeRequestRecord | Response> {
    try {
      const found = await d.store.getChangeRequest(c.req.param('id') ?? '');
      if ((await ofThisContext(c))(found)) return found;
      // Another context's request under this context's address: as if it did not exist.
      const where = sessionContext(c) || 'this context';
      return c.html(await d.errorPage(c, 'Change request', new OpsError('E_PREFLIGHT', `no change request ${found.id} in context ${where}`)), 404);
    } catch (err) {
      if ((err as { code?: string }).code !== 'E_NOT_FOUND') throw err;
      return c.html(await d.errorPage(c, 'Change request', err), 404);
    }
  }

  async function page(c: C, r: ChangeRequestRecord, err?: unknown): Promise<Html> {
    const session = c.get('session');
    const operator = mayAll(c, 'operator', r);
    // The requester is a person (issuer and subject), not a name: the same check as the server's.
    const mine = sameIdentity(r.requestedBy, { ...storeActor(session.identity), user: session.identity.user, via: 'console' });
    let plans: Plan[] = [];
    let invalid: unknown;
    try {
      // A move or copy request has no offsets diff to show; it is applied here too (applyMove).
      if (!isMoveRequest(r.plan) || r.operation === 'rollback') plans = requestedPlan(r).plans;
    } catch (e) {
      invalid = e;
    }
    const frame = await d.frame(c);
    const error = err ?? invalid;
    const moveSummary = isMoveRequest(r.plan) ? moveText(r.plan) : undefined;
    return changeRequestPage({
      request: r, plans, csrf: session.csrf,
      mayReview: operator && !mine && r.displayStatus === 'pending',
      ...(operator && mine && r.displayStatus === 'pending' ? { reviewNote: 'You made this request: someone else must approve it.' } : {}),
      mayApply: operator && r.displayStatus === 'approved',
      ...(moveSummary ? { moveSummary } : {}),
    }, { ...frame, ...(error ? { error: message(error) } : {}) });
  }
}

/** What a move or copy request does, in the words `offsetctl changes show` uses. */
function moveText(m: MoveRequestDoc): string {
  if (m.operation === 'rollback') return `undo of the move run ${m.undoes ?? ''} of ${m.connector}: back on ${m.from.url} (${m.from.key}), nothing of it left on ${m.to.url}`;
  return `${m.operation} of ${m.connector} (${m.connectorType}, ${m.connectorClass}, ${m.stateBefore} when requested) from ${m.from.url} (${m.from.key}) ` +
    `to ${m.to.url} (${m.to.key})${m.targetName !== m.connector ? ` as ${m.targetName}` : ''}: ${m.currentOffsets.length} partition(s) when requested; ` +
    `afterwards ${m.stateAfter} there`;
}
