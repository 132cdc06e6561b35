// The console's routes. Every request passes the security headers and the session check; every
// POST passes the CSRF check; pages call only the ops bridge. Refusals (bad input, pre-flight)
// are shown next to the form with the CLI's message and status 400: nothing was sent to the
// cluster but reads.
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import type { HttpSender } from '../http/client.js';
import { redactText } from '../http/redact.js';
import { SESSION_COOKIE, Sessions, type Session } from './auth.js';
import { html, layout, type Html, type LayoutOptions } from './html.js';
import { loadAssets } from './assets.js';
import { positionOf, str, tableOffsets } from './forms.js';
import { Jobs } from './jobs.js';
import { streamJob } from './job-stream.js';
import {
  connectorInfo, connectorOffsets, getRun, logPositions, planPosition, getSnapshot, isRefusal, listConnectorsOf, listRuns, listSnapshots,
  OpsError, parseOffsetsText, planReset, planResume, planRewind, planRollback, positionSupport, runEvents, runSteps,
  type KafkaAccess, type LogPositionsResult, type Plan, type RunRecord, type SnapshotRecord, type Store, type WebContext,
} from './ops-bridge.js';
import { PlanStore } from './plans.js';
import { changePage, type PositionChoice } from './pages/change.js';
import { connectorPage, shownSinkPartitions } from './pages/connector.js';
import { connectorsPage, connectorsTable, type ConnectorsView } from './pages/connectors.js';
import { runPage, runsPage, snapshotPage, snapshotsPage } from './pages/history.js';
import { jobPage } from './pages/job.js';
import { previewPage } from './pages/preview.js';

export interface ContextSource {
  /** How the context the console started with is shown ('' in forms). */
  initialLabel: string;
  /** Other contexts from the config file. */
  names(): Promise<string[]>;
  /**
   * '' is the starting connection. Throws OpsError (E_CONFIG) for an unusable context. `kafka`:
   * the context's Kafka access (log positions, sink positions); absent means none configured.
   */
  resolve(name: string): Promise<{ url: string; http: HttpSender; kafka?: KafkaAccess }>;
}

export interface ConsoleDeps {
  store: Store;
  contexts: ContextSource;
  /** Served over TLS: the cookie gets `Secure`. */
  secure: boolean;
}

export interface Console {
  app: Hono<Env>;
  sessions: Sessions;
  jobs: Jobs;
}

type Env = { Variables: { session: Session } };

