// From a step's operationId / operationPath to the OpenAPI operation it calls.

import { OPERATION_PATH } from '../document/index.js';
import { ArazzoError } from '../errors.js';
import { HTTP_METHODS, HTTP_METHODS_32, escapeToken, followPointer, isOpenApi32, isRecord, resolveRef, unescapeToken, type OpenApiOperation, type OpenApiSource, type RefScope } from './openapi-source.js';

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'querystring' | 'header' | 'cookie';
  required: boolean;
  style?: string;
  explode?: boolean;
  allowReserved?: boolean;
  schema?: unknown;
  content?: Record<string, unknown>;
}

export interface ResolvedOperation {
  sourceName: string;
  operationId?: string;
  /** Upper-case. */
  method: string;
  pathTemplate: string;
  serverUrl: string;
  /** Path-item and operation parameters merged (the operation's win), `$ref`s resolved. */
  parameters: OpenApiParameter[];
  requestBody?: { required: boolean; contentTypes: string[] };
  responses: Record<string, unknown>;
  operation: Record<string, unknown>;
}

export interface OperationTarget {
  operationId?: string;
  operationPath?: string;
}

/** The operation a step names, among the OpenAPI sources of one document. Throws E_OPERATION. */
export function findOperation(sources: ReadonlyMap<string, OpenApiSource>, step: OperationTarget): { source: OpenApiSource; operation: OpenApiOperation } {
  if (step.operationPath !== undefined) return findByPath(sources, step.operationPath);
  if (step.operationId !== undefined) return findById(sources, step.operationId);
  throw new ArazzoError('E_OPERATION', 'the step names neither operationId nor operationPath');
}

function findById(sources: ReadonlyMap<string, OpenApiSource>, operationId: string): { source: OpenApiSource; operation: OpenApiOperation } {
  const qualified = /^\$sourceDescriptions\.([^.]+)\.(.+)$/.exec(operationId);
  if (qualified) {
    const sourceName = qualified[1] as string;
    const id = qualified[2] as string;
    const source = sources.get(sourceName);
    if (!source) {
      throw new ArazzoError('E_OPERATION', `operationId "${operationId}" names source "${sourceName}", which is not an OpenAPI source of this document (${[...sources.keys()].join(', ') || 'none'})`);
    }
    const matches = source.operations.filter((op) => op.operationId === id);
    if (matches.length === 0) throw notFound(id, [source]);
    if (matches.length > 1) throw duplicateInSource(id, source, matches);
    return { source, operation: matches[0] as OpenApiOperation };
  }
  const hits: Array<{ source: OpenApiSource; operation: OpenApiOperation }> = [];
  for (const source of sources.values()) {
    for (const operation of source.operations) if (operation.operationId === operationId) hits.push({ source, operation });
  }
  const first = hits[0];
  if (!first) throw notFound(operationId, [...sources.values()]);
  // Two source names mapped to the same description (e.g. both rewind seed sources given
  // `--source x=openapi/kafka-connect.yaml`) describe one API: the operation is the same, so
  // the first source in document order answers. Different files defining one id stay ambiguous.
  const owners = [...new Map(hits.map((h) => [h.source.location, h.source] as const)).values()];
  if (owners.length > 1) {
    const names = owners.map((s) => s.name);
    throw new ArazzoError(
      'E_OPERATION',
      `operationId "${operationId}" exists in more than one source: ${owners.map((s) => `${s.name} (${s.location})`).join(' and ')}; qualify it, e.g. operationId: $sourceDescriptions.${names[0]}.${operationId} or $sourceDescriptions.${names[1]}.${operationId}`,
    );
  }
  const inFirst = hits.filter((h) => h.source === first.source);
  if (inFirst.length > 1) throw duplicateInSource(operationId, first.source, inFirst.map((h) => h.operation));
  return first;
}

function notFound(operationId: string, searched: OpenApiSource[]): ArazzoError {
  const where = searched.map((s) => `${s.name} (${s.location})`).join(', ') || 'no OpenAPI sources';
  return new ArazzoError('E_OPERATION', `operationId "${operationId}" is not in ${where}; check the spelling, or map the source to the right description`, { hint: { kind: 'map-source' } });
}

function duplicateInSource(operationId: string, source: OpenApiSource, matches: OpenApiOperation[]): ArazzoError {
  const where = matches.map((m) => `${m.method} ${m.pathTemplate}`).join(' and ');
  return new ArazzoError('E_OPERATION', `operationId "${operationId}" appears twice in source "${source.name}" (${where}); use operationPath to pick one, or fix the description`);
}

