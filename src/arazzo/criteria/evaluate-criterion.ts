// Criterion Objects: type/version normalization, one static compile step (syntax errors are
// ArazzoError('E_CRITERION'), which validation reports before any request), and evaluation that
// reports a failed criterion as data with a readable message instead of throwing: the spec says a
// condition with a syntax error MUST evaluate to fail.

import { ArazzoError } from '../errors.js';
import type { ExpressionContext } from '../context.js';
import type { Criterion } from '../types.js';
import { evaluateRuntimeExpression, parseRuntimeExpression, resolveValue, type RuntimeExpression } from '../expressions/index.js';
import { describeValue } from './compare-values.js';
import { runSimpleCondition } from './evaluate-simple-condition.js';
import { compileJsonPathCondition, GOESSNER_VERSION, runJsonPathCondition, type CompiledJsonPath } from './jsonpath-criterion.js';
import { compileRegexCondition, MAX_SUBJECT_LENGTH, regexSubject } from './regex-criterion.js';
import { parseSimpleCondition, type ConditionNode } from './simple-condition.js';
import { compileXPathCondition, runXPathCondition, XPATH_VERSIONS } from './xpath-criterion.js';

export type CriterionType = 'simple' | 'regex' | 'jsonpath' | 'xpath';

export interface CriterionResult {
  passed: boolean;
  type: CriterionType;
  condition: string;
  context?: string;
  /** Why it failed, e.g. `$statusCode == 200: left was 404`. */
  message?: string;
}

type Compiled =
  | { type: 'simple'; node: ConditionNode }
  | { type: 'regex'; regex: RegExp }
  | { type: 'jsonpath'; jsonpath: CompiledJsonPath }
  | { type: 'xpath' };

interface CompiledCriterion {
  condition: string;
  context?: RuntimeExpression;
  compiled: Compiled;
}

function refuse(message: string): never {
  throw new ArazzoError('E_CRITERION', message);
}

/** `type` as a string, as the spec's object `{type, version}`, or flattened with `version` beside it. */
function normalizeType(criterion: Criterion): { type: CriterionType; version?: string } {
  const raw: unknown = criterion.type ?? 'simple';
  if (typeof raw === 'object' && raw !== null) {
    const { type, version } = raw as { type?: unknown; version?: unknown };
    if (type !== 'jsonpath' && type !== 'xpath') refuse(`criterion type object: type must be 'jsonpath' or 'xpath', got ${describeValue(type)}`);
    if (typeof version !== 'string') refuse(`criterion type object {type: ${type}}: version is required (a string such as ${type === 'xpath' ? "'xpath-30'" : `'${GOESSNER_VERSION}'`})`);
    if (criterion.version !== undefined && criterion.version !== version) refuse(`criterion: version '${criterion.version}' beside the type object disagrees with its version '${version}'`);
    return { type, version };
  }
  if (raw !== 'simple' && raw !== 'regex' && raw !== 'jsonpath' && raw !== 'xpath') {
    refuse(`criterion type must be one of simple, regex, jsonpath, xpath (or {type, version}), got ${describeValue(raw)}`);
  }
  if (criterion.version !== undefined && (raw === 'simple' || raw === 'regex')) refuse(`criterion: version applies to jsonpath and xpath only, not '${raw}'; remove it`);
  return criterion.version === undefined ? { type: raw } : { type: raw, version: criterion.version };
}

