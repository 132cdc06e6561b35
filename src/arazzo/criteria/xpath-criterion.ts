// `xpath` criteria over XML text (fontoxpath over a slimdom document). fontoxpath implements
// XPath 3.1; `xpath-10`, `xpath-20` and `xpath-30` conditions are evaluated by that same engine,
// which agrees with the older versions on paths and predicates but not on every comparison rule
// (3.1 raises a type error where 1.0 converted a string to a number). A condition passes when
// its result is a non-empty sequence of nodes or the single boolean true.

import { ArazzoError } from '../errors.js';
import { loadFontoxpath, loadSlimdom } from '../_on-demand.js';
import { describeValue } from './compare-values.js';

export const XPATH_VERSIONS = ['xpath-10', 'xpath-20', 'xpath-30', 'xpath-31'] as const;
/** XML bodies larger than this are not parsed (the criterion fails with a message). */
export const MAX_XML_LENGTH = 10_000_000;

/** Checks the syntax; throws ArazzoError('E_CRITERION') with fontoxpath's positioned message. */
export function compileXPathCondition(condition: string): string {
  const fontoxpath = loadFontoxpath();
  try {
    fontoxpath.parseScript(condition, { language: fontoxpath.evaluateXPath.XPATH_3_1_LANGUAGE }, new (loadSlimdom().Document)());
  } catch (error) {
    throw new ArazzoError('E_CRITERION', `xpath condition "${condition}" is not valid XPath: ${fontoxpathReason(error)}`);
  }
  return condition;
}

/** fontoxpath messages start with a code frame; keep the `XPST0003: ...` line and its position. */
function fontoxpathReason(error: unknown): string {
  const lines = String((error as Error).message ?? error).split('\n');
  const start = lines.findIndex((line) => /^Error: /.test(line));
  if (start === -1) return lines.join(' ').trim();
  return lines.slice(start).map((line) => line.replace(/^Error: /, '').trim()).filter(Boolean).join(' ');
}

function isNode(item: unknown): boolean {
  return typeof item === 'object' && item !== null && typeof (item as { nodeType?: unknown }).nodeType === 'number';
}

export interface XPathOutcome {
  passed: boolean;
  message?: string;
}

export function runXPathCondition(condition: string, value: unknown): XPathOutcome {
  if (typeof value !== 'string') {
    return { passed: false, message: `${condition}: the context is not XML text (it was ${describeValue(value)})` };
  }
  if (value.length > MAX_XML_LENGTH) return { passed: false, message: `${condition}: the XML context is larger than ${MAX_XML_LENGTH} characters` };
  // Internal entities expand in slimdom; a handful of nested ones is a "billion laughs" bomb.
  if (/<!ENTITY/i.test(value)) return { passed: false, message: `${condition}: the XML context declares entities, which offsetctl refuses to expand` };
  let document;
  try {
    document = loadSlimdom().parseXmlDocument(value);
  } catch (error) {
    return { passed: false, message: `${condition}: the context is not well-formed XML: ${(error as Error).message.split('\n')[0]}` };
  }
  const fontoxpath = loadFontoxpath();
  let result: unknown[];
  try {
    result = fontoxpath.evaluateXPath(condition, document, null, null, fontoxpath.evaluateXPath.ALL_RESULTS_TYPE) as unknown[];
  } catch (error) {
    return { passed: false, message: `${condition}: evaluation failed: ${fontoxpathReason(error)}` };
  }
  if (result.length === 1 && result[0] === true) return { passed: true };
  if (result.length > 0 && result.every(isNode)) return { passed: true };
  if (result.length === 0) return { passed: false, message: `${condition}: selected no nodes` };
  return { passed: false, message: `${condition}: the result was ${describeValue(result.length === 1 ? result[0] : result)}, not nodes or true` };
}
