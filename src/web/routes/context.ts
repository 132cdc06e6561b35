// The context in the address (/ctx/<context>/…, context-path.ts) and the switcher that changes it.
// The middleware runs after the session and CSRF checks and before every page: each route reads
// the context it acts in from the request, never from the session.
import type { Hono } from 'hono';
import { contextBase, isConsoleWide, linksInContext, locationInContext, splitContextPath, switchTarget } from '../context-path.js';
import { isRefusal, OpsError } from '../ops-bridge.js';
import type { Env, RouteDeps } from './deps.js';

/**
 * The context is the address's. An address without one (a bookmark from before contexts were in
 * addresses) leads to the same page in the context the person last chose with the switcher: that
 * is what the address showed them then. A form posted without one is refused: a change is
 * authorised against the context it names, never an implicit one.
 */
export function contextInPath(app: Hono<Env>, d: RouteDeps): void {
  app.use('*', async (c, next) => {
    const { segment } = splitContextPath(new URL(c.req.url).pathname);
    const path = c.req.path;
    if (segment === undefined) {
      c.set('context', await d.lastChoice(c.get('session')));
      if (isConsoleWide(path)) return next();
      if (c.req.method === 'POST') {
        const why = `${path}: this address names no context (they start with /ctx/<context>/): reload the page and try again`;
        return c.html(await d.errorPage(c, 'Refused', new OpsError('E_USAGE', why)), 400);
      }
      const search = new URL(c.req.url).search;
      return c.redirect(`${contextBase(d.segmentOf(c.get('context')))}${path === '/' ? '/connectors' : path}${search}`, 303);
    }
    const context = await d.contextOfSegment(segment);
    if (context === undefined) {
      c.set('context', await d.lastChoice(c.get('session')));
      const known = [d.segmentOf(''), ...(await d.contexts.names())].map((n) => JSON.stringify(n)).join(', ');
      const why = `context ${JSON.stringify(segment)} is not one of this console's: ${known}`;
      return c.html(await d.errorPage(c, 'No such context', new OpsError('E_USAGE', why)), 404);
    }
    c.set('context', context);
    await next();
    // This page's links and redirects stay in its context.
    const base = contextBase(d.segmentOf(context));
    const location = c.res.headers.get('location');
    if (location) c.res.headers.set('location', locationInContext(location, base));
    if ((c.res.headers.get('content-type') ?? '').startsWith('text/html')) {
      const headers = new Headers(c.res.headers);
      headers.delete('content-length');
      c.res = new Response(linksInContext(await c.res.text(), base), { status: c.res.status, headers });
    }
  });
}

/** The switcher: the same page in the chosen context, which the session remembers for addresses without one. */
export function contextSwitch(app: Hono<Env>, d: RouteDeps): void {
  app.post('/context', async (c) => {
    const form = await c.req.parseBody();
    const given = typeof form.context === 'string' ? form.context : '';
    // The starting context is '' in the forms, and may also be asked for by its own name.
    const name = given !== '' && (given === d.contexts.initialName || given === d.contexts.initialPath) ? '' : given;
    const known = ['', ...(await d.contexts.names())];
    if (!known.includes(name)) return c.html(await d.errorPage(c, 'Connectors', new OpsError('E_CONFIG', `context ${JSON.stringify(name)} not found in the config file`, { field: 'context' })), 400);
    if (!c.get('session').access.may('viewer', d.contextName(name))) return d.forbidden(c, 'viewer', undefined, d.contextName(name));
    try {
      await d.contexts.resolve(name);
    } catch (err) {
      return c.html(await d.errorPage(c, 'Connectors', err), isRefusal(err) ? 400 : 500);
    }
    c.get('session').context = name;
    await d.sessions.save(c.get('session'));
    // The same page in the other context (or the list it belongs to: context-path.ts).
    return c.redirect(`${contextBase(d.segmentOf(name))}${switchTarget(typeof form.page === 'string' ? form.page : '')}`, 303);
  });
}