function compile(criterion: Criterion): CompiledCriterion {
  if (criterion === null || typeof criterion !== 'object') refuse('a criterion must be an object with a condition');
  const condition: unknown = criterion.condition;
  if (typeof condition !== 'string' || condition.trim() === '') refuse('criterion: condition is required and must be a non-empty string');
  const { type, version } = normalizeType(criterion);
  let context: RuntimeExpression | undefined;
  if (criterion.context !== undefined) {
    try {
      context = parseRuntimeExpression(criterion.context);
    } catch (error) {
      refuse(`criterion context: ${(error as Error).message}`);
    }
  } else if (type !== 'simple') {
    refuse(`a ${type} criterion needs a context, the runtime expression it applies to (e.g. context: $response.body)`);
  }
  const base = context === undefined ? { condition } : { condition, context };
  switch (type) {
    case 'simple':
      return { ...base, compiled: { type, node: parseSimpleCondition(condition) } };
    case 'regex':
      return { ...base, compiled: { type, regex: compileRegexCondition(condition) } };
    case 'jsonpath': {
      // 'rfc9535' is Arazzo 1.1's name for the default (structure validation keeps it out of 1.0 documents).
      if (version !== undefined && version !== GOESSNER_VERSION && version !== 'rfc9535') refuse(`jsonpath version '${version}' is not supported: use '${GOESSNER_VERSION}' or 'rfc9535' (the default)`);
      return { ...base, compiled: { type, jsonpath: compileJsonPathCondition(condition, version === GOESSNER_VERSION ? 'goessner' : 'rfc9535', criterion.context) } };
    }
    case 'xpath': {
      if (version !== undefined && !(XPATH_VERSIONS as readonly string[]).includes(version)) refuse(`xpath version '${version}' is not supported: use one of ${XPATH_VERSIONS.join(', ')}`);
      compileXPathCondition(condition);
      return { ...base, compiled: { type } };
    }
  }
}

// Criteria are evaluated again on every retry; parse each Criterion object once (a refusal too).
const compiledCache = new WeakMap<Criterion, CompiledCriterion | ArazzoError>();

function compileCached(criterion: Criterion): CompiledCriterion {
  if (criterion === null || typeof criterion !== 'object') return compile(criterion);
  let compiled = compiledCache.get(criterion);
  if (!compiled) {
    try {
      compiled = compile(criterion);
    } catch (error) {
      if (!(error instanceof ArazzoError)) throw error;
      compiled = error;
    }
    compiledCache.set(criterion, compiled);
  }
  if (compiled instanceof ArazzoError) throw compiled;
  return compiled;
}

/**
 * Static check of a criterion: type/version, context expression, and the condition's syntax.
 * @returns the error message, or undefined when the criterion is fine.
 */
export function checkCriterion(criterion: Criterion, embedded = false): string | undefined {
  try {
    // 1.1 conditions with `{$...}` are only complete at run time; their expressions are checked by the validator.
    if (embedded && hasEmbedded(criterion)) {
      normalizeType(criterion);
      if (criterion.context !== undefined) parseRuntimeExpression(criterion.context);
      return undefined;
    }
    compileCached(criterion);
    return undefined;
  } catch (error) {
    if (error instanceof ArazzoError) return error.message;
    throw error;
  }
}

/**
 * Evaluates a criterion. A criterion that does not hold is `{passed: false, message}`; so is one
 * that cannot be evaluated at all (a syntax error, an unsupported type or version: the message
 * says why), as the spec requires. Validation reports those before a run (checkCriterion).
 * @example evaluateCriterion({condition: '$statusCode == 200'}, ctx) // {passed: false, type: 'simple', message: '$statusCode == 200: left was 404', ...}
 */
export function evaluateCriterion(criterion: Criterion, ctx: ExpressionContext, embedded = false): CriterionResult {
  if (embedded && hasEmbedded(criterion)) return evaluateEmbedded(criterion, ctx);
  let compiledCriterion: CompiledCriterion;
  try {
    compiledCriterion = compileCached(criterion);
  } catch (error) {
    if (!(error instanceof ArazzoError)) throw error;
    return invalidCriterion(criterion, error.message);
  }
  const { condition, context, compiled } = compiledCriterion;
  const result: CriterionResult = { passed: false, type: compiled.type, condition };
  if (criterion.context !== undefined) result.context = criterion.context;
  const outcome = run(compiled, condition, context, ctx);
  result.passed = outcome.passed;
  if (!outcome.passed && outcome.message !== undefined) result.message = outcome.message;
  return result;
}

