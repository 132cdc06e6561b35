// A request URL as undici's dispatcher wants it: origin and path. undici's own `request(url)`
// parses every URL with `new URL`; a step loop sends to the same origin with already-encoded
// paths, so the origin is parsed once and a path that URL parsing would leave unchanged is
// used as it is. Anything unusual (dot segments, characters URL would encode, no path) takes
// the `new URL` route, which gives exactly what undici would have sent.

export interface RequestTarget {
  origin: string;
  path: string;
}

// Characters `new URL` keeps as they are in an http(s) path and query.
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@%/?]*$/;
// Dot segments (also percent-encoded ones) are resolved by URL parsing.
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:[/?]|$)/i;

const origins = new Map<string, string | null>();
const MAX_ORIGINS = 64;

export function splitRequestUrl(url: string): RequestTarget {
  const schemeEnd = url.startsWith('http://') ? 7 : url.startsWith('https://') ? 8 : -1;
  const slash = schemeEnd === -1 ? -1 : url.indexOf('/', schemeEnd);
  if (slash !== -1) {
    const prefix = url.slice(0, slash);
    let origin = origins.get(prefix);
    if (origin === undefined) {
      origin = plainOrigin(prefix);
      if (origins.size < MAX_ORIGINS) origins.set(prefix, origin);
    }
    const path = url.slice(slash);
    // DOT_SEGMENT also looks into the query: a false alarm only costs the slow route.
    if (origin !== null && PLAIN_PATH.test(path) && !path.endsWith('?') && !DOT_SEGMENT.test(path)) return { origin, path };
  }
  return parseTarget(url);
}

/** The origin of `scheme://authority` when URL parsing keeps nothing else of it, else null. */
function plainOrigin(prefix: string): string | null {
  if (/[?#\\\s]/.test(prefix)) return null;
  try {
    const parsed = new URL(prefix);
    return parsed.pathname === '/' && parsed.search === '' && parsed.hash === '' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/** What undici's `request(url)` does with a URL string (same errors too). */
function parseTarget(url: string): RequestTarget {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw Object.assign(new Error('Invalid URL protocol: the URL must start with `http:` or `https:`.'), { code: 'UND_ERR_INVALID_ARG' });
  }
  return { origin: parsed.origin, path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname };
}
