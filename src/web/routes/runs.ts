// The run history (the store's journal) and resuming an interrupted run: resuming is previewed
// like any change, so it passes the same confirmation, approval and audit as the change form.
import type { Hono } from 'hono';
import { getRun, isRefusal, listRuns, ofContextCluster, OpsError, planResume, runEvents, runSteps, type RunRecord } from '../ops-bridge.js';
import { runPage, runsPage } from '../pages/history.js';
import { previewPage } from '../pages/preview.js';
import type { Env, RouteDeps } from './deps.js';

export function runRoutes(app: Hono<Env>, d: RouteDeps): void {
  app.get('/runs', async (c) => {
    const ctx = await d.opsContext(c);
    const connector = c.req.query('connector') || undefined;
    const runs = (await listRuns(ctx, connector ? { connector } : {})).filter((r) => d.allowed(c, 'viewer', r.connector));
    return c.html(runsPage(runs, connector, await d.frame(c)));
  });

  app.get('/runs/:id', async (c) => {
    const ctx = await d.opsContext(c);
    const id = c.req.param('id');
    let run: RunRecord;
    try {
      run = await getRun(ctx, id);
    } catch (err) {
      return c.html(await d.errorPage(c, `Run ${id}`, err), 404);
    }
    if (!(await ofContextCluster(ctx))(run)) return d.notHere(c, `Run ${id}`, `run ${id}`);
    if (!d.allowed(c, 'viewer', run.connector)) return d.forbidden(c, 'viewer', run.connector);
    const [steps, events] = await Promise.all([runSteps(ctx, id), runEvents(ctx, id)]);
    return c.html(runPage(run, steps, events, c.get('session').csrf, await d.frame(c)));
  });

  app.post('/runs/:id/resume', async (c) => {
    const ctx = await d.opsContext(c);
    const session = c.get('session');
    let connector: string | undefined;
    try {
      const run = await getRun(ctx, c.req.param('id'));
      if (!(await ofContextCluster(ctx))(run)) {
        const why = `run ${run.id} is not of context ${d.contextName(c.get('context')) || 'this context'}: refused, nothing changed`;
        await d.audit(c, { action: 'resume', connector: run.connector }, new OpsError('E_USAGE', why));
        return d.notHere(c, `Run ${run.id}`, `run ${run.id}`);
      }
      connector = run.connector;
    } catch {
      // An unknown id: planResume below refuses it with the store's message.
    }
    if (!d.allowed(c, 'operator', connector)) return d.refuseChange(c, 'resume', connector);
    try {
      const plan = await planResume(ctx, { runId: c.req.param('id') });
      const id = await d.plans.put(plan, session.id, c.get('context'));
      return c.html(previewPage(plan, id, session.csrf, await d.frame(c), undefined, await d.approvalRequired(c, plan)));
    } catch (err) {
      if (isRefusal(err)) await d.audit(c, { action: 'resume', ...(connector ? { connector } : {}) }, err);
      return c.html(await d.errorPage(c, `Run ${c.req.param('id')}`, err), isRefusal(err) ? 400 : 502);
    }
  });
}
