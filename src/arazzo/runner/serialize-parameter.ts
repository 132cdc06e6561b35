// OpenAPI parameter serialization (OpenAPI 3.0/3.1 "Style Values" and "Style Examples"):
// path simple/label/matrix, query form/spaceDelimited/pipeDelimited/deepObject, header simple,
// cookie form. Values are percent-encoded per RFC 3986 unless `allowReserved` keeps reserved
// characters as they are (query only).
import type { ParameterLocation } from '../types.js';

export interface ParameterStyle {
  name: string;
  in: ParameterLocation;
  style: string;
  explode: boolean;
  allowReserved: boolean;
  /** The OpenAPI parameter uses `content` with a JSON media type: the value is sent as JSON text. */
  json: boolean;
  /** The media type of the parameter's `content` (its one entry), if it has one. */
  mediaType?: string;
  /** application/x-www-form-urlencoded content: properties whose Encoding Object says a JSON contentType. */
  jsonProperties?: string[];
}

/** Defaults from the OpenAPI spec: simple for path/header, form (exploded) for query and cookie (`cookie` style too). */
export function styleFor(name: string, location: ParameterLocation, def?: { style?: string; explode?: boolean; allowReserved?: boolean; content?: Record<string, unknown> }): ParameterStyle {
  const style = def?.style ?? (location === 'path' || location === 'header' ? 'simple' : 'form');
  const json = def?.content !== undefined && Object.keys(def.content).some((type) => /json/i.test(type));
  const out: ParameterStyle = { name, in: location, style, explode: def?.explode ?? (style === 'form' || style === 'cookie'), allowReserved: def?.allowReserved === true, json };
  const [mediaType, media] = Object.entries(def?.content ?? {})[0] ?? [];
  if (mediaType !== undefined) {
    out.mediaType = mediaType;
    const encoding = typeof media === 'object' && media !== null ? (media as { encoding?: unknown }).encoding : undefined;
    if (typeof encoding === 'object' && encoding !== null) {
      out.jsonProperties = Object.entries(encoding).filter(([, e]) => typeof e === 'object' && e !== null && /json/i.test(String((e as { contentType?: unknown }).contentType ?? ''))).map(([k]) => k);
    }
  }
  return out;
}

/** `[name, value]` pairs, still unencoded, for query strings and cookies. */
export type Pair = [name: string, value: string];

const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;
const UNRESERVED_ONLY = /^[A-Za-z0-9\-._~]*$/;

/** encodeURIComponent plus the sub-delims it leaves alone (`!'()*`), so output is strictly RFC 3986. */
export function encodeStrict(text: string): string {
  if (UNRESERVED_ONLY.test(text)) return text;
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function encodeAllowReserved(text: string): string {
  let out = '';
  for (const ch of text) out += RESERVED.test(ch) ? ch : encodeStrict(ch);
  return out;
}

export function encodeValue(text: string, allowReserved: boolean): string {
  return allowReserved ? encodeAllowReserved(text) : encodeStrict(text);
}

/** Scalars as text: strings as they are, everything else as JSON (`true`, `3`, `null`). */
export function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Path value after the template's `{name}`: already percent-encoded. */
export function serializePath(p: ParameterStyle, value: unknown): string {
  const enc = (v: unknown): string => encodeStrict(scalarText(v));
  if (p.json) return enc(JSON.stringify(value));
  const { style, explode, name } = p;
  if (Array.isArray(value)) {
    const items = value.map(enc);
    if (style === 'label') return '.' + items.join(explode ? '.' : ',');
    if (style === 'matrix') return explode ? items.map((i) => `;${name}=${i}`).join('') : `;${name}=${items.join(',')}`;
    return items.join(',');
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value);
    const kv = (sep: string): string[] => entries.map(([k, v]) => `${encodeStrict(k)}${sep}${enc(v)}`);
    const flat = entries.flatMap(([k, v]) => [encodeStrict(k), enc(v)]).join(',');
    if (style === 'label') return '.' + (explode ? kv('=').join('.') : flat);
    if (style === 'matrix') return explode ? kv('=').map((e) => `;${e}`).join('') : `;${name}=${flat}`;
    return explode ? kv('=').join(',') : flat;
  }
  if (style === 'label') return '.' + enc(value);
  if (style === 'matrix') return value === '' ? `;${name}` : `;${name}=${enc(value)}`;
  return enc(value);
}

