// The console's context lives in the address: /ctx/<context>/connectors/orders, /ctx/<context>/runs/<id>.
// A link shared with a colleague opens in the context it was copied from, whatever the colleague
// last chose. Routes are written without the prefix (app.ts strips it before routing, and takes the
// context from it); every page a context renders gets its links prefixed here, in one place, so the
// pages keep building plain paths. The session's context is only the last choice of the switcher:
// it decides where an old, context-less address (a bookmark from before) leads.

export const CONTEXT_PREFIX = '/ctx/';

/** The starting connection's segment when it has no name (a login-link console started with --url). */
export const UNNAMED_SEGMENT = '-';

/** `/ctx/prod/runs/x` → { segment: 'prod', rest: '/runs/x' }; a path without the prefix: no segment. */
export function splitContextPath(pathname: string): { segment?: string; rest: string } {
  if (!pathname.startsWith(CONTEXT_PREFIX)) return { rest: pathname };
  const end = pathname.indexOf('/', CONTEXT_PREFIX.length);
  const raw = end < 0 ? pathname.slice(CONTEXT_PREFIX.length) : pathname.slice(CONTEXT_PREFIX.length, end);
  let segment: string;
  try {
    segment = decodeURIComponent(raw);
  } catch {
    segment = raw;
  }
  const rest = end < 0 ? '/' : pathname.slice(end);
  return { segment, rest: rest === '' ? '/' : rest };
}

/** Hono's getPath: routes see the path without /ctx/<context> (the query string is not part of it). */
export function routedPath(request: Request): string {
  const url = request.url;
  const start = url.indexOf('/', url.indexOf('://') + 3);
  const q = url.indexOf('?', start);
  const pathname = start < 0 ? '/' : url.slice(start, q < 0 ? undefined : q);
  return splitContextPath(pathname).rest;
}

export function contextBase(segment: string): string {
  return `${CONTEXT_PREFIX}${encodeURIComponent(segment)}`;
}

/**
 * Paths that are the console's, not a context's: they keep no prefix in links (the stylesheet and
 * scripts, sign-in and sign-out) or need none (the switcher itself, who is signed in).
 */
export function isConsoleWide(path: string): boolean {
  if (path.startsWith('/assets/') || path.startsWith('/auth/') || path.startsWith('/sessions/')) return true;
  return path === '/favicon.ico' || path === '/context' || path === '/sessions';
}

// The attributes our templates put local paths in. Every interpolated value is escaped by the html
// tag (a quote becomes &quot;), so `href="/` can only be an attribute the template itself wrote:
// text from a connector name or a config can never match.
const LOCAL_LINK = /\b(href|action|formaction|hx-get|hx-post|data-events)="\/(?!\/)([^"]*)"/g;

/** Prefixes every local link of a page with its context's base (not assets, sign-in, or links that already name a context). */
export function linksInContext(page: string, base: string): string {
  return page.replace(LOCAL_LINK, (whole, attr: string, path: string) => {
    const local = `/${path}`;
    if (local.startsWith(CONTEXT_PREFIX) || local.startsWith('/assets/') || local.startsWith('/auth/')) return whole;
    return `${attr}="${base}${local}"`;
  });
}

/** A redirect's Location within the console, in the context of the page that answered. */
export function locationInContext(location: string, base: string): string {
  if (!location.startsWith('/') || location.startsWith('//') || location.startsWith(CONTEXT_PREFIX) || isConsoleWide(location.split('?')[0]!)) return location;
  return `${base}${location}`;
}

/**
 * The page the switcher opens in the other context: the same page where it exists there too (a
 * list, a connector by name, a filter), the list it belongs to where the page is about one run,
 * snapshot, job, change request or preview (their ids are one context's: another refuses them).
 * Anything else, and anything that is not a plain local path, is the connectors page.
 */
export function switchTarget(page: string): string {
  if (!/^\/(?![/\\])[\x21-\x7e]*$/.test(page)) return '/connectors';
  const [path = '/', query] = page.split('?', 2) as [string, string | undefined];
  const search = query ? `?${query}` : '';
  const connector = /^\/connectors\/([^/]+)(?:\/(?:change|preview))?$/.exec(path);
  if (connector) return `/connectors/${connector[1]}`;
  if (['/connectors', '/runs', '/snapshots', '/jobs', '/changes', '/audit'].includes(path)) return `${path}${search}`;
  const list = /^\/(runs|snapshots|jobs|changes)\//.exec(path);
  if (list) return `/${list[1]}`;
  return '/connectors';
}
