// One middleware around every request: a request id (the caller's X-Request-Id when it is a
// plain token, else a new one; sent back in the answer and on every log line of the request), the
// request counted and timed by route pattern, and one access line in the log.
import { randomBytes } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes, routePath } from 'hono/route';
import type { ConsoleLog } from './log.js';
import type { ConsoleMetrics } from './metrics.js';

const GIVEN_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export function requestId(c: Context): string {
  const given = c.req.header('x-request-id');
  return given && GIVEN_ID.test(given) ? given : randomBytes(8).toString('hex');
}

/** This request's id (set by accessLog), for the log lines of the request. */
export function reqIdOf(c: Context): string | undefined {
  return c.get('reqId' as never) as string | undefined;
}

/** `address`: the client's address as the console believes it (the TCP peer, or what a trusted proxy says). */
export function accessLog(metrics: ConsoleMetrics, log: ConsoleLog, address: (c: Context) => string): MiddlewareHandler {
  return async (c, next) => {
    const started = process.hrtime.bigint();
    const reqId = requestId(c);
    c.set('reqId', reqId);
    try {
      await next();
    } finally {
      c.header('X-Request-Id', reqId);
      const route = routeOf(c);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = c.res.status;
      metrics.requests.inc({ route, method: c.req.method, status: String(status) });
      metrics.latency.observe({ route, method: c.req.method }, seconds);
      const session = c.get('session') as { identity: { user: string } } | undefined;
      // The path only: a query string may carry a login token or an authorization code.
      log.info({
        event: 'access', reqId, method: c.req.method, route, path: new URL(c.req.url).pathname, status, ms: Math.round(seconds * 10_000) / 10,
        ip: address(c), ...(session ? { user: session.identity.user } : {}),
      }, `${c.req.method} ${route} ${status}`);
    }
  };
}

/**
 * The route pattern that answered (`/connectors/:name`), or the one the request was for when a
 * middleware answered first (no session: 403); `unmatched` for a path no route has (no series per
 * stray URL).
 */
function routeOf(c: Context): string {
  try {
    const answered = routePath(c, c.req.routeIndex);
    if (answered !== '*' && answered !== '/*') return answered;
    const aimed = matchedRoutes(c).map((r) => r.path).filter((p) => p !== '*' && p !== '/*').at(-1);
    return aimed ?? 'unmatched';
  } catch {
    return 'unmatched';
  }
}