/**
 * Query parameters as encoded `name=value` fragments, ready to join with `&`. Delimiters that
 * belong to the style (`,` of form, the space and pipe of the delimited styles) are encoded too,
 * which servers decode to the same value and RFC 3986 prefers.
 */
export function serializeQuery(p: ParameterStyle, value: unknown): string[] {
  const key = encodeStrict(p.name);
  // The common case first: one scalar, no closures or arrays built.
  if (!p.json && (typeof value !== 'object' || value === null)) return [`${key}=${encodeValue(scalarText(value), p.allowReserved)}`];
  const enc = (v: unknown): string => encodeValue(scalarText(v), p.allowReserved);
  if (p.json) return [`${key}=${encodeStrict(JSON.stringify(value))}`];
  const { style, explode } = p;
  if (style === 'deepObject' && isPlainObject(value)) {
    return Object.entries(value).map(([k, v]) => `${key}%5B${encodeStrict(k)}%5D=${enc(v)}`);
  }
  const delimiter = style === 'spaceDelimited' ? '%20' : style === 'pipeDelimited' ? '%7C' : ',';
  if (Array.isArray(value)) {
    if (explode) return value.map((v) => `${key}=${enc(v)}`);
    return [`${key}=${value.map(enc).join(delimiter)}`];
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value);
    if (explode && style === 'form') return entries.map(([k, v]) => `${encodeStrict(k)}=${enc(v)}`);
    return [`${key}=${entries.flatMap(([k, v]) => [encodeStrict(k), enc(v)]).join(delimiter)}`];
  }
  return [`${key}=${enc(value)}`];
}

/** Header value (simple style), not percent-encoded: headers carry text as it is. */
export function serializeHeader(p: ParameterStyle, value: unknown): string {
  if (p.json) return JSON.stringify(value);
  if (Array.isArray(value)) return value.map(scalarText).join(',');
  if (isPlainObject(value)) {
    const entries = Object.entries(value);
    return p.explode ? entries.map(([k, v]) => `${k}=${scalarText(v)}`).join(',') : entries.flatMap(([k, v]) => [k, scalarText(v)]).join(',');
  }
  return scalarText(value);
}

/**
 * Cookie pairs. Form style (the default): values are percent-encoded because a cookie value may
 * not hold spaces, commas, semicolons or quotes; an exploded array repeats the cookie name.
 * OpenAPI 3.2's `cookie` style: the same pairs with no encoding at all (the value must already be
 * valid cookie text), joined by `; ` in the header.
 */
export function serializeCookie(p: ParameterStyle, value: unknown): string[] {
  const enc = p.style === 'cookie' ? scalarText : (v: unknown): string => encodeStrict(scalarText(v));
  if (p.json) return [`${p.name}=${encodeStrict(JSON.stringify(value))}`];
  if (Array.isArray(value)) return p.explode ? value.map((v) => `${p.name}=${enc(v)}`) : [`${p.name}=${value.map(enc).join(',')}`];
  if (isPlainObject(value)) {
    const entries = Object.entries(value);
    return p.explode ? entries.map(([k, v]) => `${k}=${enc(v)}`) : [`${p.name}=${entries.flatMap(([k, v]) => [p.style === 'cookie' ? k : encodeStrict(k), enc(v)]).join(',')}`];
  }
  return [`${p.name}=${enc(value)}`];
}

/** What `$request.query.<name>` sees: the unencoded value, arrays kept as arrays. */
export function queryView(value: unknown): string | string[] {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(scalarText);
  if (isPlainObject(value)) return JSON.stringify(value);
  return scalarText(value);
}