export const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function createConsole(deps: ConsoleDeps): Console {
  const sessions = new Sessions();
  const jobs = new Jobs();
  const plans = new PlanStore();
  const app = new Hono<Env>();
  const assets = loadAssets();

  app.use('*', async (c, next) => {
    await next();
    c.header('Content-Security-Policy', CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cache-Control', 'no-store');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Cross-Origin-Resource-Policy', 'same-origin');
  });

  app.get('/login', (c) => {
    const session = sessions.login(c.req.query('token'));
    if (!session) return c.html(bare('Login refused', 'This login link is not valid or was already used. Start `offsetctl ui` again and open the URL it prints.'), 403);
    setCookie(c, SESSION_COOKIE, session.id, { httpOnly: true, sameSite: 'Strict', secure: deps.secure, path: '/' });
    return c.redirect('/connectors', 303);
  });

  app.use('*', async (c, next) => {
    const session = sessions.find(getCookie(c, SESSION_COOKIE));
    if (!session) return c.html(bare('Not signed in', 'Open the URL printed by `offsetctl ui` (it carries a one-time login token).'), 403);
    const method = c.req.method;
    if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') return c.text('method not allowed', 405, { Allow: 'GET, POST' });
    c.set('session', session);
    await next();
  });

  app.post('*', bodyLimit({ maxSize: 8 * 1024 * 1024 }), async (c, next) => {
    const form = await c.req.parseBody({ all: true });
    const token = c.req.header('x-csrf-token') ?? form.csrf;
    if (!sessions.checkCsrf(c.get('session'), token)) return c.html(bare('Refused', 'This form has no valid CSRF token: reload the page and try again.'), 403);
    await next();
  });

  app.get('/assets/:file', (c) => {
    const asset = assets.get(c.req.param('file'));
    if (!asset) return c.notFound();
    return c.body(asset.body, 200, { 'Content-Type': asset.type });
  });

  app.get('/', (c) => c.redirect('/connectors', 303));
  app.get('/favicon.ico', (c) => c.body(null, 204));

  app.post('/context', async (c) => {
    const form = await c.req.parseBody();
    const name = typeof form.context === 'string' ? form.context : '';
    const known = ['', ...(await deps.contexts.names())];
    if (!known.includes(name)) return c.html(await errorPage(c, 'Connectors', new OpsError('E_CONFIG', `context ${JSON.stringify(name)} not found in the config file`, { field: 'context' })), 400);
    try {
      await deps.contexts.resolve(name);
    } catch (err) {
      return c.html(await errorPage(c, 'Connectors', err), isRefusal(err) ? 400 : 500);
    }
    c.get('session').context = name;
    return c.redirect('/connectors', 303);
  });

  app.get('/connectors', async (c) => c.html(connectorsPage(await connectorsView(c), await frame(c))));
  app.get('/connectors/table', async (c) => c.html(connectorsTable(await connectorsView(c))));

  app.get('/connectors/:name', async (c) => {
    const ctx = await opsContext(c);
    const name = c.req.param('name');
    try {
      const [info, offsets, runs, snapshots] = await Promise.all([
        connectorInfo(ctx, name), connectorOffsets(ctx, name), listRuns(ctx, { connector: name, limit: 5 }), listSnapshots(ctx, { connector: name }),
      ]);
      const page = pageParam(c);
      // Only the partitions of the shown page are asked about (a 1,000-partition sink stays fast).
      let log: LogPositionsResult | undefined;
      if (info.type === 'sink') log = await logPositions(ctx, info, shownSinkPartitions(offsets, page));
      return c.html(connectorPage({ info, offsets, page, ...(log ? { log } : {}), runs, snapshots }, await frame(c)));
    } catch (err) {
      return c.html(await errorPage(c, `Connector ${name}`, err), isRefusal(err) ? 404 : 502);
    }
  });

  app.get('/connectors/:name/change', async (c) => {
    const name = c.req.param('name');
    try {
      return c.html(await renderChange(c, name, {}));
    } catch (err) {
      return c.html(await errorPage(c, `Change offsets of ${name}`, err), isRefusal(err) ? 404 : 502);
    }
  });

  app.post('/connectors/:name/preview', async (c) => {
    const name = c.req.param('name');
    const form = await c.req.parseBody({ all: true });
    const mode = str(form.mode);
    const resumeAfter = str(form.resumeAfter) || 'auto';
    const ctx = await opsContext(c);
    try {
      if (resumeAfter !== 'auto' && resumeAfter !== 'always' && resumeAfter !== 'never') {
        throw new OpsError('E_USAGE', `resumeAfter: must be auto, always or never (got ${JSON.stringify(resumeAfter)})`, { field: 'resumeAfter' });
      }
      let plan: Plan;
      if (mode === 'reset') plan = await planReset(ctx, { connector: name, resumeAfter });
      else if (mode === 'json') plan = await planRewind(ctx, { connector: name, offsets: await parseOffsetsText(str(form.offsets)), resumeAfter });
      else if (mode === 'table') plan = await planRewind(ctx, { connector: name, offsets: tableOffsets(form), resumeAfter });
      else if (mode === 'position') plan = await planPosition(ctx, { connector: name, position: positionOf(form), resumeAfter });
      else throw new OpsError('E_USAGE', `mode: must be table, json, position or reset (got ${JSON.stringify(mode)})`, { field: 'mode' });
      const session = c.get('session');
      const id = plans.put(plan, session.id, session.context);
      return c.html(previewPage(plan, id, session.csrf, await frame(c)));
    } catch (err) {
      if (!isRefusal(err)) throw err;
      const kept = mode === 'json' ? { pasted: str(form.offsets) } : {};
      // The position form keeps what was chosen and typed, for fixing.
      const keptPosition = mode === 'position' ? { position: { kind: str(form.position), time: str(form.time), shift: str(form.shift) } } : {};
      try {
        return c.html(await renderChange(c, name, { ...kept, ...keptPosition, mode, resumeAfter, error: message(err) }), 400);
      } catch {
        // The form cannot be shown again (the cluster stopped answering): the refusal still is.
        return c.html(await errorPage(c, `Change offsets of ${name}`, err), 400);
      }
    }
  });

  app.post('/plans/:id/apply', async (c) => {
    const session = c.get('session');
    const held = plans.get(c.req.param('id'), session.id);
    if (!held) return c.html(await errorPage(c, 'Apply', new OpsError('E_PREFLIGHT', 'this preview expired or was already applied: preview again')), 400);
    const form = await c.req.parseBody();
    const typed = str(form.confirm).trim();
    if (typed !== held.plan.connector) {
      const why = typed === ''
        ? `type the connector's name, ${held.plan.connector}, to confirm`
        : `you typed ${JSON.stringify(typed)}, not the connector's name ${JSON.stringify(held.plan.connector)}`;
      return c.html(previewPage(held.plan, c.req.param('id'), session.csrf, await frame(c), why), 400);
    }
    if (held.context !== session.context) return c.html(await errorPage(c, 'Apply', new OpsError('E_PREFLIGHT', 'the context changed since this preview: preview again')), 400);
    plans.take(c.req.param('id'));
    const job = jobs.start(await opsContext(c), held.plan);
    return c.redirect(`/jobs/${job.id}`, 303);
  });

  app.get('/jobs/:id', async (c) => {
    const job = jobs.get(c.req.param('id'));
    if (!job) return c.html(await errorPage(c, 'Run', new OpsError('E_USAGE', 'no such job in this console (jobs live as long as the console; see Runs for the history)')), 404);
    return c.html(jobPage(job, await frame(c)));
  });

  app.get('/jobs/:id/events', (c) => {
    const job = jobs.get(c.req.param('id'));
    if (!job) return c.text('no such job', 404);
    return streamJob(c, job);
  });

  app.get('/runs', async (c) => {
    const ctx = await opsContext(c);
    const connector = c.req.query('connector') || undefined;
    return c.html(runsPage(await listRuns(ctx, connector ? { connector } : {}), connector, await frame(c)));
  });

  app.get('/runs/:id', async (c) => {
    const ctx = await opsContext(c);
    const id = c.req.param('id');
    let run: RunRecord;
    try {
      run = await getRun(ctx, id);
    } catch (err) {
      return c.html(await errorPage(c, `Run ${id}`, err), 404);
    }
    const [steps, events] = await Promise.all([runSteps(ctx, id), runEvents(ctx, id)]);
    return c.html(runPage(run, steps, events, c.get('session').csrf, await frame(c)));
  });

  app.post('/runs/:id/resume', async (c) => {
    const ctx = await opsContext(c);
    const session = c.get('session');
    try {
      const plan = await planResume(ctx, { runId: c.req.param('id') });
      return c.html(previewPage(plan, plans.put(plan, session.id, session.context), session.csrf, await frame(c)));
    } catch (err) {
      return c.html(await errorPage(c, `Run ${c.req.param('id')}`, err), isRefusal(err) ? 400 : 502);
    }
  });

  app.get('/snapshots', async (c) => {
    const ctx = await opsContext(c);
    const connector = c.req.query('connector') || undefined;
    return c.html(snapshotsPage(await listSnapshots(ctx, connector ? { connector } : {}), connector, await frame(c)));
  });

  app.get('/snapshots/:id', async (c) => {
    const ctx = await opsContext(c);
    const session = c.get('session');
    const id = c.req.param('id');
    let snapshot: SnapshotRecord;
    try {
      snapshot = await getSnapshot(ctx, id);
    } catch (err) {
      return c.html(await errorPage(c, `Snapshot ${id}`, err), 404);
    }
    const view: Parameters<typeof snapshotPage>[0] = { snapshot, page: pageParam(c), csrf: session.csrf };
    try {
      // The rollback plan is a read: its diff is the snapshot against the current offsets.
      const plan = await planRollback(ctx, { connector: snapshot.connector, snapshotId: snapshot.id });
      view.plan = plan;
      view.planId = plans.put(plan, session.id, session.context);
    } catch (err) {
      view.planError = message(err);
    }
    return c.html(snapshotPage(view, await frame(c)));
  });

  app.onError(async (err, c) => {
    const session = c.get('session') as Session | undefined;
    const body = session ? await errorPage(c, 'Error', err) : bare('Error', message(err));
    return c.html(body, isRefusal(err) ? 400 : 500);
  });

  // Helpers bound to this console.

  async function opsContext(c: Context<Env>): Promise<WebContext> {
    const { url, http, kafka } = await deps.contexts.resolve(c.get('session').context);
    return { url, http, store: deps.store, ...(kafka ? { kafka } : {}) };
  }

  async function frame(c: Context<Env>): Promise<Omit<LayoutOptions, 'title' | 'nav'>> {
    const session = c.get('session');
    const names = await deps.contexts.names().catch(() => []);
    return {
      csrf: session.csrf,
      contexts: { current: session.context, options: [{ value: '', label: deps.contexts.initialLabel }, ...names.map((n) => ({ value: n, label: n }))] },
    };
  }

  async function errorPage(c: Context<Env>, title: string, err: unknown): Promise<Html> {
    return layout({ ...(await frame(c)), title, nav: 'none', error: message(err) }, html``);
  }

  async function connectorsView(c: Context<Env>): Promise<ConnectorsView> {
    const ctx = await opsContext(c);
    const filter = c.req.query('q') ?? '';
    const lastRuns = new Map<string, RunRecord>();
    for (const run of await listRuns(ctx, { limit: 1000 })) if (!lastRuns.has(run.connector)) lastRuns.set(run.connector, run);
    try {
      return { connectors: await listConnectorsOf(ctx), lastRuns, filter, clusterUrl: ctx.url };
    } catch (err) {
      return { connectors: [], lastRuns, filter, clusterUrl: ctx.url, loadError: message(err) };
    }
  }

  async function renderChange(c: Context<Env>, name: string, kept: { pasted?: string; mode?: string; resumeAfter?: string; error?: string; position?: PositionChoice }): Promise<Html> {
    const ctx = await opsContext(c);
    const [info, offsets] = await Promise.all([connectorInfo(ctx, name), connectorOffsets(ctx, name)]);
    const base = await frame(c);
    return changePage({
      info, offsets, page: pageParam(c), csrf: c.get('session').csrf, positions: positionSupport(ctx, info),
      ...(kept.pasted !== undefined ? { pasted: kept.pasted } : {}),
      ...(kept.position ? { position: kept.position } : {}),
      ...(kept.resumeAfter ? { resumeAfter: kept.resumeAfter } : {}),
    }, { ...base, ...(kept.error ? { error: kept.error } : {}) });
  }

  return { app, sessions, jobs };
}

function pageParam(c: Context): number {
  return Number.parseInt(c.req.query('page') ?? '1', 10) || 1;
}

function message(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return redactText(`${e.code ? `[${e.code}] ` : ''}${e.message ?? String(err)}`);
}

function bare(title: string, body: string): Html {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} · offsetctl</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;
}
