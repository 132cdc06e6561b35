// Arazzo 1.1 Selector Objects (`{context, selector, type}`) and typed payload-replacement targets.
// A selector reads from structured data: `jsonpath` (RFC 9535 by default, or
// draft-goessner-dispatch-jsonpath-00), `xpath` (fontoxpath's XPath 3.1 engine for every declared
// version, as for criteria) or `jsonpointer` (RFC 6901). What a selector yields (choices):
// no match → absent; one match → that value; several → an array of the values in document order.
// XPath nodes yield their text content; atomic XPath results (numbers, strings) stay as they are.
import type * as slimdomTypes from 'slimdom';
import type { JsonValue } from 'jsonpath-rfc9535';
import type { ExpressionContext } from '../context.js';
import { ArazzoError } from '../errors.js';
import { evaluateRuntimeExpression, resolveJsonPointer } from '../expressions/index.js';
import { loadFontoxpath, loadJsonPathPlus, loadRfc9535, loadSlimdom } from '../_on-demand.js';

export type SelectorKind = 'jsonpath' | 'xpath' | 'jsonpointer';
export interface SelectorType {
  kind: SelectorKind;
  version?: string;
}

export interface SelectorObject {
  context: string;
  selector: string;
  type: unknown;
}

/** `jsonpath` or `{type: jsonpath, version: rfc9535}` → kind and version. */
export function selectorType(type: unknown, where: string): SelectorType {
  const raw = typeof type === 'object' && type !== null ? (type as { type?: unknown; version?: unknown }) : { type };
  const kind = raw.type;
  if (kind !== 'jsonpath' && kind !== 'xpath' && kind !== 'jsonpointer') {
    throw new ArazzoError('E_REQUEST', `${where}: selector type ${JSON.stringify(kind)} is not supported; use jsonpath, xpath or jsonpointer`);
  }
  return typeof raw.version === 'string' ? { kind, version: raw.version } : { kind };
}

/** Evaluates a Selector Object over the step's (or workflow's) context. Absent data is `undefined`. */
export function evaluateSelector(selector: SelectorObject, ctx: ExpressionContext, where: string): unknown {
  const type = selectorType(selector.type, where);
  const value = evaluateRuntimeExpression(selector.context, ctx);
  if (value === undefined) return undefined;
  return select(type, selector.selector, value, where);
}

export function select(type: SelectorType, expression: string, value: unknown, where: string): unknown {
  switch (type.kind) {
    case 'jsonpointer':
      return resolveJsonPointer(asJson(value), expression);
    case 'jsonpath': {
      const data = asJson(value) as JsonValue;
      let nodes: unknown[];
      try {
        nodes = type.version === 'draft-goessner-dispatch-jsonpath-00'
          ? (loadJsonPathPlus().JSONPath({ path: expression, json: data as never, eval: false, wrap: true }) as unknown[])
          : loadRfc9535().query(data, expression);
      } catch (err) {
        throw new ArazzoError('E_REQUEST', `${where}: selector "${expression}" is not a valid JSONPath query: ${(err as Error).message}`);
      }
      return collapse(nodes);
    }
    case 'xpath': {
      if (typeof value !== 'string') return undefined;
      let doc: slimdomTypes.Document;
      try {
        doc = loadSlimdom().parseXmlDocument(value);
      } catch {
        return undefined; // not XML: nothing to select
      }
      const fontoxpath = loadFontoxpath();
      let items: unknown[];
      try {
        items = fontoxpath.evaluateXPath(expression, doc, null, null, fontoxpath.evaluateXPath.ALL_RESULTS_TYPE) as unknown[];
      } catch (err) {
        throw new ArazzoError('E_REQUEST', `${where}: selector "${expression}" is not a valid XPath expression: ${(err as Error).message}`);
      }
      return collapse(items.map((item) => (typeof item === 'object' && item !== null && 'nodeType' in item ? (item as slimdomTypes.Node).textContent : item)));
    }
  }
}

function collapse(nodes: unknown[]): unknown {
  if (nodes.length === 0) return undefined;
  return nodes.length === 1 ? nodes[0] : nodes;
}

/** JSON text (e.g. an output holding a body as text) is parsed so selectors can reach into it. */
function asJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/**
 * RFC 9535 normalized paths (`$['a'][0]['b']`) of every node a JSONPath target selects, as JSON
 * Pointers, so a replacement can set each of them.
 */
export function jsonPathTargets(root: unknown, target: string, where: string): string[] {
  let found: string[];
  try {
    found = loadRfc9535().paths(asJson(root) as JsonValue, target);
  } catch (err) {
    throw new ArazzoError('E_REQUEST', `${where}: replacement target "${target}" is not a valid JSONPath query: ${(err as Error).message}`);
  }
  return found.map(normalizedPathToPointer);
}

export function normalizedPathToPointer(path: string): string {
  let pointer = '';
  const re = /\[(?:(\d+)|'((?:[^'\\]|\\.)*)')\]/g;
  for (let m = re.exec(path); m; m = re.exec(path)) {
    const token = m[1] !== undefined ? m[1] : JSON.parse(`"${(m[2] ?? '').replace(/\\'/g, "'").replace(/"/g, '\\"')}"`) as string;
    pointer += `/${token.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  }
  return pointer;
}