function findByPath(sources: ReadonlyMap<string, OpenApiSource>, operationPath: string): { source: OpenApiSource; operation: OpenApiOperation } {
  const match = OPERATION_PATH.exec(operationPath);
  if (!match) {
    throw new ArazzoError('E_OPERATION', `operationPath "${operationPath}" must look like {$sourceDescriptions.<name>.url}#/paths/~1items~1{id}/get`);
  }
  const sourceName = match[1] as string;
  const source = sources.get(sourceName);
  if (!source) {
    throw new ArazzoError('E_OPERATION', `operationPath "${operationPath}" names source "${sourceName}", which is not an OpenAPI source of this document (${[...sources.keys()].join(', ') || 'none'})`);
  }
  // The pointer is a URI fragment: it may be percent-encoded (`%7Bid%7D` for `{id}`).
  const tokens = (match[2] as string).split('/').slice(1).map((t) => unescapeToken(safeDecode(t)));
  const v32 = isOpenApi32(source.version);
  const methods = v32 ? HTTP_METHODS_32 : HTTP_METHODS;
  // 3.2: `#/paths/<path>/additionalOperations/<METHOD>`, the method as written (methods are case-sensitive).
  const additional = v32 && tokens.length === 4 && tokens[2] === 'additionalOperations';
  const method = additional ? (tokens[3] as string) : (tokens[tokens.length - 1] ?? '').toLowerCase();
  if (tokens[0] !== 'paths' || !(additional || (tokens.length === 3 && methods.includes(method)))) {
    throw new ArazzoError('E_OPERATION', `operationPath "${operationPath}" must point at an operation as #/paths/<escaped path>/<method> (method one of ${methods.join(', ')})${v32 ? ' or #/paths/<escaped path>/additionalOperations/<METHOD>' : ''}`);
  }
  const pathTemplate = tokens[1] as string;
  const pointer = `/paths/${escapeToken(pathTemplate)}/${additional ? `additionalOperations/${escapeToken(method)}` : method}`;
  const operation = source.operations.find((op) => op.pointer === pointer);
  if (!operation) {
    const exists = followPointer(source.doc.value, `/paths/${escapeToken(pathTemplate)}`) !== undefined;
    const why = exists ? `path "${pathTemplate}" has no ${additional ? `additional operation ${method}` : `${method} operation`}` : `there is no path "${pathTemplate}"`;
    throw new ArazzoError('E_OPERATION', `operationPath "${operationPath}": in source "${sourceName}" (${source.location}) ${why}`);
  }
  return { source, operation };
}

function safeDecode(token: string): string {
  try {
    return decodeURIComponent(token);
  } catch {
    return token;
  }
}

/** The details a request builder needs, with `$ref`s resolved. */
export function describeResolved(source: OpenApiSource, found: OpenApiOperation, serverUrl: string): ResolvedOperation {
  const root = source.doc.value;
  const merged = new Map<string, OpenApiParameter>();
  for (const raw of [...asList(found.pathItem['parameters']), ...asList(found.operation['parameters'])]) {
    const parameter = toParameter(resolveRef(root, raw, source.name, source.refs), source.name, root, source.refs);
    // There is at most one querystring parameter, and its name is not sent: the operation's replaces the path item's.
    merged.set(parameter.in === 'querystring' ? 'querystring' : `${parameter.in}\u0000${parameter.name}`, parameter);
  }
  const resolved: ResolvedOperation = {
    sourceName: source.name,
    method: found.method,
    pathTemplate: found.pathTemplate,
    serverUrl,
    parameters: [...merged.values()],
    responses: resolveResponses(root, found.operation['responses'], source.name, source.refs),
    operation: found.operation,
  };
  if (found.operationId !== undefined) resolved.operationId = found.operationId;
  if (found.operation['requestBody'] !== undefined) {
    const body = resolveRef(root, found.operation['requestBody'], source.name, source.refs);
    resolved.requestBody = { required: body['required'] === true, contentTypes: Object.keys(isRecord(body['content']) ? body['content'] : {}) };
  }
  return resolved;
}

function toParameter(raw: Record<string, unknown>, sourceName: string, root: unknown, refs: RefScope): OpenApiParameter {
  const where = raw['in'];
  // `querystring` is OpenAPI 3.2's whole-query-string parameter (Arazzo 1.1 passes it).
  if (typeof raw['name'] !== 'string' || (where !== 'path' && where !== 'query' && where !== 'querystring' && where !== 'header' && where !== 'cookie')) {
    throw new ArazzoError('E_SOURCE', `source "${sourceName}": a parameter needs a name and in (path, query, querystring, header or cookie); found ${JSON.stringify(raw)}`);
  }
  // OpenAPI requires path parameters to be required; treat them so even when the description forgets.
  const parameter: OpenApiParameter = { name: raw['name'], in: where, required: where === 'path' || raw['required'] === true };
  if (typeof raw['style'] === 'string') parameter.style = raw['style'];
  if (typeof raw['explode'] === 'boolean') parameter.explode = raw['explode'];
  if (typeof raw['allowReserved'] === 'boolean') parameter.allowReserved = raw['allowReserved'];
  if (raw['schema'] !== undefined) parameter.schema = raw['schema'];
  if (isRecord(raw['content'])) {
    // 3.2: a Media Type Object may be a reference (components.mediaTypes); its encoding matters for forms.
    const content: Record<string, unknown> = {};
    for (const [type, media] of Object.entries(raw['content'])) content[type] = isRecord(media) && typeof media['$ref'] === 'string' ? resolveRef(root, media, sourceName, refs) : media;
    parameter.content = content;
  }
  return parameter;
}

function resolveResponses(root: unknown, responses: unknown, sourceName: string, refs: RefScope): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isRecord(responses)) return out;
  for (const [status, response] of Object.entries(responses)) out[status] = resolveRef(root, response, sourceName, refs);
  return out;
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * One line naming an operation, for plans and messages.
 * @example describeOperation(op) // 'PUT /connectors/{connector}/stop (connectorsApi)'
 */
export function describeOperation(op: ResolvedOperation): string {
  return `${op.method} ${op.pathTemplate} (${op.sourceName})`;
}
