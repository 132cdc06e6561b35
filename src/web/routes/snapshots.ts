// The snapshots taken before every change, and one snapshot with its rollback plan: the plan is a
// read (the snapshot against the current offsets), previewed for an operator, explained to others.
import type { Hono } from 'hono';
import { getSnapshot, listSnapshots, ofContextCluster, planRollback, type SnapshotRecord } from '../ops-bridge.js';
import { snapshotPage, snapshotsPage } from '../pages/history.js';
import { message, pageParam, type Env, type RouteDeps } from './deps.js';

export function snapshotRoutes(app: Hono<Env>, d: RouteDeps): void {
  app.get('/snapshots', async (c) => {
    const ctx = await d.opsContext(c);
    const connector = c.req.query('connector') || undefined;
    return c.html(snapshotsPage((await listSnapshots(ctx, connector ? { connector } : {})).filter((s) => d.allowed(c, 'viewer', s.connector)), connector, await d.frame(c)));
  });

  app.get('/snapshots/:id', async (c) => {
    const ctx = await d.opsContext(c);
    const session = c.get('session');
    const id = c.req.param('id');
    let snapshot: SnapshotRecord;
    try {
      snapshot = await getSnapshot(ctx, id);
    } catch (err) {
      return c.html(await d.errorPage(c, `Snapshot ${id}`, err), 404);
    }
    if (!(await ofContextCluster(ctx))(snapshot)) return d.notHere(c, `Snapshot ${id}`, `snapshot ${id}`);
    if (!d.allowed(c, 'viewer', snapshot.connector)) return d.forbidden(c, 'viewer', snapshot.connector);
    const view: Parameters<typeof snapshotPage>[0] = { snapshot, page: pageParam(c), csrf: session.csrf };
    if (!d.allowed(c, 'operator', snapshot.connector)) {
      view.planError = `your role (${session.access.describe()}) may not roll back ${snapshot.connector}`;
      return c.html(snapshotPage(view, await d.frame(c)));
    }
    try {
      // The rollback plan is a read: its diff is the snapshot against the current offsets.
      const plan = await planRollback(ctx, { connector: snapshot.connector, snapshotId: snapshot.id, profile: await ctx.profile?.(snapshot.connector) ?? {} });
      view.plan = plan;
      view.planId = await d.plans.put(plan, session.id, c.get('context'));
    } catch (err) {
      view.planError = message(err);
    }
    return c.html(snapshotPage(view, await d.frame(c)));
  });
}
