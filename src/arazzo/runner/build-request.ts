// Builds the HTTP request of an operation step from its compiled definition and the values the
// runtime expressions resolve to, together with the `$request.*`/`$url`/`$method` view of it.
import type { HttpExchange } from '../context.js';
import { ArazzoError } from '../errors.js';
import type { HttpRequest } from '../http.js';
import type { CompiledStep } from './compile.js';
import { bodyKind, buildBody, formEncode, parseFormPayload, type Resolve } from './request-body.js';
import { encodeStrict, queryView, serializeCookie, serializeHeader, serializePath, serializeQuery, type ParameterStyle } from './serialize-parameter.js';

export interface BuiltRequest {
  request: HttpRequest & { headers: Record<string, string> };
  exchange: HttpExchange;
  /** The body as sent, for events and reports. */
  bodyText?: string;
}

/** Joins a server URL and a path template result without doubling or losing the slash. */
export function joinUrl(server: string, path: string): string {
  if (server.endsWith('/') && path.startsWith('/')) return server + path.slice(1);
  if (!server.endsWith('/') && !path.startsWith('/') && path !== '') return `${server}/${path}`;
  return server + path;
}

/**
 * `resolve` turns a parameter or payload value into its runtime value (the runner evaluates the
 * prepared value over the step's context; `plan` keeps unknown expressions as text).
 */
export function buildRequest(cs: CompiledStep, resolve: Resolve): BuiltRequest {
  const op = cs.operation;
  if (!op || !cs.pathParts) throw new ArazzoError('E_REQUEST', `${cs.where}: calls a workflow, not an operation`);
  const pathValues: Record<string, string> = {};
  const path: Record<string, unknown> = {};
  const queryParts: string[] = [];
  const query: Record<string, string | string[]> = {};
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  let querystring: string | undefined;

  for (const p of cs.parameters) {
    const value = resolve(p.value, p.compiled);
    if (value === undefined) {
      if (p.in === 'path') {
        throw new ArazzoError('E_REQUEST', `${cs.where}: path parameter "${p.name}" resolved to nothing (value ${JSON.stringify(p.value)}); give the input or output it refers to a value`);
      }
      continue; // an absent optional value leaves the parameter out rather than sending "undefined"
    }
    const style = p.style!;
    switch (p.in) {
      case 'path':
        path[p.name] = value;
        pathValues[p.name] = serializePath(style, value);
        break;
      case 'query':
        query[p.name] = queryView(value);
        for (const part of serializeQuery(style, value)) queryParts.push(part);
        break;
      case 'header':
        headers[p.name] = serializeHeader(style, value);
        break;
      case 'cookie':
        cookies.push(...serializeCookie(style, value));
        break;
      case 'querystring':
        querystring = wholeQuery(value, style, cs.where);
        if (style.mediaType === undefined || bodyKind(style.mediaType) === 'form') Object.assign(query, parseFormPayload(querystring)); // what $request.query.<name> sees
        break;
    }
  }
  if (cookies.length > 0) headers['Cookie'] = cookies.join('; ');

  let pathText = '';
  for (const part of cs.pathParts) {
    if ('literal' in part) {
      pathText += part.literal;
      continue;
    }
    const v = Object.hasOwn(pathValues, part.param) ? pathValues[part.param] : undefined;
    if (v === undefined) {
      throw new ArazzoError('E_REQUEST', `${cs.where}: the operation's path ${op.pathTemplate} needs path parameter "${part.param}" and the step gives none; add {name: ${part.param}, in: path, value: ...} to the step's parameters`);
    }
    pathText += v;
  }
  let url = joinUrl(op.serverUrl, pathText);
  if (querystring !== undefined && queryParts.length > 0) {
    throw new ArazzoError('E_REQUEST', `${cs.where}: an in: querystring parameter is the whole query string and cannot be combined with in: query parameters (${Object.keys(query).join(', ')}); put them into the querystring value`);
  }
  if (querystring !== undefined && querystring !== '') url += (url.includes('?') ? '&' : '?') + querystring;
  if (queryParts.length > 0) url += (url.includes('?') ? '&' : '?') + queryParts.join('&');

  const exchange: HttpExchange = { url, method: op.method, request: { headers, query, path } };
  const request: BuiltRequest['request'] = { method: op.method, url, headers };
  const body = cs.body;
  if (!body) return { request, exchange };
  const built = buildBody(body, resolve, cs.where);
  exchange.request.body = built.value;
  request.body = built.text;
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = body.contentType;
  return { request, exchange, bodyText: built.text };
}

/**
 * Arazzo 1.1 `in: querystring` (OpenAPI 3.2): the value is the whole query string, and the
 * OpenAPI parameter's `content` media type decides its form.
 * - application/x-www-form-urlencoded (also when the operation declares none): a string is sent
 *   as written (a leading `?` dropped), with characters a query may not hold percent-encoded and
 *   `& = + %XX` kept; an object is form-encoded (nested values as JSON text, or any value whose
 *   Encoding Object names a JSON contentType).
 * - a JSON media type: the value is the JSON text (a string must parse as JSON; anything else is
 *   serialized), percent-encoded whole, as OpenAPI 3.2's example shows (`?%7B%22a%22%3A1%7D`).
 * - any other media type (text/plain, application/jsonpath, ...): the string, percent-encoded.
 */
function wholeQuery(value: unknown, style: ParameterStyle, where: string): string {
  const kind = style.mediaType === undefined ? 'form' : bodyKind(style.mediaType);
  if (kind === 'json') {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (typeof value === 'string') {
      try {
        JSON.parse(value);
      } catch {
        throw new ArazzoError('E_REQUEST', `${where}: the querystring parameter's media type is ${style.mediaType}, so its value must be JSON text; ${JSON.stringify(value)} is not (write it as a YAML/JSON value to have it serialized)`);
      }
    }
    return encodeStrict(text ?? 'null');
  }
  if (kind !== 'form') {
    if (typeof value === 'object' && value !== null) throw new ArazzoError('E_REQUEST', `${where}: the querystring parameter's media type is ${style.mediaType}, so its value must be a string (the query string), not ${Array.isArray(value) ? 'an array' : 'an object'}`);
    return encodeStrict(String(value));
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const asJson = new Set(style.jsonProperties ?? []);
    const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, asJson.has(k) ? JSON.stringify(v) : v] as const);
    return formEncode(Object.fromEntries(entries));
  }
  const text = typeof value === 'string' ? value.replace(/^\?/, '') : String(value);
  return text.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/gu, (c) => encodeURIComponent(c));
}