/** A criterion that cannot be evaluated fails, its message saying why. */
function invalidCriterion(criterion: Criterion, message: string): CriterionResult {
  const raw: unknown = criterion !== null && typeof criterion === 'object' ? criterion.type : undefined;
  const named = typeof raw === 'object' && raw !== null ? (raw as { type?: unknown }).type : raw;
  const type: CriterionType = named === 'regex' || named === 'jsonpath' || named === 'xpath' ? named : 'simple';
  const condition = criterion !== null && typeof criterion === 'object' && typeof criterion.condition === 'string' ? criterion.condition : '';
  const result: CriterionResult = { passed: false, type, condition, message };
  if (criterion !== null && typeof criterion === 'object' && criterion.context !== undefined) result.context = criterion.context;
  return result;
}

function run(compiled: Compiled, condition: string, context: RuntimeExpression | undefined, ctx: ExpressionContext): { passed: boolean; message?: string } {
  if (compiled.type === 'simple') return runSimpleCondition(condition, compiled.node, ctx);
  // compile() guarantees a context for the other types.
  const contextExpression = context as RuntimeExpression;
  const value = evaluateRuntimeExpression(contextExpression, ctx);
  if (value === undefined) return { passed: false, message: `${condition}: the context ${contextExpression.text} is absent` };
  switch (compiled.type) {
    case 'regex': {
      const subject = regexSubject(value) as string;
      if (subject.length > MAX_SUBJECT_LENGTH) return { passed: false, message: `${condition}: the context is longer than ${MAX_SUBJECT_LENGTH} characters` };
      compiled.regex.lastIndex = 0;
      return compiled.regex.test(subject) ? { passed: true } : { passed: false, message: `${condition}: no match in ${describeValue(subject)}` };
    }
    case 'jsonpath':
      return runJsonPathCondition(condition, compiled.jsonpath, value);
    case 'xpath':
      return runXPathCondition(condition, value);
  }
}

/** Arazzo 1.1: a regex/jsonpath/xpath condition with `{$...}` inside. */
function hasEmbedded(criterion: Criterion): boolean {
  return criterion !== null && typeof criterion === 'object' && criterion.type !== undefined && criterion.type !== 'simple' && typeof criterion.condition === 'string' && criterion.condition.includes('{$');
}

// Substituted conditions compiled so far (a retry loop substitutes the same text again).
const substituted = new Map<string, CompiledCriterion>();

/**
 * Arazzo 1.1: runtime expressions embedded with `{...}` in a regex, jsonpath or xpath condition are
 * evaluated and substituted as text first (strings as-is, absent as '', other values as JSON);
 * the resulting condition is then compiled and evaluated. A substituted condition that does not
 * compile fails the criterion (the data made it invalid) instead of throwing.
 */
function evaluateEmbedded(criterion: Criterion, ctx: ExpressionContext): CriterionResult {
  const text = resolveValue(criterion.condition, ctx);
  const condition = typeof text === 'string' ? text : JSON.stringify(text);
  const type = normalizeType(criterion);
  const key = `${type.type}\u0000${type.version ?? ''}\u0000${criterion.context ?? ''}\u0000${condition}`;
  let compiled = substituted.get(key);
  const result: CriterionResult = { passed: false, type: type.type, condition: criterion.condition };
  if (criterion.context !== undefined) result.context = criterion.context;
  if (!compiled) {
    try {
      compiled = compile({ ...criterion, condition });
    } catch (error) {
      result.message = `${criterion.condition}: after substitution the condition is ${JSON.stringify(condition)}, which is not valid: ${(error as Error).message}`;
      return result;
    }
    if (substituted.size > 500) substituted.clear();
    substituted.set(key, compiled);
  }
  const outcome = run(compiled.compiled, condition, compiled.context, ctx);
  result.passed = outcome.passed;
  if (!outcome.passed) result.message = `${outcome.message ?? condition} (condition after substitution: ${condition})`;
  return result;
}
