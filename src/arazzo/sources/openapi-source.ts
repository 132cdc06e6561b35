// One OpenAPI 3.0.x / 3.1.x description: its operations, indexed once, and local `$ref` resolution.

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
}

export interface OpenApiOperation {
  operationId?: string;
  /** Upper-case HTTP method. */
  method: string;
  pathTemplate: string;
  /** JSON pointer of the operation object, e.g. `/paths/~1connectors~1{connector}/get`. */
  pointer: string;
  operation: Record<string, unknown>;
  pathItem: Record<string, unknown>;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function createOpenApiSource(name: string, location: string, doc: LoadedDocument): OpenApiSource {
  const root = doc.value as Record<string, unknown>;
  const version = String(root['openapi']);
  if (!/^3\.[01]\.\d+/.test(version)) {
    throw new ArazzoError('E_SOURCE', `source "${name}" (${location}) is OpenAPI ${version}; only OpenAPI 3.0.x and 3.1.x are supported`, {
      location: { file: location, pointer: '/openapi', ...doc.locate('/openapi') },
    });
  }
  const operations: OpenApiOperation[] = [];
  const paths = isRecord(root['paths']) ? root['paths'] : {};
  for (const [pathTemplate, rawItem] of Object.entries(paths)) {
    let pathItem: Record<string, unknown>;
    try {
      pathItem = resolveRef(root, rawItem, name);
    } catch {
      continue; // an unresolvable path item only matters if a step uses it; resolveOperation says so then
    }
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!isRecord(operation)) continue;
      const entry: OpenApiOperation = {
        method: method.toUpperCase(),
        pathTemplate,
        pointer: `/paths/${escapeToken(pathTemplate)}/${method}`,
        operation,
        pathItem,
      };
      if (typeof operation['operationId'] === 'string') entry.operationId = operation['operationId'];
      operations.push(entry);
    }
  }
  return { name, location, doc, version, operations };
}

/**
 * Follows local `$ref`s (`#/components/...`) until a plain object is reached. References to other
 * files are refused with a clear message: bundle the description first.
 */
export function resolveRef(root: unknown, value: unknown, sourceName: string): Record<string, unknown> {
  let current = value;
  const seen = new Set<string>();
  while (isRecord(current) && typeof current['$ref'] === 'string') {
    const ref = current['$ref'];
    if (!ref.startsWith('#')) {
      throw new ArazzoError('E_SOURCE', `source "${sourceName}": $ref "${ref}" points into another file, which offsetctl does not follow; bundle the OpenAPI description into one file (e.g. redocly bundle)`);
    }
    if (seen.has(ref)) throw new ArazzoError('E_SOURCE', `source "${sourceName}": $ref "${ref}" refers to itself in a loop; fix the description`);
    seen.add(ref);
    const target = followPointer(root, ref.slice(1));
    if (target === undefined) throw new ArazzoError('E_SOURCE', `source "${sourceName}": $ref "${ref}" points at nothing; fix the description`);
    current = target;
  }
  if (!isRecord(current)) throw new ArazzoError('E_SOURCE', `source "${sourceName}": expected an object, found ${JSON.stringify(current)}`);
  return current;
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
