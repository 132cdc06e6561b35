// Changing a connector's offsets: the change form, its preview (a plan, kept for this session and
// context) and applying the previewed plan, the name typed to confirm. Refusals (bad input,
// pre-flight) are shown next to the form with the CLI's message and status 400: nothing was sent
// to the cluster but reads. Where approval is required the confirmed plan becomes a change request.
import type { Hono } from 'hono';
import { storeActor } from '../auth/index.js';
import { positionOf, str, tableOffsets } from '../forms.js';
import type { Html } from '../html.js';
import { reqIdOf } from '../observe/index.js';
import {
  connectorInfo, connectorOffsets, isRefusal, OpsError, parseOffsetsText, planPosition, planReset, planRewind, positionSupport, requestChange, savePlan,
  type Plan,
} from '../ops-bridge.js';
import { changePage, type PositionChoice } from '../pages/change.js';
import { previewPage } from '../pages/preview.js';
import { message, pageParam, type C, type Env, type RouteDeps } from './deps.js';

export function changeOffsetRoutes(app: Hono<Env>, d: RouteDeps): void {
  const { plans } = d;

  app.get('/connectors/:name/change', async (c) => {
    const name = c.req.param('name');
    if (!d.allowed(c, 'operator', name)) return d.forbidden(c, 'operator', name);
    try {
      return c.html(await renderChange(c, name, {}));
    } catch (err) {
      return c.html(await d.errorPage(c, `Change offsets of ${name}`, err), isRefusal(err) ? 404 : 502);
    }
  });

  app.post('/connectors/:name/preview', async (c) => {
    const name = c.req.param('name');
    const form = await c.req.parseBody({ all: true });
    const mode = str(form.mode);
    if (!d.allowed(c, 'operator', name)) return d.refuseChange(c, mode === 'reset' ? 'reset' : 'rewind', name);
    const resumeAfter = str(form.resumeAfter) || 'auto';
    const ctx = await d.opsContext(c);
    try {
      if (resumeAfter !== 'auto' && resumeAfter !== 'always' && resumeAfter !== 'never') {
        throw new OpsError('E_USAGE', `resumeAfter: must be auto, always or never (got ${JSON.stringify(resumeAfter)})`, { field: 'resumeAfter' });
      }
      let plan: Plan;
      // The connector's profile as the CLI's dry run reads it: a Debezium source's slot through the context's source-db (docs/connectors.md).
      const profile = await ctx.profile?.(name) ?? {};
      if (mode === 'reset') plan = await planReset(ctx, { connector: name, resumeAfter, profile });
      else if (mode === 'json') plan = await planRewind(ctx, { connector: name, offsets: await parseOffsetsText(str(form.offsets)), resumeAfter, profile });
      else if (mode === 'table') plan = await planRewind(ctx, { connector: name, offsets: tableOffsets(form), resumeAfter, profile });
      else if (mode === 'position') plan = await planPosition(ctx, { connector: name, position: positionOf(form), resumeAfter, profile });
      else throw new OpsError('E_USAGE', `mode: must be table, json, position or reset (got ${JSON.stringify(mode)})`, { field: 'mode' });
      const session = c.get('session');
      const id = await plans.put(plan, session.id, c.get('context'));
      return c.html(previewPage(plan, id, session.csrf, await d.frame(c), undefined, await d.approvalRequired(c, plan)));
    } catch (err) {
      if (!isRefusal(err)) throw err;
      await d.audit(c, { action: mode === 'reset' ? 'reset' : 'rewind', connector: name }, err);
      const kept = mode === 'json' ? { pasted: str(form.offsets) } : {};
      // The position form keeps what was chosen and typed, for fixing.
      const keptPosition = mode === 'position' ? { position: { kind: str(form.position), time: str(form.time), shift: str(form.shift) } } : {};
      try {
        return c.html(await renderChange(c, name, { ...kept, ...keptPosition, mode, resumeAfter, error: message(err) }), 400);
      } catch {
        // The form cannot be shown again (the cluster stopped answering): the refusal still is.
        return c.html(await d.errorPage(c, `Change offsets of ${name}`, err), 400);
      }
    }
  });

  app.post('/plans/:id/apply', async (c) => {
    const session = c.get('session');
    // No operator grant in this context at all: refused before the plan is even looked up.
    // The audit names the plan's connector; the answer does not (the plan is someone else's).
    if (!d.allowed(c, 'operator')) return d.refuseChange(c, 'apply', await plans.connectorOf(c.req.param('id')), false);
    const held = await plans.get(c.req.param('id'), session.id);
    const gone = new OpsError('E_PREFLIGHT', 'this preview expired or was already applied: preview again');
    if (!held) {
      // Someone else's plan id: the same answer (nothing says it exists), but an entry in the audit.
      const others = await plans.connectorOf(c.req.param('id'));
      if (others !== undefined) {
        const why = `${session.identity.user} tried to apply a plan previewed in another session (${c.req.param('id')}); refused, nothing changed`;
        const probe = Object.assign(new Error(why), { code: 'E_FORBIDDEN' });
        d.log.warn({ event: 'forbidden', reqId: reqIdOf(c), user: session.identity.user, ip: d.client(c), action: 'apply', connector: others }, why);
        await d.audit(c, { action: 'apply', connector: others }, probe);
      }
      return c.html(await d.errorPage(c, 'Apply', gone), 400);
    }
    const form = await c.req.parseBody();
    const typed = str(form.confirm).trim();
    if (typed !== held.plan.connector) {
      const why = typed === ''
        ? `type the connector's name, ${held.plan.connector}, to confirm`
        : `you typed ${JSON.stringify(typed)}, not the connector's name ${JSON.stringify(held.plan.connector)}`;
      return c.html(previewPage(held.plan, c.req.param('id'), session.csrf, await d.frame(c), why, await d.approvalRequired(c, held.plan)), 400);
    }
    // A preview is one context's: applied under another context's address, it is refused.
    if (held.context !== c.get('context')) {
      const why = `this preview was made in another context than ${d.contextName(c.get('context')) || 'this one'}: preview again here`;
      return c.html(await d.errorPage(c, 'Apply', new OpsError('E_PREFLIGHT', why)), 400);
    }
    // The grant may have been for another connector than the one this plan changes.
    if (!d.allowed(c, 'operator', held.plan.connector)) return d.refuseChange(c, held.plan.operation, held.plan.connector);
    // Taken once: a second click, or the same plan confirmed through another replica meanwhile, finds it gone.
    if (!(await plans.take(c.req.param('id')))) return c.html(await d.errorPage(c, 'Apply', gone), 400);
    const ctx = await d.opsContext(c);
    if (await d.approvalRequired(c, held.plan)) {
      // Four-eyes: the previewed plan becomes a change request someone else approves; nothing changes now.
      const scope = d.auditScope(c, 'operator');
      const request = await requestChange(ctx, savePlan([held.plan], { plannedBy: scope.actor }), {
        actor: storeActor(session.identity), audit: scope, ...(scope.context ? { contextName: scope.context } : {}),
      });
      if (request.auditWarning) d.log.error({ event: 'audit-failed', action: 'change-request', user: session.identity.user }, request.auditWarning);
      return c.redirect(`/changes/${encodeURIComponent(request.id)}`, 303);
    }
    const job = d.jobs.start(ctx, held.plan, d.auditScope(c, 'operator'));
    return c.redirect(`/jobs/${job.id}`, 303);
  });

  /** The change form, again with what was typed and why it was refused. */
  async function renderChange(c: C, name: string, kept: { pasted?: string; mode?: string; resumeAfter?: string; error?: string; position?: PositionChoice }): Promise<Html> {
    const ctx = await d.opsContext(c);
    const [info, offsets] = await Promise.all([connectorInfo(ctx, name), connectorOffsets(ctx, name)]);
    const base = await d.frame(c);
    return changePage({
      info, offsets, page: pageParam(c), csrf: c.get('session').csrf, positions: positionSupport(ctx, info),
      ...(kept.pasted !== undefined ? { pasted: kept.pasted } : {}),
      ...(kept.position ? { position: kept.position } : {}),
      ...(kept.resumeAfter ? { resumeAfter: kept.resumeAfter } : {}),
    }, { ...base, ...(kept.error ? { error: kept.error } : {}) });
  }
}
