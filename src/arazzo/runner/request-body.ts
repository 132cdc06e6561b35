// Request bodies: resolve expressions at any depth of the payload, apply `replacements`
// (JSON Pointer targets for structured payloads, XPath targets for XML), then serialize per
// the content type. Payload values are never mutated: replacements copy only the containers
// on the pointer's path, so an input object used as a payload stays as the caller gave it.
import type * as slimdomTypes from 'slimdom';
import { ArazzoError } from '../errors.js';
import { loadFontoxpath, loadSlimdom } from '../_on-demand.js';
import type { RequestBody } from '../types.js';
import { compileValue, type CompiledValue } from './compile-value.js';
import { jsonPathTargets, selectorType, type SelectorType } from './selectors.js';

/** Resolves a value from the document: `compiled` is its prepared form, `raw` the text as written. */
export type Resolve = (raw: unknown, compiled: CompiledValue) => unknown;

export type BodyKind = 'json' | 'form' | 'xml' | 'text' | 'other';

export interface CompiledBody {
  contentType: string;
  kind: BodyKind;
  payload: unknown;
  compiledPayload: CompiledValue;
  replacements: Array<{ target: string; value: unknown; compiled: CompiledValue; targetType?: SelectorType }>;
}

export interface BuiltBody {
  /** What `$request.body` sees: the payload value (parsed JSON when the payload was JSON text). */
  value: unknown;
  text: string;
}

export function bodyKind(contentType: string): BodyKind {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json') || type.endsWith('/json')) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type.endsWith('/xml') || type.endsWith('+xml')) return 'xml';
  if (type.startsWith('text/')) return 'text';
  return 'other';
}

/** Chooses the content type: the step's, else the operation's first, else from the payload's shape. */
export function compileBody(body: RequestBody, operationTypes: readonly string[] | undefined, v11 = false): CompiledBody {
  const contentType = body.contentType ?? operationTypes?.[0] ?? (typeof body.payload === 'string' ? 'text/plain' : 'application/json');
  return {
    contentType,
    kind: bodyKind(contentType),
    payload: body.payload,
    compiledPayload: compileValue(body.payload, v11),
    replacements: (body.replacements ?? []).map((r) => ({
      target: r.target,
      value: r.value,
      compiled: compileValue(r.value, v11),
      ...(v11 && r.targetSelectorType !== undefined ? { targetType: selectorType(r.targetSelectorType, 'replacement targetSelectorType') } : {}),
    })),
  };
}

export function buildBody(body: CompiledBody, resolve: Resolve, where: string): BuiltBody {
  let value = resolve(body.payload, body.compiledPayload);
  const typed = body.replacements.find((r) => r.targetType !== undefined && r.targetType.kind !== (body.kind === 'xml' ? 'xpath' : r.targetType.kind === 'xpath' ? '' : r.targetType.kind));
  if (typed) {
    throw new ArazzoError('E_REQUEST', `${where}: replacement target "${typed.target}" is a ${typed.targetType!.kind} selector, which cannot apply to a ${body.kind} payload (${body.contentType}); use ${body.kind === 'xml' ? 'xpath' : 'jsonpointer or jsonpath'}`);
  }
  if (body.kind === 'xml') {
    const text = scalarBody(value);
    if (body.replacements.length === 0) return { value: text, text };
    const replaced = replaceInXml(text, body.replacements, resolve, where);
    return { value: replaced, text: replaced };
  }
  if (body.replacements.length > 0) {
    // A JSON payload written as text (the spec's "JSON Templated Example") is parsed so
    // pointers can reach into it; so is form text (`a=1&location=x`: a repeated key is an array).
    if (typeof value === 'string' && body.kind === 'json') value = parseJsonPayload(value, where);
    else if (typeof value === 'string' && body.kind === 'form') value = parseFormPayload(value);
    for (const r of body.replacements) {
      if (r.targetType?.kind === 'jsonpath') {
        // 1.1: every node the JSONPath selects gets the value; selecting nothing is an error, as for XPath.
        const pointers = jsonPathTargets(value, r.target, where);
        if (pointers.length === 0) throw new ArazzoError('E_REQUEST', `${where}: replacement target "${r.target}" selects nothing in the payload; fix the JSONPath or the payload`);
        const v = resolve(r.value, r.compiled);
        for (const pointer of pointers) value = setPointer(value, pointer, v, where);
      } else value = setPointer(value, r.target, resolve(r.value, r.compiled), where);
    }
  }
  if (body.kind === 'json') {
    if (typeof value === 'string') return { value: tryParseJson(value), text: value };
    return { value, text: JSON.stringify(value) ?? '' };
  }
  if (body.kind === 'form' && typeof value === 'object' && value !== null) return { value, text: formEncode(value as Record<string, unknown>) };
  return { value, text: scalarBody(value) };
}

