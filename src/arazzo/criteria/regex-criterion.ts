// `regex` criteria: an ECMAScript pattern (no flags) searched for in the context value
// (`RegExp.test`, not anchored: write `^...$` to anchor). JavaScript's backtracking engine can be
// made to run for hours by a pattern like `(a+)+$`, and patterns come from documents that may not
// be trusted, so patterns longer than MAX_PATTERN_LENGTH or with a repeated group that itself
// contains a repetition ("nested quantifiers", star height > 1) are refused before any request.

import { ArazzoError } from '../errors.js';

export const MAX_PATTERN_LENGTH = 1000;
/** Context text beyond this is not searched; a criterion on a larger value fails with a message. */
export const MAX_SUBJECT_LENGTH = 1_000_000;

/** True when the quantifier starting at `at` can repeat more than once (`*`, `+`, `{2,}`, `{1,5}`). */
function repeatsAt(pattern: string, at: number): boolean {
  const ch = pattern[at];
  if (ch === '*' || ch === '+') return true;
  if (ch !== '{') return false;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at));
  if (!match) return false;
  if (match[2] === undefined) return Number(match[1]) > 1;
  return match[3] === '' || Number(match[3]) > 1;
}

/**
 * The offset of a repeated group that contains a repetition, or -1. A heuristic: it does not see
 * overlapping alternatives under one repetition (`(a|a)*`), which can also backtrack badly.
 */
export function findNestedQuantifier(pattern: string): number {
  const groups: Array<{ at: number; repeats: boolean }> = [];
  const markRepeat = (): void => {
    const top = groups[groups.length - 1];
    if (top) top.repeats = true;
  };
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      // An escape is one atom; a quantifier after it is seen on the next turn.
      i++;
    } else if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      inClass = true;
    } else if (ch === '(') {
      groups.push({ at: i, repeats: false });
    } else if (ch === ')') {
      const group = groups.pop();
      if (group?.repeats && repeatsAt(pattern, i + 1)) return group.at;
      if (group?.repeats) markRepeat();
    } else if (repeatsAt(pattern, i)) {
      markRepeat();
    }
  }
  return -1;
}

/** Compiles a criterion pattern or throws ArazzoError('E_CRITERION') saying why and what to do. */
export function compileRegexCondition(pattern: string): RegExp {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new ArazzoError('E_CRITERION', `regex condition is ${pattern.length} characters long; the limit is ${MAX_PATTERN_LENGTH}: shorten the pattern`);
  }
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (error) {
    throw new ArazzoError('E_CRITERION', `regex condition "${pattern}" is not a valid ECMAScript regular expression: ${(error as Error).message}`);
  }
  const nested = findNestedQuantifier(pattern);
  if (nested !== -1) {
    throw new ArazzoError(
      'E_CRITERION',
      `regex condition "${pattern}": the group at character ${nested + 1} repeats and contains a repetition (nested quantifiers can take exponential time); rewrite it without repeating a repeated group`,
    );
  }
  return regex;
}

/** The text a regex is searched in: strings as-is, everything else as JSON (`200` → "200"). */
export function regexSubject(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}
