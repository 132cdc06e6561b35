// One OpenAPI 3.0.x / 3.1.x / 3.2.x description: its operations, indexed once, and `$ref`
// resolution within the document. 3.2 adds the `query` method, `additionalOperations` (any other
// method, keyed as it is sent) and `$self`, the document's own URI and the base of its relative
// references.

import { pathToFileURL } from 'node:url';
import { ArazzoError } from '../errors.js';
import type { LoadedDocument } from '../document/index.js';

export interface OpenApiSource {
  /** The sourceDescription name. */
  name: string;
  /** Where it was loaded from: absolute path or URL. */
  location: string;
  doc: LoadedDocument;
  /** The document's `openapi` field, e.g. `3.0.3`. */
  version: string;
  operations: readonly OpenApiOperation[];
  /** What a `$ref` is resolved against, and which URIs name this document. */
  refs: RefScope;
}

export interface OpenApiOperation {
  operationId?: string;
  /** The HTTP method as sent: upper-case for the fixed fields, an additionalOperations key as written. */
  method: string;
  pathTemplate: string;
  /** JSON pointer of the operation object, e.g. `/paths/~1connectors~1{connector}/get`. */
  pointer: string;
  operation: Record<string, unknown>;
  pathItem: Record<string, unknown>;
}

/**
 * Base URI of a description's relative references: 3.2's `$self` (resolved against the retrieval
 * URI when relative), else the retrieval URI. A `$ref` whose document part is the base URI or the
 * retrieval URI points into this document.
 */
export interface RefScope {
  base: string;
  self: ReadonlySet<string>;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** OpenAPI 3.2's Path Item also has `query` (the HTTP QUERY method). */
export const HTTP_METHODS_32 = [...HTTP_METHODS, 'query'];

export function isOpenApi32(version: string): boolean {
  return /^3\.2\.\d+/.test(version);
}

export function createOpenApiSource(name: string, location: string, doc: LoadedDocument): OpenApiSource {
  const root = doc.value as Record<string, unknown>;
  const version = String(root['openapi']);
  if (!/^3\.[012]\.\d+/.test(version)) {
    throw new ArazzoError('E_SOURCE', `source "${name}" (${location}) is OpenAPI ${version}; only OpenAPI 3.0.x, 3.1.x and 3.2.x are supported`, {
      location: { file: location, pointer: '/openapi', ...doc.locate('/openapi') },
    });
  }
  const v32 = isOpenApi32(version);
  const refs = refScope(name, location, v32 ? root['$self'] : undefined);
  const operations: OpenApiOperation[] = [];
  const paths = isRecord(root['paths']) ? root['paths'] : {};
  for (const [pathTemplate, rawItem] of Object.entries(paths)) {
    let pathItem: Record<string, unknown>;
    try {
      pathItem = resolveRef(root, rawItem, name, refs);
    } catch {
      continue; // an unresolvable path item only matters if a step uses it; resolveOperation says so then
    }
    const add = (method: string, operation: unknown, pointer: string): void => {
      if (!isRecord(operation)) return;
      const entry: OpenApiOperation = { method, pathTemplate, pointer, operation, pathItem };
      if (typeof operation['operationId'] === 'string') entry.operationId = operation['operationId'];
      operations.push(entry);
    };
    const itemPointer = `/paths/${escapeToken(pathTemplate)}`;
    for (const method of v32 ? HTTP_METHODS_32 : HTTP_METHODS) add(method.toUpperCase(), pathItem[method], `${itemPointer}/${method}`);
    // 3.2: the key is the method "with the same capitalization that is to be sent".
    const additional = v32 && isRecord(pathItem['additionalOperations']) ? pathItem['additionalOperations'] : {};
    for (const [method, operation] of Object.entries(additional)) add(method, operation, `${itemPointer}/additionalOperations/${escapeToken(method)}`);
  }
  return { name, location, doc, version, operations, refs };
}

function refScope(name: string, location: string, self: unknown): RefScope {
  const retrieval = /^https?:/i.test(location) ? location : pathToFileURL(location).href;
  let base = retrieval;
  if (typeof self === 'string' && self !== '') {
    try {
      base = new URL(self, retrieval).href;
    } catch {
      throw new ArazzoError('E_SOURCE', `source "${name}" (${location}): $self "${self}" is not a URI reference; fix the description`);
    }
    if (base.includes('#')) throw new ArazzoError('E_SOURCE', `source "${name}" (${location}): $self "${self}" has a fragment; $self names a whole document, so remove the #...`);
  }
  return { base, self: new Set([base, retrieval]) };
}

/**
 * Follows `$ref`s into this document (`#/components/...`, or a URI whose document part is this
 * document's base or retrieval URI, e.g. its 3.2 `$self`) until a plain object is reached.
 * References to other documents are refused with a clear message: bundle the description first.
 */
export function resolveRef(root: unknown, value: unknown, sourceName: string, scope?: RefScope): Record<string, unknown> {
  let current = value;
  const seen = new Set<string>();
  while (isRecord(current) && typeof current['$ref'] === 'string') {
    const ref = current['$ref'];
    const pointer = localPointer(ref, scope);
    if (pointer === undefined) {
      const target = scope ? ` (${safeResolve(ref, scope.base)})` : '';
      throw new ArazzoError('E_SOURCE', `source "${sourceName}": $ref "${ref}" points into another document${target}, which offsetctl does not follow; bundle the OpenAPI description into one file (e.g. redocly bundle)`);
    }
    if (seen.has(pointer)) throw new ArazzoError('E_SOURCE', `source "${sourceName}": $ref "${ref}" refers to itself in a loop; fix the description`);
    seen.add(pointer);
    const target = followPointer(root, pointer);
    if (target === undefined) throw new ArazzoError('E_SOURCE', `source "${sourceName}": $ref "${ref}" points at nothing; fix the description`);
    current = target;
  }
  if (!isRecord(current)) throw new ArazzoError('E_SOURCE', `source "${sourceName}": expected an object, found ${JSON.stringify(current)}`);
  return current;
}

/** The JSON pointer a `$ref` names in this document, or undefined when it names another one. */
function localPointer(ref: string, scope: RefScope | undefined): string | undefined {
  if (ref.startsWith('#')) return decodeFragment(ref.slice(1));
  if (!scope) return undefined;
  let url: URL;
  try {
    url = new URL(ref, scope.base);
  } catch {
    return undefined;
  }
  const fragment = url.hash.slice(1);
  url.hash = '';
  return scope.self.has(url.href) ? decodeFragment(fragment) : undefined;
}

/** A URI fragment holds the pointer percent-encoded (RFC 6901 §6): `%7Bid%7D` is `{id}`. */
function decodeFragment(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

function safeResolve(ref: string, base: string): string {
  try {
    return new URL(ref, base).href;
  } catch {
    return ref;
  }
}

export function followPointer(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let node = root;
  for (const token of pointer.split('/').slice(1).map(unescapeToken)) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isRecord(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}
