// Which server an operation is sent to: a caller's override wins, else the OpenAPI servers
// (operation, then path item, then root; an empty list counts as none), first entry, variables
// set to their defaults.

import { ArazzoError } from '../errors.js';
import { isRecord, type OpenApiOperation, type OpenApiSource } from './openapi-source.js';

export interface ServerOverrides {
  /** `--server <url>`: every source. */
  all?: string;
  /** `--server <name>=<url>`: one source; wins over `all`. */
  byName?: Record<string, string>;
}

/** The base URL for an operation, without a trailing slash (the path template starts with one). */
export function selectServer(source: OpenApiSource, operation: OpenApiOperation, overrides: ServerOverrides = {}): string {
  const forced = overrides.byName?.[source.name] ?? overrides.all;
  if (forced !== undefined) return trimSlash(checkAbsolute(forced, source));
  const declared = firstServer(operation.operation) ?? firstServer(operation.pathItem) ?? firstServer(source.doc.value);
  // No servers (or an empty list) means one server with url `/` (OpenAPI 3.0-3.2): the host the
  // description was served from, which only a remote description has.
  if (!declared && /^https?:/i.test(source.location)) return trimSlash(new URL('/', source.location).href);
  if (!declared) {
    throw new ArazzoError('E_REQUEST', `source "${source.name}" (${source.location}) declares no servers; set a server for it`, { hint: { kind: 'set-server', source: source.name } });
  }
  const url = substituteVariables(declared, source);
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return trimSlash(url);
  // A relative server URL is relative to where the description was served from (its retrieval
  // URL, never its 3.2 `$self`), which only means something for a remote source.
  if (/^https?:/i.test(source.location)) return trimSlash(new URL(url, source.location).href);
  throw new ArazzoError(
    'E_REQUEST',
    `source "${source.name}" has the relative server URL "${url}" and was loaded from a local file, so there is no host to resolve it against; set a server for it`,
    { hint: { kind: 'set-server', source: source.name } },
  );
}

function firstServer(holder: unknown): Record<string, unknown> | undefined {
  if (!isRecord(holder) || !Array.isArray(holder['servers'])) return undefined;
  const first: unknown = holder['servers'][0];
  return isRecord(first) && typeof first['url'] === 'string' ? first : undefined;
}

function substituteVariables(server: Record<string, unknown>, source: OpenApiSource): string {
  const variables = isRecord(server['variables']) ? server['variables'] : {};
  return String(server['url']).replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const variable = variables[name];
    if (isRecord(variable) && variable['default'] !== undefined) return String(variable['default']);
    throw new ArazzoError('E_REQUEST', `source "${source.name}": server variable "${name}" in "${String(server['url'])}" has no default; add one to the description or set a server for the source`, { hint: { kind: 'set-server', source: source.name } });
  });
}

function checkAbsolute(url: string, source: OpenApiSource): string {
  try {
    new URL(url);
    return url;
  } catch {
    throw new ArazzoError('E_REQUEST', `the server "${url}" set for source "${source.name}" is not an absolute URL; write e.g. http://localhost:8083`, { hint: { kind: 'set-server', source: source.name } });
  }
}

function trimSlash(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url;
}
