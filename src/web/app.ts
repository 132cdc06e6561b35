// The console's wiring: the security headers, the session check, the CSRF check on every POST and
// the context in the address run before every page, in this order; the pages are route modules
// (routes/*.ts), each handed the same RouteDeps
// (routes/helpers.ts). Every route checks the user's role for the connector it touches
// (roles.ts) before it reads or changes anything, and a change refused for want of a role is
// answered 403 and audited. Pages call only the ops bridge.
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { Access, SignIn, type Identity, type ServiceConfig, type Session, type Sessions } from './auth/index.js';
import { html, type Html } from './html.js';
import { loadAssets } from './assets.js';
import { Jobs } from './jobs.js';
import { isRefusal, type Store } from './ops-bridge.js';
import { PlanStore } from './plans.js';
import { routedPath } from './context-path.js';
import { accessLog, ConsoleMetrics, reqIdOf, consoleLog, observedContexts, observedStore, observeRoutes, type ConsoleLog } from './observe/index.js';
import { Recovery } from './recovery.js';
import { message, type ContextSource, type Env } from './routes/deps.js';
import { routeDeps } from './routes/helpers.js';
import { contextInPath, contextSwitch } from './routes/context.js';
import { connectorRoutes } from './routes/connectors.js';
import { changeOffsetRoutes } from './routes/change.js';
import { jobRoutes } from './routes/jobs.js';
import { runRoutes } from './routes/runs.js';
import { snapshotRoutes } from './routes/snapshots.js';
import { auditRoutes } from './routes/audit.js';
import { changeRoutes } from './routes/changes.js';
import { sessionRoutes } from './routes/sessions.js';

export type { ContextSource } from './routes/deps.js';

export interface ConsoleDeps {
  store: Store;
  contexts: ContextSource;
  /** Served over TLS: the cookie gets `Secure`. */
  secure: boolean;
  /** The console as a service: sign-in and roles (`--config`). Absent: the login link for one person. */
  service?: ServiceConfig;
  /** Who opens the login link (the user who started the console). */
  localIdentity?: Identity;
  /** The console's URL as browsers reach it, known once it listens (for the OpenID redirect URI). */
  publicUrl?: () => string;
  /** Its metrics (made here when absent). */
  metrics?: ConsoleMetrics;
  /** Its log (made here when absent: JSON lines on stdout for a service, warnings on stderr for one person's console). */
  log?: ConsoleLog;
  /** The integration tests' hook before a workflow step (src/cli/test-hooks.ts), handed in by `offsetctl ui`. */
  beforeStep?: (stepId: string, runId: string) => Promise<void>;
}

export interface Console {
  app: Hono<Env>;
  sessions: Sessions;
  jobs: Jobs;
  signIn: SignIn;
  metrics: ConsoleMetrics;
  log: ConsoleLog;
  /** Interrupted runs of consoles found and finished or put back (startConsole starts it). */
  recovery: Recovery;
}