function scalarBody(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}

function parseJsonPayload(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ArazzoError('E_REQUEST', `${where}: requestBody.payload is JSON text that does not parse (${(err as Error).message}), so replacements cannot apply: write the payload as YAML/JSON structure or fix the text`);
  }
}

/** Form text as an object: values are strings, a key given several times is an array of them. */
export function parseFormPayload(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(text)) {
    const seen = Object.hasOwn(out, k) ? out[k] : undefined;
    // Defined, not assigned: a `__proto__` key stays a plain key.
    Object.defineProperty(out, k, { value: seen === undefined ? v : Array.isArray(seen) ? [...seen, v] : [seen, v], enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** application/x-www-form-urlencoded: arrays repeat the key, nested objects go as JSON text. */
export function formEncode(value: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const items = Array.isArray(v) ? v : [v];
    for (const item of items) params.append(k, typeof item === 'string' ? item : JSON.stringify(item));
  }
  return params.toString();
}

function decodePointer(pointer: string, where: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) {
    throw new ArazzoError('E_REQUEST', `${where}: replacement target "${pointer}" is not a JSON Pointer: it must start with "/" (e.g. /petId)`);
  }
  return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Returns a copy of `root` with the value at `pointer` set; only containers on the path are copied. */
export function setPointer(root: unknown, pointer: string, value: unknown, where: string): unknown {
  const tokens = decodePointer(pointer, where);
  const set = (node: unknown, depth: number): unknown => {
    if (depth === tokens.length) return value;
    const token = tokens[depth]!;
    const last = depth === tokens.length - 1;
    if (Array.isArray(node)) {
      const copy = node.slice();
      const index = token === '-' ? copy.length : /^(0|[1-9]\d*)$/.test(token) ? Number(token) : NaN;
      if (Number.isNaN(index) || index > copy.length || (!last && index >= copy.length)) {
        throw new ArazzoError('E_REQUEST', `${where}: replacement target "${pointer}": "${token}" is not an index of the array at this point (length ${node.length})`);
      }
      copy[index] = set(copy[index], depth + 1);
      return copy;
    }
    if (typeof node === 'object' && node !== null) {
      const obj = node as Record<string, unknown>;
      if (!last && !(token in obj)) {
        throw new ArazzoError('E_REQUEST', `${where}: replacement target "${pointer}": the payload has no "${token}" to descend into; add it to the payload or fix the pointer`);
      }
      return { ...obj, [token]: set(obj[token], depth + 1) };
    }
    throw new ArazzoError('E_REQUEST', `${where}: replacement target "${pointer}" goes through a ${node === null ? 'null' : typeof node} value at "${tokens.slice(0, depth).join('/')}"; targets must point into objects or arrays`);
  };
  return set(root, 0);
}

/** XPath replacements: the first node the expression selects gets the value as its text. */
function replaceInXml(text: string, replacements: CompiledBody['replacements'], resolve: Resolve, where: string): string {
  const { evaluateXPathToFirstNode } = loadFontoxpath();
  const slimdom = loadSlimdom();
  let doc: slimdomTypes.Document;
  try {
    doc = slimdom.parseXmlDocument(text);
  } catch (err) {
    throw new ArazzoError('E_REQUEST', `${where}: the XML payload does not parse (${(err as Error).message}), so XPath replacements cannot apply`);
  }
  for (const r of replacements) {
    let node: slimdomTypes.Node | null;
    try {
      node = evaluateXPathToFirstNode<slimdomTypes.Node>(r.target, doc);
    } catch (err) {
      throw new ArazzoError('E_REQUEST', `${where}: replacement target "${r.target}" is not a valid XPath expression: ${(err as Error).message}`);
    }
    if (!node) throw new ArazzoError('E_REQUEST', `${where}: replacement target "${r.target}" selects nothing in the XML payload; fix the XPath or the payload`);
    const v = resolve(r.value, r.compiled);
    node.textContent = typeof v === 'string' ? v : JSON.stringify(v) ?? '';
  }
  return slimdom.serializeToWellFormedString(doc);
}
