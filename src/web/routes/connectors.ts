// The connectors list (with its table refreshed alone by the page's script) and one connector's
// page: its state, offsets, recent runs and snapshots. Reads only; each connector is shown only to
// a role that may see it in the address's context.
import type { Hono } from 'hono';
import {
  connectorInfo, connectorOffsets, isRefusal, listConnectorsOf, listRuns, listSnapshots, logPositions, type LogPositionsResult, type RunRecord,
} from '../ops-bridge.js';
import { connectorPage, shownSinkPartitions } from '../pages/connector.js';
import { connectorsPage, connectorsTable, type ConnectorsView } from '../pages/connectors.js';
import { message, pageParam, type C, type Env, type RouteDeps } from './deps.js';

export function connectorRoutes(app: Hono<Env>, d: RouteDeps): void {
  app.get('/connectors', async (c) => c.html(connectorsPage(await connectorsView(c), await d.frame(c))));
  // Registered before /connectors/:name, which would otherwise take "table" for a connector's name.
  app.get('/connectors/table', async (c) => c.html(connectorsTable(await connectorsView(c))));

  app.get('/connectors/:name', async (c) => {
    const name = c.req.param('name');
    if (!d.allowed(c, 'viewer', name)) return d.forbidden(c, 'viewer', name);
    const ctx = await d.opsContext(c);
    try {
      const [info, offsets, runs, snapshots] = await Promise.all([
        connectorInfo(ctx, name), connectorOffsets(ctx, name), listRuns(ctx, { connector: name, limit: 5 }), listSnapshots(ctx, { connector: name }),
      ]);
      const page = pageParam(c);
      // Only the partitions of the shown page are asked about (a 1,000-partition sink stays fast).
      let log: LogPositionsResult | undefined;
      if (info.type === 'sink') log = await logPositions(ctx, info, shownSinkPartitions(offsets, page));
      return c.html(connectorPage({ info, offsets, page, ...(log ? { log } : {}), runs, snapshots, canChange: d.allowed(c, 'operator', name) }, await d.frame(c)));
    } catch (err) {
      return c.html(await d.errorPage(c, `Connector ${name}`, err), isRefusal(err) ? 404 : 502);
    }
  });

  async function connectorsView(c: C): Promise<ConnectorsView> {
    const ctx = await d.opsContext(c);
    const filter = c.req.query('q') ?? '';
    const lastRuns = new Map<string, RunRecord>();
    for (const run of await listRuns(ctx, { limit: 1000 })) if (!lastRuns.has(run.connector)) lastRuns.set(run.connector, run);
    try {
      const connectors = (await listConnectorsOf(ctx)).filter((s) => d.allowed(c, 'viewer', s.name));
      return { connectors, lastRuns, filter, clusterUrl: ctx.url };
    } catch (err) {
      return { connectors: [], lastRuns, filter, clusterUrl: ctx.url, loadError: message(err) };
    }
  }
}