export const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function createConsole(deps: ConsoleDeps): Console {
  const metrics = deps.metrics ?? new ConsoleMetrics();
  const log = deps.log ?? (deps.service ? consoleLog() : consoleLog({ level: 'warn', fd: 2 }));
  deps = { ...deps, store: observedStore(deps.store, metrics, log), contexts: observedContexts(deps.contexts, metrics, log) };
  const signIn = new SignIn({
    store: deps.store, secure: deps.secure, publicUrl: deps.publicUrl ?? (() => ''), metrics, log,
    ...(deps.service ? { service: deps.service } : {}), ...(deps.localIdentity ? { localIdentity: deps.localIdentity } : {}),
  });
  const sessions = signIn.sessions;
  const jobs = new Jobs({
    started: () => metrics.jobsRunning.inc(),
    ended: (job, end) => {
      metrics.jobsRunning.dec();
      metrics.jobsFinished.inc({ status: end.status });
      const run = end.runId ? { runId: end.runId } : {};
      log.info({ event: 'job-ended', job: job.id, title: job.title, user: job.by, status: end.status, ...run }, `${job.title} ${end.status}`);
    },
  }, deps.beforeStep);
  const plans = new PlanStore();
  // A team store: sessions, jobs' state, previews and failed sign-ins are kept there, so replicas behind one load balancer share them.
  const shared = deps.store.consoleState;
  if (shared) {
    sessions.share(shared, (identity) => (signIn.mode === 'link' ? Access.everything() : Access.of(identity.groups, deps.service?.grants ?? [])));
    jobs.share(shared);
    plans.share(shared);
    signIn.share(shared);
  }
  const recovery = new Recovery({ store: deps.store, contexts: deps.contexts, jobs, log });
  // What every route module is handed: the parts above and the helpers bound to them.
  const d = routeDeps({
    store: deps.store, contexts: deps.contexts, signIn, sessions, jobs, plans, recovery, log, ...(deps.service ? { service: deps.service } : {}),
  });
  // Routes see paths without /ctx/<context>: the context middleware below takes it from the address.
  const app = new Hono<Env>({ getPath: routedPath });
  const assets = loadAssets();
  const hsts = deps.secure || deps.service?.publicUrl?.protocol === 'https:';

  app.use('*', accessLog(metrics, log, (c) => signIn.client(c)));

  app.use('*', async (c, next) => {
    await next();
    c.header('Content-Security-Policy', CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cache-Control', 'no-store');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Cross-Origin-Resource-Policy', 'same-origin');
    // Over TLS (or behind a proxy that terminates it for an https public URL), browsers stay on HTTPS.
    if (hsts) c.header('Strict-Transport-Security', 'max-age=31536000');
  });

  // Before any session check: a load balancer and a monitoring system sign in nowhere.
  observeRoutes(app, {
    metrics, log, ...(deps.service?.metrics?.token ? { metricsToken: deps.service.metrics.token } : {}),
    readiness: {
      store: deps.store,
      contexts: async () => [
        { name: deps.contexts.initialName ?? 'default', resolve: () => deps.contexts.resolve('') },
        ...(await deps.contexts.names()).map((name) => ({ name, resolve: () => deps.contexts.resolve(name) })),
      ],
    },
  });

  // The stylesheet is public (the sign-in and sign-out pages use it; it holds nothing of anyone's);
  // every other asset, the scripts included, needs a session.
  app.get('/assets/app.css', (c) => {
    const css = assets.get('app.css');
    return css ? c.body(css.body, 200, { 'Content-Type': css.type }) : c.notFound();
  });

  signIn.routes(app);

  app.use('*', async (c, next) => {
    const session = await signIn.authenticate(c);
    if (session instanceof Response) return session;
    const method = c.req.method;
    if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') return c.text('method not allowed', 405, { Allow: 'GET, POST' });
    c.set('session', session);
    await next();
  });

  app.post('*', bodyLimit({ maxSize: 8 * 1024 * 1024 }), async (c, next) => {
    const form = await c.req.parseBody({ all: true });
    const token = c.req.header('x-csrf-token') ?? form.csrf;
    if (!sessions.checkCsrf(c.get('session'), token)) {
      const who = { reqId: reqIdOf(c), user: c.get('session').identity.user, ip: signIn.client(c) };
      log.warn({ event: 'csrf-refused', ...who, path: new URL(c.req.url).pathname }, 'a POST without a valid CSRF token was refused');
      return c.html(bare('Refused', 'This form has no valid CSRF token: reload the page and try again.'), 403);
    }
    await next();
  });

  // The context is the address's (routes/context.ts): every page below reads it from the request.
  contextInPath(app, d);

  app.post('/auth/logout', (c) => signIn.logout(c, c.get('session')));
  app.post('/auth/logout-everywhere', (c) => signIn.logout(c, c.get('session'), true));

  sessionRoutes(app, d);

  app.get('/assets/:file', (c) => {
    const asset = assets.get(c.req.param('file'));
    if (!asset) return c.notFound();
    return c.body(asset.body, 200, { 'Content-Type': asset.type });
  });

  app.get('/', (c) => c.redirect('/connectors', 303));
  app.get('/favicon.ico', (c) => c.body(null, 204));

  // The pages, in the order they were always registered (a route registered first wins a path both match).
  contextSwitch(app, d);
  connectorRoutes(app, d);
  changeOffsetRoutes(app, d);
  jobRoutes(app, d);
  runRoutes(app, d);
  snapshotRoutes(app, d);
  auditRoutes(app, d);
  changeRoutes(app, d);

  app.onError(async (err, c) => {
    const session = c.get('session') as Session | undefined;
    const body = session ? await d.errorPage(c, 'Error', err) : bare('Error', message(err));
    return c.html(body, isRefusal(err) ? 400 : 500);
  });

  return { app, sessions, jobs, signIn, metrics, log, recovery };
}

function bare(title: string, body: string): Html {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} · offsetctl</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;
}
