// The comparison rules of `simple` conditions ("loose comparisons" in the spec), written down once:
// - strings compare case-insensitively (the spec's MUST), by lower-cased UTF-16 code units;
// - a number and a numeric string compare as numbers (`$response.header.Content-Length > 10`);
// - a boolean equals the string 'true'/'false' in any case (query and header values are text);
// - absent (undefined) equals null and nothing else;
// - arrays and objects are equal when their members are, by these same rules;
// - ordering works between numbers (or number + numeric string) and between two strings; any
//   other pair is not ordered, so `<`/`>`/`<=`/`>=` give false.

import type { ComparisonOperator } from './simple-condition.js';

const NUMERIC_STRING = /^\s*-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\s*$/;

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && NUMERIC_STRING.test(value)) return Number(value);
  return undefined;
}

export function looseEquals(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a === null || b === null) return a === b;
  if (typeof a === 'number' || typeof b === 'number') {
    const x = asNumber(a);
    const y = asNumber(b);
    return x !== undefined && y !== undefined && x === y;
  }
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b;
  if (typeof a === 'boolean' && typeof b === 'string') return b.toLowerCase() === String(a);
  if (typeof a === 'string' && typeof b === 'boolean') return a.toLowerCase() === String(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => looseEquals(item, b[i]));
  if (Array.isArray(a) || Array.isArray(b)) return false;
  if (typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a as object);
    const kb = Object.keys(b as object);
    return ka.length === kb.length && ka.every((key) => Object.hasOwn(b as object, key) && looseEquals((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
  }
  return false;
}

/** -1/0/1, or undefined when the pair has no order. */
function order(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' || typeof b === 'number') {
    const x = asNumber(a);
    const y = asNumber(b);
    if (x === undefined || y === undefined || Number.isNaN(x) || Number.isNaN(y)) return undefined;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') {
    const x = a.toLowerCase();
    const y = b.toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return undefined;
}

export function compareValues(operator: ComparisonOperator, a: unknown, b: unknown): boolean {
  switch (operator) {
    case '==':
      return looseEquals(a, b);
    case '!=':
      return !looseEquals(a, b);
    default: {
      const o = order(a, b);
      if (o === undefined) return false;
      if (operator === '<') return o < 0;
      if (operator === '<=') return o <= 0;
      if (operator === '>') return o > 0;
      return o >= 0;
    }
  }
}

/** Truthiness for `!`, `&&`, `||` and a condition's final value: false, null, absent, 0, NaN and '' are false. */
export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'string') return value !== '';
  return true;
}

/** A value as a failure message shows it: `404`, `'STOPPED'`, `absent`, JSON for the rest (shortened). */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'absent';
  if (typeof value === 'string') return `'${value.length > 200 ? `${value.slice(0, 200)}…` : value}'`;
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}
