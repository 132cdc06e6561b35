// The console's routes. Every request passes the security headers and the session check; every
// POST passes the CSRF check; every route checks the user's role for the connector it touches
// (roles.ts) before it reads or changes anything, and a change refused for want of a role is
// answered 403 and audited. Pages call only the ops bridge. Refusals (bad input, pre-flight) are
// shown next to the form with the CLI's message and status 400: nothing was sent to the cluster
// but reads. Changes are applied through applyAudited under the signed-in user.
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { HttpSender } from '../http/client.js';
import { redactText } from '../http/redact.js';
import { Access, actorOf, storeActor, SignIn, type Identity, type Role, type ServiceConfig, type Session, type Sessions } from './auth/index.js';
import { auditPage, auditLines, type AuditChainView, type AuditView } from './pages/audit.js';
import { html, layout, type ContextBadge, type Html, type LayoutOptions } from './html.js';
import { loadAssets } from './assets.js';
import { positionOf, str, tableOffsets } from './forms.js';
import { Jobs, type Job } from './jobs.js';
import { streamJob } from './job-stream.js';
import {
  connectorInfo, connectorOffsets, getRun, ofContextCluster, logPositions, planPosition, getSnapshot, isRefusal, listConnectorsOf, listRuns, listSnapshots,
  approvalRule, auditRefusal, clusterRequiresApproval, verifyAuditTrail,
  listAudit, OpsError, requestChange, savePlan, parseOffsetsText, planReset, planResume, planRewind, planRollback, positionSupport, runEvents, runSteps,
  type AuditRecord, type KafkaAccess, type LogPositionsResult, type Plan, type RunRecord, type SnapshotRecord, type Store, type WebContext,
} from './ops-bridge.js';
import { PlanStore } from './plans.js';
import { contextBase, isConsoleWide, linksInContext, locationInContext, routedPath, splitContextPath, switchTarget, UNNAMED_SEGMENT } from './context-path.js';
import { accessLog, ConsoleMetrics, reqIdOf, consoleLog, observedContexts, observedStore, observeRoutes, type ConsoleLog } from './observe/index.js';
import { changeRoutes } from './changes-routes.js';
import { changePage, type PositionChoice } from './pages/change.js';
import { connectorPage, shownSinkPartitions } from './pages/connector.js';
import { connectorsPage, connectorsTable, type ConnectorsView } from './pages/connectors.js';
import { runPage, runsPage, snapshotPage, snapshotsPage } from './pages/history.js';
import { jobPage, jobsPage } from './pages/job.js';
import { previewPage } from './pages/preview.js';
import { sessionRoutes } from './session-routes.js';
import { Recovery } from './recovery.js';

export interface ContextSource {
  /** How the context the console started with is shown ('' in forms). */
  initialLabel: string;
  /** Its name in the roles (a service's default context); absent: unnamed (the login-link console, where roles do not apply). */
  initialName?: string;
  /** Its name in addresses (/ctx/<name>/…) when it is not initialName: the login-link console's --context. Neither: `-`. */
  initialPath?: string;
  /** Other contexts from the config file. */
  names(): Promise<string[]>;
  /**
   * '' is the starting connection. Throws OpsError (E_CONFIG) for an unusable context. `kafka`:
   * the context's Kafka access (log positions, sink positions); absent means none configured.
   */
  resolve(name: string): Promise<{ url: string; http: HttpSender; kafka?: KafkaAccess; approval?: 'required'; production?: true; profile?: WebContext['profile'] }>;
}

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

