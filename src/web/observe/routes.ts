// Health, readiness and metrics, for a load balancer and a monitoring system: answered before
// any session check (and, behind a sign-in proxy, from any address), so they work without anyone
// signed in.
// - /healthz: the process is up and serving (nothing else is asked).
// - /readyz: the store answers and every context's Connect worker answers; 503 naming which does
//   not. Only names and ok/unreachable: the reasons (addresses, errors) go to the log.
// - /metrics: Prometheus text, only with the configured bearer token (`metrics: {token-env: VAR}`);
//   without a token it is served only on its own loopback address (`metrics: {listen: ...}`).
import { timingSafeEqual } from 'node:crypto';
import type { Env, Hono } from 'hono';
import type { HttpSender } from '../../http/client.js';
import type { Store } from '../ops-bridge.js';
import type { ConsoleMetrics } from './metrics.js';
import type { ConsoleLog } from './log.js';
import { reqIdOf } from './access.js';

const CHECK_TIMEOUT_MS = 5000;

export interface ReadinessSources {
  store: Store;
  /** Every context the console serves: its name in the answer and how to reach its worker. */
  contexts(): Promise<Array<{ name: string; resolve: () => Promise<{ url: string; http: HttpSender }> }>>;
}

export interface ObserveRoutes {
  metrics: ConsoleMetrics;
  log: ConsoleLog;
  readiness: ReadinessSources;
  /** The bearer token /metrics needs on this listener; absent: /metrics is not served here. */
  metricsToken?: string;
}

// Generic over the console's Env: these routes read no context variables.
export function observeRoutes<E extends Env>(app: Hono<E>, o: ObserveRoutes): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/readyz', async (c) => {
    const checks = await readiness(o.readiness, o.log);
    const ready = checks.store === 'ok' && Object.values(checks.contexts).every((s) => s === 'ok');
    return c.json({ status: ready ? 'ready' : 'not ready', ...checks }, ready ? 200 : 503);
  });

  app.get('/metrics', async (c) => {
    if (!o.metricsToken) return c.text('not found', 404);
    const given = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (!given || !same(given, o.metricsToken)) {
      o.log.warn({ event: 'metrics-refused', reqId: reqIdOf(c) }, 'a /metrics request without the metrics token was refused');
      const challenge = { 'WWW-Authenticate': 'Bearer realm="offsetctl-metrics"' };
      return c.text('the metrics need the bearer token (metrics.token-env in the console\'s config)', 401, challenge);
    }
    return c.body(await o.metrics.text(), 200, { 'Content-Type': o.metrics.contentType });
  });
}

/** The metrics alone, for their own loopback listener (`metrics.listen`). */
export function metricsOnly(app: Hono, metrics: ConsoleMetrics): void {
  app.get('/metrics', async (c) => c.body(await metrics.text(), 200, { 'Content-Type': metrics.contentType }));
  app.all('*', (c) => c.text('not found: this address serves /metrics only', 404));
}

async function readiness(sources: ReadinessSources, log: ConsoleLog): Promise<{ store: string; contexts: Record<string, string> }> {
  const store = within(sources.store.listChangeRequests({ limit: 1 })).then(() => 'ok', (err: unknown) => {
    log.warn({ event: 'not-ready', check: 'store', err: (err as Error).message }, 'readiness: the store does not answer');
    return 'unreachable';
  });
  const contexts = (await sources.contexts()).map(async ({ name, resolve }) => {
    try {
      const { url, http } = await within(resolve());
      const res = await within(http.send({ method: 'GET', url: `${url.split(',')[0]!.replace(/\/$/, '')}/` }));
      if (res.status >= 400) throw new Error(`the worker answered ${res.status}`);
      return [name, 'ok'] as const;
    } catch (err) {
      log.warn({ event: 'not-ready', check: 'context', context: name, err: (err as Error).message }, `readiness: context ${name} does not answer`);
      return [name, 'unreachable'] as const;
    }
  });
  return { store: await store, contexts: Object.fromEntries(await Promise.all(contexts)) };
}

function within<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS / 1000} s`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