/** `context`: the one in the address ('' the starting one; context-path.ts). */
type Env = { Variables: { session: Session; context: string } };

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
  /** Per context: whether a team policy requires approval on its cluster, and when that was looked up (the header's badge). */
  const policyChecks = new Map<string, { at: number; requires: boolean }>();
  // A team store: sessions, jobs' state, previews and failed sign-ins are kept there, so replicas behind one load balancer share them.
  const shared = deps.store.consoleState;
  if (shared) {
    sessions.share(shared, (identity) => (signIn.mode === 'link' ? Access.everything() : Access.of(identity.groups, deps.service?.grants ?? [])));
    jobs.share(shared);
    plans.share(shared);
    signIn.share(shared);
  }
  const recovery = new Recovery({ store: deps.store, contexts: deps.contexts, jobs, log });
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

  // The context is the address's (context-path.ts). An address without one (a bookmark from before
  // contexts were in addresses) leads to the same page in the context the person last chose with
  // the switcher: that is what the address showed them then. A form posted without one is refused:
  // a change is authorised against the context it names, never an implicit one.
  app.use('*', async (c, next) => {
    const { segment } = splitContextPath(new URL(c.req.url).pathname);
    const path = c.req.path;
    if (segment === undefined) {
      c.set('context', await lastChoice(c.get('session')));
      if (isConsoleWide(path)) return next();
      if (c.req.method === 'POST') {
        const why = `${path}: this address names no context (they start with /ctx/<context>/): reload the page and try again`;
        return c.html(await errorPage(c, 'Refused', new OpsError('E_USAGE', why)), 400);
      }
      const search = new URL(c.req.url).search;
      return c.redirect(`${contextBase(segmentOf(c.get('context')))}${path === '/' ? '/connectors' : path}${search}`, 303);
    }
    const context = await contextOfSegment(segment);
    if (context === undefined) {
      c.set('context', await lastChoice(c.get('session')));
      const known = [segmentOf(''), ...(await deps.contexts.names())].map((n) => JSON.stringify(n)).join(', ');
      const why = `context ${JSON.stringify(segment)} is not one of this console's: ${known}`;
      return c.html(await errorPage(c, 'No such context', new OpsError('E_USAGE', why)), 404);
    }
    c.set('context', context);
    await next();
    // This page's links and redirects stay in its context.
    const base = contextBase(segmentOf(context));
    const location = c.res.headers.get('location');
    if (location) c.res.headers.set('location', locationInContext(location, base));
    if ((c.res.headers.get('content-type') ?? '').startsWith('text/html')) {
      const headers = new Headers(c.res.headers);
      headers.delete('content-length');
      c.res = new Response(linksInContext(await c.res.text(), base), { status: c.res.status, headers });
    }
  });

  app.post('/auth/logout', (c) => signIn.logout(c, c.get('session')));
  app.post('/auth/logout-everywhere', (c) => signIn.logout(c, c.get('session'), true));

  sessionRoutes(app, { sessions, store: deps.store, log, frame, refuseChange, client: (c) => signIn.client(c) });

  app.get('/assets/:file', (c) => {
    const asset = assets.get(c.req.param('file'));
    if (!asset) return c.notFound();
    return c.body(asset.body, 200, { 'Content-Type': asset.type });
  });

  app.get('/', (c) => c.redirect('/connectors', 303));
  app.get('/favicon.ico', (c) => c.body(null, 204));

  app.post('/context', async (c) => {
    const form = await c.req.parseBody();
    const given = typeof form.context === 'string' ? form.context : '';
    // The starting context is '' in the forms, and may also be asked for by its own name.
    const name = given !== '' && (given === deps.contexts.initialName || given === deps.contexts.initialPath) ? '' : given;
    const known = ['', ...(await deps.contexts.names())];
    if (!known.includes(name)) return c.html(await errorPage(c, 'Connectors', new OpsError('E_CONFIG', `context ${JSON.stringify(name)} not found in the config file`, { field: 'context' })), 400);
    if (!c.get('session').access.may('viewer', contextName(name))) return forbidden(c, 'viewer', undefined, contextName(name));
    try {
      await deps.contexts.resolve(name);
    } catch (err) {
      return c.html(await errorPage(c, 'Connectors', err), isRefusal(err) ? 400 : 500);
    }
    c.get('session').context = name;
    await sessions.save(c.get('session'));
    // The same page in the other context (or the list it belongs to: context-path.ts).
    return c.redirect(`${contextBase(segmentOf(name))}${switchTarget(typeof form.page === 'string' ? form.page : '')}`, 303);
  });

  app.get('/connectors', async (c) => c.html(connectorsPage(await connectorsView(c), await frame(c))));
  app.get('/connectors/table', async (c) => c.html(connectorsTable(await connectorsView(c))));

  app.get('/connectors/:name', async (c) => {
    const name = c.req.param('name');
    if (!allowed(c, 'viewer', name)) return forbidden(c, 'viewer', name);
    const ctx = await opsContext(c);
    try {
      const [info, offsets, runs, snapshots] = await Promise.all([
        connectorInfo(ctx, name), connectorOffsets(ctx, name), listRuns(ctx, { connector: name, limit: 5 }), listSnapshots(ctx, { connector: name }),
      ]);
      const page = pageParam(c);
      // Only the partitions of the shown page are asked about (a 1,000-partition sink stays fast).
      let log: LogPositionsResult | undefined;
      if (info.type === 'sink') log = await logPositions(ctx, info, shownSinkPartitions(offsets, page));
      return c.html(connectorPage({ info, offsets, page, ...(log ? { log } : {}), runs, snapshots, canChange: allowed(c, 'operator', name) }, await frame(c)));
    } catch (err) {
      return c.html(await errorPage(c, `Connector ${name}`, err), isRefusal(err) ? 404 : 502);
    }
  });

  app.get('/connectors/:name/change', async (c) => {
    const name = c.req.param('name');
    if (!allowed(c, 'operator', name)) return forbidden(c, 'operator', name);
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
    if (!allowed(c, 'operator', name)) return refuseChange(c, mode === 'reset' ? 'reset' : 'rewind', name);
    const resumeAfter = str(form.resumeAfter) || 'auto';
    const ctx = await opsContext(c);
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
      return c.html(previewPage(plan, id, session.csrf, await frame(c), undefined, await approvalRequired(c, plan)));
    } catch (err) {
      if (!isRefusal(err)) throw err;
      await audit(c, { action: mode === 'reset' ? 'reset' : 'rewind', connector: name }, err);
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
    // No operator grant in this context at all: refused before the plan is even looked up.
    // The audit names the plan's connector; the answer does not (the plan is someone else's).
    if (!allowed(c, 'operator')) return refuseChange(c, 'apply', await plans.connectorOf(c.req.param('id')), false);
    const held = await plans.get(c.req.param('id'), session.id);
    const gone = new OpsError('E_PREFLIGHT', 'this preview expired or was already applied: preview again');
    if (!held) {
      // Someone else's plan id: the same answer (nothing says it exists), but an entry in the audit.
      const others = await plans.connectorOf(c.req.param('id'));
      if (others !== undefined) {
        const why = `${session.identity.user} tried to apply a plan previewed in another session (${c.req.param('id')}); refused, nothing changed`;
        const probe = Object.assign(new Error(why), { code: 'E_FORBIDDEN' });
        log.warn({ event: 'forbidden', reqId: reqIdOf(c), user: session.identity.user, ip: signIn.client(c), action: 'apply', connector: others }, why);
        await audit(c, { action: 'apply', connector: others }, probe);
      }
      return c.html(await errorPage(c, 'Apply', gone), 400);
    }
    const form = await c.req.parseBody();
    const typed = str(form.confirm).trim();
    if (typed !== held.plan.connector) {
      const why = typed === ''
        ? `type the connector's name, ${held.plan.connector}, to confirm`
        : `you typed ${JSON.stringify(typed)}, not the connector's name ${JSON.stringify(held.plan.connector)}`;
      return c.html(previewPage(held.plan, c.req.param('id'), session.csrf, await frame(c), why, await approvalRequired(c, held.plan)), 400);
    }
    // A preview is one context's: applied under another context's address, it is refused.
    if (held.context !== c.get('context')) {
      const why = `this preview was made in another context than ${contextName(c.get('context')) || 'this one'}: preview again here`;
      return c.html(await errorPage(c, 'Apply', new OpsError('E_PREFLIGHT', why)), 400);
    }
    // The grant may have been for another connector than the one this plan changes.
    if (!allowed(c, 'operator', held.plan.connector)) return refuseChange(c, held.plan.operation, held.plan.connector);
    // Taken once: a second click, or the same plan confirmed through another replica meanwhile, finds it gone.
    if (!(await plans.take(c.req.param('id')))) return c.html(await errorPage(c, 'Apply', gone), 400);
    const ctx = await opsContext(c);
    if (await approvalRequired(c, held.plan)) {
      // Four-eyes: the previewed plan becomes a change request someone else approves; nothing changes now.
      const scope = auditScope(c, 'operator');
      const request = await requestChange(ctx, savePlan([held.plan], { plannedBy: scope.actor }), {
        actor: storeActor(session.identity), audit: scope, ...(scope.context ? { contextName: scope.context } : {}),
      });
      if (request.auditWarning) log.error({ event: 'audit-failed', action: 'change-request', user: session.identity.user }, request.auditWarning);
      return c.redirect(`/changes/${encodeURIComponent(request.id)}`, 303);
    }
    const job = jobs.start(ctx, held.plan, auditScope(c, 'operator'));
    return c.redirect(`/jobs/${job.id}`, 303);
  });

  app.get('/jobs', async (c) => {
    const here = await jobHere(c);
    const shown = (await jobs.all()).filter((job) => here(job) && job.connectors.every((name) => allowed(c, 'viewer', name)));
    return c.html(jobsPage(shown, await frame(c)));
  });

  app.get('/jobs/:id', async (c) => {
    const job = await jobs.find(c.req.param('id'));
    if (job && !(await jobHere(c))(job)) return notHere(c, 'Run', `job ${job.id}`);
    if (!job) return c.html(await errorPage(c, 'Run', new OpsError('E_USAGE', 'no such job in this console (jobs live as long as the console; see Runs for the history)')), 404);
    const hidden = job.connectors.find((name) => !allowed(c, 'viewer', name));
    if (hidden !== undefined) return forbidden(c, 'viewer', hidden);
    return c.html(jobPage(job, await frame(c)));
  });

  app.get('/jobs/:id/events', async (c) => {
    const job = jobs.get(c.req.param('id'));
    if (!job || !(await jobHere(c))(job)) return c.text('no such job in this context', 404);
    if (!job.connectors.every((name) => allowed(c, 'viewer', name))) return c.text('forbidden', 403);
    return streamJob(c, job);
  });

  app.get('/runs', async (c) => {
    const ctx = await opsContext(c);
    const connector = c.req.query('connector') || undefined;
    const runs = (await listRuns(ctx, connector ? { connector } : {})).filter((r) => allowed(c, 'viewer', r.connector));
    return c.html(runsPage(runs, connector, await frame(c)));
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
    if (!(await ofContextCluster(ctx))(run)) return notHere(c, `Run ${id}`, `run ${id}`);
    if (!allowed(c, 'viewer', run.connector)) return forbidden(c, 'viewer', run.connector);
    const [steps, events] = await Promise.all([runSteps(ctx, id), runEvents(ctx, id)]);
    return c.html(runPage(run, steps, events, c.get('session').csrf, await frame(c)));
  });

  app.post('/runs/:id/resume', async (c) => {
    const ctx = await opsContext(c);
    const session = c.get('session');
    let connector: string | undefined;
    try {
      const run = await getRun(ctx, c.req.param('id'));
      if (!(await ofContextCluster(ctx))(run)) {
        const why = `run ${run.id} is not of context ${contextName(c.get('context')) || 'this context'}: refused, nothing changed`;
        await audit(c, { action: 'resume', connector: run.connector }, new OpsError('E_USAGE', why));
        return notHere(c, `Run ${run.id}`, `run ${run.id}`);
      }
      connector = run.connector;
    } catch {
      // An unknown id: planResume below refuses it with the store's message.
    }
    if (!allowed(c, 'operator', connector)) return refuseChange(c, 'resume', connector);
    try {
      const plan = await planResume(ctx, { runId: c.req.param('id') });
      const id = await plans.put(plan, session.id, c.get('context'));
      return c.html(previewPage(plan, id, session.csrf, await frame(c), undefined, await approvalRequired(c, plan)));
    } catch (err) {
      if (isRefusal(err)) await audit(c, { action: 'resume', ...(connector ? { connector } : {}) }, err);
      return c.html(await errorPage(c, `Run ${c.req.param('id')}`, err), isRefusal(err) ? 400 : 502);
    }
  });

  app.get('/snapshots', async (c) => {
    const ctx = await opsContext(c);
    const connector = c.req.query('connector') || undefined;
    return c.html(snapshotsPage((await listSnapshots(ctx, connector ? { connector } : {})).filter((s) => allowed(c, 'viewer', s.connector)), connector, await frame(c)));
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
    if (!(await ofContextCluster(ctx))(snapshot)) return notHere(c, `Snapshot ${id}`, `snapshot ${id}`);
    if (!allowed(c, 'viewer', snapshot.connector)) return forbidden(c, 'viewer', snapshot.connector);
    const view: Parameters<typeof snapshotPage>[0] = { snapshot, page: pageParam(c), csrf: session.csrf };
    if (!allowed(c, 'operator', snapshot.connector)) {
      view.planError = `your role (${session.access.describe()}) may not roll back ${snapshot.connector}`;
      return c.html(snapshotPage(view, await frame(c)));
    }
    try {
      // The rollback plan is a read: its diff is the snapshot against the current offsets.
      const plan = await planRollback(ctx, { connector: snapshot.connector, snapshotId: snapshot.id, profile: await ctx.profile?.(snapshot.connector) ?? {} });
      view.plan = plan;
      view.planId = await plans.put(plan, session.id, c.get('context'));
    } catch (err) {
      view.planError = message(err);
    }
    return c.html(snapshotPage(view, await frame(c)));
  });

  app.get('/audit', async (c) => c.html(auditPage(await auditView(c), await frame(c))));

  // JSON lines, oldest first: the same export as `offsetctl audit -o json`.
  app.get('/audit/export', async (c) => {
    const view = await auditView(c);
    return c.body(auditLines(view.entries), 200, { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Content-Disposition': 'attachment; filename="offsetctl-audit.jsonl"' });
  });

  changeRoutes(app, {
    store: deps.store, jobs, opsContext, frame, errorPage, refuseChange,
    mayIn: (c, need, context, connector) => c.get('session').access.may(need, context, connector),
    sessionContext: (c) => contextName(c.get('context')),
    ofThisContext: async (c) => {
      const cluster = await ofContextCluster(await opsContext(c));
      const here = contextName(c.get('context'));
      return (r) => (r.contextName !== undefined ? r.contextName === here : cluster(r));
    },
    actor: (c, role) => actorOf(c.get('session').identity, role),
  });

  app.onError(async (err, c) => {
    const session = c.get('session') as Session | undefined;
    const body = session ? await errorPage(c, 'Error', err) : bare('Error', message(err));
    return c.html(body, isRefusal(err) ? 400 : 500);
  });

  // Helpers bound to this console.

  /**
   * The selected context has `approval: required`, or the team store's policy covers the plan
   * (ops/audit/policy.ts): a confirmed change becomes a change request.
   */
  async function approvalRequired(c: Context<Env>, plan?: Plan): Promise<boolean> {
    if ((await deps.contexts.resolve(c.get('context'))).approval === 'required') return true;
    if (plan === undefined || plan.runId !== undefined) return false;
    return (await approvalRule(deps.store, { clusterKey: plan.clusterKey, connector: plan.connector, action: plan.operation })) !== undefined;
  }

  /** A context's segment in addresses: its name; the starting one's name, else `-` (a login link's --url). */
  function segmentOf(context: string): string {
    return context || deps.contexts.initialPath || deps.contexts.initialName || UNNAMED_SEGMENT;
  }

  /** The context an address's segment names ('' the starting one), undefined for none of this console's. */
  async function contextOfSegment(segment: string): Promise<string | undefined> {
    if (segment === segmentOf('')) return '';
    return (await deps.contexts.names()).includes(segment) ? segment : undefined;
  }

  /** The switcher's last choice, while the console still has that context. */
  async function lastChoice(session: Session): Promise<string> {
    return session.context === '' || (await deps.contexts.names().catch((): string[] => [])).includes(session.context) ? session.context : '';
  }

  /** The context's name in the roles: the address's, '' being the console's starting one. */
  function contextName(selected: string): string {
    return selected || deps.contexts.initialName || '';
  }

  /** The user's role suffices for this connector (none named: for some connector) in the selected context. */
  function allowed(c: Context<Env>, need: Role, connector?: string): boolean {
    return c.get('session').access.may(need, contextName(c.get('context')), connector);
  }

  /** A job is the context's it was started in (one of an older console, which did not say: its cluster URL's). */
  async function jobHere(c: Context<Env>): Promise<(job: Job) => boolean> {
    const here = contextName(c.get('context'));
    const url = (await opsContext(c)).url;
    return (job) => (job.context !== undefined || here === '' ? (job.context ?? '') === here : job.clusterUrl === url);
  }

  /** An id of another context's cluster in this context's address: refused as if it did not exist (nothing of it shown). */
  async function notHere(c: Context<Env>, title: string, what: string): Promise<Response> {
    const where = contextName(c.get('context')) || 'this context';
    return c.html(await errorPage(c, title, new OpsError('E_PREFLIGHT', `no ${what} in context ${where}: it is not of this context's cluster`)), 404);
  }

  async function forbidden(c: Context<Env>, need: Role, connector?: string, context?: string): Promise<Response> {
    const session = c.get('session');
    const where = context ?? contextName(c.get('context'));
    const what = connector ? `${connector} on ${where || 'this context'}` : (where || 'this context');
    const why = `${session.identity.user} may not ${need === 'viewer' ? 'see' : 'change'} ${what}: your role is ${session.access.describe()}`;
    return c.html(layout({ ...(await frame(c)), title: 'Forbidden', nav: 'none', error: why }, html``), 403);
  }

  /** A change the user's role does not allow: 403, nothing read or changed, and the attempt in the audit. */
  async function refuseChange(c: Context<Env>, action: string, connector: string | undefined, named = true): Promise<Response> {
    const session = c.get('session');
    const where = contextName(c.get('context'));
    const err = Object.assign(new Error(`${session.identity.user} may not ${action} ${(named && connector) || 'connectors'} on ${where || 'this context'}: the role is ${session.access.describe()}`), { code: 'E_FORBIDDEN' });
    const about = { action, ...(connector ? { connector } : {}), context: where };
    log.warn({ event: 'forbidden', reqId: reqIdOf(c), user: session.identity.user, ip: signIn.client(c), ...about }, err.message);
    await audit(c, { action, ...(connector ? { connector } : {}) }, err);
    return forbidden(c, 'operator', named ? connector : undefined);
  }

  function auditScope(c: Context<Env>, role?: string): { actor: ReturnType<typeof actorOf>; context?: string } {
    const session = c.get('session');
    const where = contextName(c.get('context'));
    return { actor: actorOf(session.identity, role), ...(where ? { context: where } : {}) };
  }

  async function audit(c: Context<Env>, what: { action: string; connector?: string }, err: unknown): Promise<void> {
    let url: string | undefined;
    try {
      url = (await deps.contexts.resolve(c.get('context'))).url;
    } catch {
      // The context cannot be resolved: the entry still says who tried what.
    }
    await auditRefusal({ store: deps.store, ...(url ? { url } : {}) }, auditScope(c), what, err).catch((e: unknown) => {
      log.error({ event: 'audit-failed', action: what.action, err: (e as Error).message }, `could not write the audit entry for a refused ${what.action}`);
    });
  }

  async function auditView(c: Context<Env>): Promise<AuditView> {
    const ctx = await opsContext(c);
    const connector = c.req.query('connector') || undefined;
    const sinceText = c.req.query('since') || '';
    const since = sinceText ? new Date(sinceText) : undefined;
    if (since && Number.isNaN(since.getTime())) {
      return { entries: [], ...(connector ? { connector } : {}), since: sinceText, error: `since: not a time (${JSON.stringify(sinceText)}); use a date and time such as 2026-11-30T09:00Z` };
    }
    const session = c.get('session');
    const admin = session.access.mayAll('admin', contextName(c.get('context')));
    // An admin sees the whole trail; others the entries of this context's cluster about connectors
    // they may see here, and their own entries about no connector (signing in and out).
    const all: AuditRecord[] = await listAudit(ctx, { ...(connector ? { connector } : {}), ...(since ? { since } : {}), limit: 1000 }, { thisCluster: !admin });
    const entries = admin ? all : all.filter((e) => (e.connector ? allowed(c, 'viewer', e.connector) : e.actor.user === session.identity.user));
    return { entries, ...(connector ? { connector } : {}), since: sinceText, chain: await auditChain() };
  }

  /** The whole trail's chain, as `offsetctl audit verify` walks it (every entry, whoever may see it: a verdict, one id). */
  async function auditChain(): Promise<AuditChainView> {
    try {
      const r = await verifyAuditTrail(deps.store);
      return { ok: r.ok, entries: r.entries, ...(r.head ? { head: r.head } : {}), ...(r.firstBroken ? { firstBroken: { id: r.firstBroken.id, message: r.firstBroken.message } } : {}) };
    } catch (err) {
      return { ok: false, entries: 0, error: (err as Error).message };
    }
  }

  async function opsContext(c: Context<Env>): Promise<WebContext> {
    const { url, http, kafka, profile } = await deps.contexts.resolve(c.get('context'));
    return { url, http, store: deps.store, ...(kafka ? { kafka } : {}), ...(profile ? { profile } : {}) };
  }

  async function frame(c: Context<Env>): Promise<Omit<LayoutOptions, 'title' | 'nav'>> {
    const session = c.get('session');
    const names = await deps.contexts.names().catch(() => []);
    const banner = recovery.banner();
    return {
      ...(banner.length > 0 ? { banner } : {}),
      csrf: session.csrf,
      user: {
        name: session.identity.user, role: session.access.highest() ?? '', signOut: signIn.mode !== 'proxy', signOutEverywhere: signIn.mode === 'oidc',
        admin: signIn.mode !== 'link' && session.access.consoleAdmin(),
      },
      contexts: {
        current: c.get('context'),
        page: `${c.req.path}${new URL(c.req.url).search}`,
        options: await Promise.all([{ value: '', label: deps.contexts.initialLabel }, ...names.map((n) => ({ value: n, label: n }))].map(badged)),
        badges: await contextBadges(session.context),
      },
    };
  }

  /**
   * The header's badges for a context, on every page: production (`production: true` in its
   * config), approval required (its config, or a team policy on its cluster). The policy is looked
   * up at most every 30 s per context (a GET / to its worker and a store read); a context that
   * cannot be reached shows what its config says.
   */
  async function contextBadges(name: string): Promise<ContextBadge[]> {
    const resolved = await deps.contexts.resolve(name).catch(() => undefined);
    if (!resolved) return [];
    const badges: ContextBadge[] = [];
    if (resolved.production) badges.push({ kind: 'production', why: 'This context is a production cluster (production: true in its config)' });
    if (resolved.approval === 'required') {
      badges.push({ kind: 'approval', why: 'Changes here become change requests someone else approves (approval: required)' });
    } else if (await policyRequiresApproval(name, resolved)) {
      badges.push({ kind: 'approval', why: 'A team policy requires approval for changes on this cluster' });
    }
    return badges;
  }

  async function policyRequiresApproval(name: string, resolved: { url: string; http: HttpSender }): Promise<boolean> {
    const known = policyChecks.get(name);
    if (known && known.at > Date.now() - 30_000) return known.requires;
    const requires = await clusterRequiresApproval({ url: resolved.url, http: resolved.http, store: deps.store }).catch(() => known?.requires ?? false);
    policyChecks.set(name, { at: Date.now(), requires });
    return requires;
  }

  /** A service's context that is production, or requires approval, says so in the switcher (its contexts are resolved at start: no cost). */
  async function badged(o: { value: string; label: string }): Promise<{ value: string; label: string }> {
    if (!deps.service) return o;
    const flags = await deps.contexts.resolve(o.value).catch(() => undefined);
    const marks = [...(flags?.production ? ['production'] : []), ...(flags?.approval === 'required' ? ['approval required'] : [])];
    return marks.length > 0 ? { ...o, label: `${o.label} · ${marks.join(' · ')}` } : o;
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
      const connectors = (await listConnectorsOf(ctx)).filter((s) => allowed(c, 'viewer', s.name));
      return { connectors, lastRuns, filter, clusterUrl: ctx.url };
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

  return { app, sessions, jobs, signIn, metrics, log, recovery };
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
