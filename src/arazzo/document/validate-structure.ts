// The shape of an Arazzo 1.0.x document: required fields, types, id patterns, enumerations.
// References between objects are checked in validate-references.ts.

import { type _Report, ID_PATTERN, NAME_PATTERN, isObject, isSelectorObject, type JsonObject } from './_report.js';

type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'any';
interface Field {
  kind: Kind;
  required?: boolean;
  /** Added in Arazzo 1.1: an error in a 1.0.x document. */
  v11?: boolean;
}
type Fields = Record<string, Field>;

const str: Field = { kind: 'string' };
const reqStr: Field = { kind: 'string', required: true };

const ROOT: Fields = {
  arazzo: reqStr,
  $self: { kind: 'string', v11: true },
  info: { kind: 'object', required: true },
  sourceDescriptions: { kind: 'array', required: true },
  workflows: { kind: 'array', required: true },
  components: { kind: 'object' },
};
const INFO: Fields = { title: reqStr, summary: str, description: str, version: reqStr };
const SOURCE: Fields = { name: reqStr, url: reqStr, type: str };
const WORKFLOW: Fields = {
  workflowId: reqStr,
  summary: str,
  description: str,
  inputs: { kind: 'any' },
  dependsOn: { kind: 'array' },
  steps: { kind: 'array', required: true },
  successActions: { kind: 'array' },
  failureActions: { kind: 'array' },
  outputs: { kind: 'object' },
  parameters: { kind: 'array' },
};
const STEP: Fields = {
  stepId: reqStr,
  description: str,
  operationId: str,
  operationPath: str,
  workflowId: str,
  parameters: { kind: 'array' },
  requestBody: { kind: 'object' },
  successCriteria: { kind: 'array' },
  onSuccess: { kind: 'array' },
  onFailure: { kind: 'array' },
  outputs: { kind: 'object' },
  channelPath: { kind: 'string', v11: true },
  action: { kind: 'string', v11: true },
  correlationId: { kind: 'any', v11: true },
  timeout: { kind: 'integer', v11: true },
  dependsOn: { kind: 'array', v11: true },
};
const PARAMETER: Fields = { name: reqStr, in: str, value: { kind: 'any', required: true } };
const REUSABLE: Fields = { reference: reqStr, value: { kind: 'any' } };
const SUCCESS_ACTION: Fields = { name: reqStr, type: reqStr, workflowId: str, stepId: str, criteria: { kind: 'array' }, parameters: { kind: 'array', v11: true } };
const FAILURE_ACTION: Fields = { ...SUCCESS_ACTION, retryAfter: { kind: 'number' }, retryLimit: { kind: 'integer' } };
const CRITERION: Fields = { context: str, condition: reqStr, type: { kind: 'any' }, version: str };
const EXPRESSION_TYPE: Fields = { type: reqStr, version: reqStr };
const REQUEST_BODY: Fields = { contentType: str, payload: { kind: 'any' }, replacements: { kind: 'array' } };
const REPLACEMENT: Fields = { target: reqStr, targetSelectorType: { kind: 'any', v11: true }, value: { kind: 'any', required: true } };
const SELECTOR: Fields = { context: reqStr, selector: reqStr, type: { kind: 'any', required: true } };
const COMPONENTS: Fields = {
  inputs: { kind: 'object' },
  parameters: { kind: 'object' },
  successActions: { kind: 'object' },
  failureActions: { kind: 'object' },
};

const PARAMETER_LOCATIONS = ['path', 'query', 'header', 'cookie'];
const PARAMETER_LOCATIONS_11 = ['path', 'query', 'querystring', 'header', 'cookie'];
const CRITERION_TYPES = ['simple', 'regex', 'jsonpath', 'xpath'];
/** Versions of the Criterion Expression Type Object (as the criteria module accepts them; `xpath-31` is the default). */
export const EXPRESSION_TYPE_VERSIONS: Record<string, string[]> = {
  jsonpath: ['draft-goessner-dispatch-jsonpath-00'],
  xpath: ['xpath-10', 'xpath-20', 'xpath-30', 'xpath-31'],
};
/** Arazzo 1.1's Expression Type Object: RFC 9535 JSONPath by name, and JSON Pointer (selectors and replacement targets). */
export const EXPRESSION_TYPE_VERSIONS_11: Record<string, string[]> = {
  jsonpath: ['rfc9535', 'draft-goessner-dispatch-jsonpath-00'],
  xpath: ['xpath-10', 'xpath-20', 'xpath-30', 'xpath-31'],
  jsonpointer: ['rfc6901'],
};

export function validateStructure(root: unknown, r: _Report): void {
  const doc = checkObject(r, root, '', 'the Arazzo document', ROOT);
  if (!doc) return;
  const version = doc['arazzo'];
  if (typeof version === 'string' && !/^1\.[01]\.\d+(-.+)?$/.test(version)) {
    r.error('unsupported-version', '/arazzo', `arazzo: "${version}" is not supported; this tool reads Arazzo 1.0.x and 1.1.x documents (write e.g. arazzo: 1.1.0)`);
  }
  const self = doc['$self'];
  if (typeof self === 'string' && r.v11) {
    if (self.includes('#')) r.error('invalid-value', '/$self', `$self "${self}" must not contain a fragment (#...); remove it`);
    else if (!isUriReference(self)) r.error('invalid-value', '/$self', `$self "${self}" is not a URI-reference (RFC 3986); percent-encode spaces and other special characters`);
  }
  checkObject(r, doc['info'], '/info', 'info', INFO);
  eachItem(r, doc['sourceDescriptions'], '/sourceDescriptions', 'sourceDescriptions', true, (item, p) => checkSource(r, item, p));
  eachItem(r, doc['workflows'], '/workflows', 'workflows', true, (item, p) => checkWorkflow(r, item, p));
  const components = checkObject(r, doc['components'], '/components', 'components', COMPONENTS);
  if (components) checkComponents(r, components);
}

function checkSource(r: _Report, value: unknown, p: string): void {
  const source = checkObject(r, value, p, 'sourceDescription', SOURCE);
  if (!source) return;
  checkId(r, source['name'], `${p}/name`, 'sourceDescription name');
  const type = source['type'];
  if (type === 'asyncapi' && !r.v11) r.needs11(`${p}/type`, 'sourceDescription type "asyncapi"');
  else if (typeof type === 'string' && type !== 'openapi' && type !== 'arazzo' && type !== 'asyncapi') {
    r.error('invalid-value', `${p}/type`, `sourceDescription type "${type}" is not allowed; use "openapi", ${r.v11 ? '"asyncapi" ' : ''}or "arazzo"`);
  }
}

function checkWorkflow(r: _Report, value: unknown, p: string): void {
  const workflow = checkObject(r, value, p, 'workflow', WORKFLOW);
  if (!workflow) return;
  checkId(r, workflow['workflowId'], `${p}/workflowId`, 'workflowId');
  const inputs = workflow['inputs'];
  if (inputs !== undefined && !isObject(inputs) && typeof inputs !== 'boolean') {
    r.error('wrong-type', `${p}/inputs`, 'workflow inputs must be a JSON Schema object (e.g. {type: object, properties: {...}})');
  }
  eachItem(r, workflow['dependsOn'], `${p}/dependsOn`, 'dependsOn', false, (item, ip) => {
    if (typeof item !== 'string') r.error('wrong-type', ip, 'dependsOn entries must be workflowId strings');
  });
  checkUnique(r, workflow['dependsOn'], `${p}/dependsOn`, 'dependsOn');
  eachItem(r, workflow['steps'], `${p}/steps`, 'steps', true, (item, ip) => checkStep(r, item, ip));
  eachItem(r, workflow['successActions'], `${p}/successActions`, 'successActions', false, (item, ip) => checkAction(r, item, ip, 'success'));
  eachItem(r, workflow['failureActions'], `${p}/failureActions`, 'failureActions', false, (item, ip) => checkAction(r, item, ip, 'failure'));
  checkOutputs(r, workflow['outputs'], `${p}/outputs`);
  eachItem(r, workflow['parameters'], `${p}/parameters`, 'parameters', false, (item, ip) => checkParameter(r, item, ip, false));
}

function checkStep(r: _Report, value: unknown, p: string): void {
  const step = checkObject(r, value, p, 'step', STEP);
  if (!step) return;
  checkId(r, step['stepId'], `${p}/stepId`, 'stepId');
  const fields = r.v11 ? ['operationId', 'operationPath', 'channelPath', 'workflowId'] : ['operationId', 'operationPath', 'workflowId'];
  const targets = fields.filter((k) => step[k] !== undefined);
  if (targets.length !== 1) {
    const which = targets.length === 0 ? 'none of them' : targets.join(' and ');
    r.error('operation-choice', targets.length === 0 ? p : `${p}/${targets[1]}`, `a step needs exactly one of ${fields.slice(0, -1).join(', ')} or workflowId (this one has ${which}); keep one`);
  }
  if (r.v11) checkStep11(r, step, p);
  const callsOperation = step['workflowId'] === undefined;
  eachItem(r, step['parameters'], `${p}/parameters`, 'parameters', false, (item, ip) => checkParameter(r, item, ip, callsOperation));
  const body = checkObject(r, step['requestBody'], `${p}/requestBody`, 'requestBody', REQUEST_BODY);
  if (body) {
    if (!callsOperation) r.warn('ignored-field', `${p}/requestBody`, 'requestBody has no effect on a step that calls a workflow; pass values as parameters instead');
    if (r.v11) checkSelectorsIn(r, body['payload'], `${p}/requestBody/payload`);
    eachItem(r, body['replacements'], `${p}/requestBody/replacements`, 'replacements', false, (item, ip) => {
      const replacement = checkObject(r, item, ip, 'replacement', REPLACEMENT);
      if (!replacement || !r.v11) return;
      if (replacement['targetSelectorType'] !== undefined) checkExpressionType(r, replacement['targetSelectorType'], `${ip}/targetSelectorType`, 'targetSelectorType');
      checkSelectorsIn(r, replacement['value'], `${ip}/value`);
    });
  }
  eachItem(r, step['successCriteria'], `${p}/successCriteria`, 'successCriteria', true, (item, ip) => checkCriterion(r, item, ip));
  eachItem(r, step['onSuccess'], `${p}/onSuccess`, 'onSuccess', false, (item, ip) => checkAction(r, item, ip, 'success'));
  eachItem(r, step['onFailure'], `${p}/onFailure`, 'onFailure', false, (item, ip) => checkAction(r, item, ip, 'failure'));
  checkOutputs(r, step['outputs'], `${p}/outputs`);
}

/** A parameter or a Reusable Object pointing at one. `in` is required when the step calls an operation. */
function checkParameter(r: _Report, value: unknown, p: string, needsIn: boolean): void {
  if (isObject(value) && 'reference' in value) {
    checkReusable(r, value, p);
    return;
  }
  const parameter = checkObject(r, value, p, 'parameter', PARAMETER);
  if (!parameter) return;
  const where = parameter['in'];
  const locations = r.v11 ? PARAMETER_LOCATIONS_11 : PARAMETER_LOCATIONS;
  if (r.v11) checkSelectorsIn(r, parameter['value'], `${p}/value`);
  if (where === 'querystring' && !r.v11) {
    r.needs11(`${p}/in`, 'parameter in: querystring');
  } else if (typeof where === 'string' && !locations.includes(where)) {
    r.error('invalid-value', `${p}/in`, `parameter in: "${where}" is not allowed; use one of ${locations.join(', ')}`);
  } else if (where === undefined && needsIn) {
    r.error('missing-field', `${p}/in`, `parameter "${String(parameter['name'])}" needs "in" (path, query, header or cookie) because the step calls an operation`);
  }
}

function checkReusable(r: _Report, value: JsonObject, p: string): void {
  for (const key of Object.keys(value)) {
    // The spec says extra fields on a Reusable Object MUST be ignored: say so, but do not refuse.
    if (!(key in REUSABLE)) r.warn('unknown-field', `${p}/${escapeToken(key)}`, `"${key}" is ignored on a reusable object (only reference and value are read)`);
  }
  if (typeof value['reference'] !== 'string') r.error('wrong-type', `${p}/reference`, 'reference must be a string such as $components.parameters.name');
}

function checkAction(r: _Report, value: unknown, p: string, kind: 'success' | 'failure'): void {
  if (isObject(value) && 'reference' in value) {
    checkReusable(r, value, p);
    return;
  }
  checkActionObject(r, value, p, kind);
}

function checkActionObject(r: _Report, value: unknown, p: string, kind: 'success' | 'failure'): void {
  const action = checkObject(r, value, p, `${kind} action`, kind === 'success' ? SUCCESS_ACTION : FAILURE_ACTION);
  if (!action) return;
  const type = action['type'];
  const types = kind === 'success' ? ['end', 'goto'] : ['end', 'goto', 'retry'];
  if (typeof type === 'string' && !types.includes(type)) {
    const hint = kind === 'success' && type === 'retry' ? ' (retry is only a failure action)' : '';
    r.error('invalid-value', `${p}/type`, `${kind} action type "${type}" is not allowed${hint}; use ${types.join(' or ')}`);
  }
  const hasStep = action['stepId'] !== undefined;
  const hasWorkflow = action['workflowId'] !== undefined;
  if (type === 'goto' && hasStep === hasWorkflow) {
    r.error('goto-target', p, `goto action "${String(action['name'])}" needs exactly one of stepId or workflowId`);
  } else if (type === 'retry' && hasStep && hasWorkflow) {
    r.error('goto-target', p, `retry action "${String(action['name'])}" may name a stepId or a workflowId, not both`);
  } else if (type === 'end' && (hasStep || hasWorkflow)) {
    r.warn('ignored-field', `${p}/${hasStep ? 'stepId' : 'workflowId'}`, `an end action ignores ${hasStep ? 'stepId' : 'workflowId'}; remove it or use type goto`);
  }
  for (const field of ['retryAfter', 'retryLimit']) {
    const n = action[field];
    if (n === undefined) continue;
    if (typeof n === 'number' && n < 0) r.error('invalid-value', `${p}/${field}`, `${field} must be 0 or more (got ${n})`);
    if (type !== 'retry' && typeof type === 'string') r.warn('ignored-field', `${p}/${field}`, `${field} only applies to retry actions; remove it or use type retry`);
  }
  eachItem(r, action['criteria'], `${p}/criteria`, 'criteria', kind === 'success', (item, ip) => checkCriterion(r, item, ip));
  if (action['parameters'] !== undefined && r.v11) {
    // 1.1: parameters are the inputs of the workflow a goto/retry calls; they have no `in`.
    if (!hasWorkflow) r.error('ignored-field', `${p}/parameters`, `action "${String(action['name'])}" has parameters but no workflowId; parameters are inputs of the workflow an action calls`);
    eachItem(r, action['parameters'], `${p}/parameters`, 'parameters', false, (item, ip) => {
      checkParameter(r, item, ip, false);
      if (isObject(item) && item['in'] !== undefined) r.error('invalid-value', `${ip}/in`, 'parameters of an action become workflow inputs: "in" must not be used; remove it');
    });
  }
}

function checkCriterion(r: _Report, value: unknown, p: string): void {
  const criterion = checkObject(r, value, p, 'criterion', CRITERION);
  if (!criterion) return;
  const type = criterion['type'];
  let kind: string | undefined;
  if (typeof type === 'string') {
    kind = type;
    if (!CRITERION_TYPES.includes(type)) {
      r.error('invalid-value', `${p}/type`, `criterion type "${type}" is not allowed; use simple, regex, jsonpath or xpath`);
      return;
    }
    // Tolerated flattened form of the expression type object: `type: xpath` + `version: xpath-30`.
    if (criterion['version'] !== undefined && type in EXPRESSION_TYPE_VERSIONS) checkExpressionVersion(r, type, criterion['version'], `${p}/version`);
  } else if (isObject(type)) {
    const expressionType = checkObject(r, type, `${p}/type`, 'criterion expression type', EXPRESSION_TYPE);
    kind = typeof expressionType?.['type'] === 'string' ? expressionType['type'] : undefined;
    if (kind !== undefined && !(kind in EXPRESSION_TYPE_VERSIONS)) {
      r.error('invalid-value', `${p}/type/type`, `criterion expression type "${kind}" is not allowed; use jsonpath or xpath`);
      return;
    }
    if (kind !== undefined && expressionType?.['version'] !== undefined) checkExpressionVersion(r, kind, expressionType['version'], `${p}/type/version`);
  } else if (type !== undefined) {
    r.error('wrong-type', `${p}/type`, 'criterion type must be a string (simple, regex, jsonpath, xpath) or {type, version}');
  }
  if (criterion['version'] !== undefined && !(typeof type === 'string' && type in EXPRESSION_TYPE_VERSIONS)) {
    r.error('unknown-field', `${p}/version`, 'version belongs with type jsonpath or xpath; write type: {type: jsonpath, version: ...}');
  }
  if (kind !== undefined && kind !== 'simple' && criterion['context'] === undefined) {
    r.error('missing-field', `${p}/context`, `a ${kind} criterion needs a context (e.g. context: $response.body)`);
  }
}

function checkExpressionVersion(r: _Report, type: string, version: unknown, p: string): void {
  const allowed = (r.v11 ? EXPRESSION_TYPE_VERSIONS_11 : EXPRESSION_TYPE_VERSIONS)[type];
  if (!r.v11 && version === 'rfc9535' && type === 'jsonpath') {
    r.needs11(p, 'jsonpath version "rfc9535"');
    return;
  }
  if (!allowed) {
    r.error('invalid-value', p, `a version can only be given for jsonpath or xpath criteria, not ${type}`);
  } else if (typeof version !== 'string' || !allowed.includes(version)) {
    r.error('invalid-value', p, `${type} version "${String(version)}" is not known; use one of ${allowed.join(', ')}`);
  }
}

function checkOutputs(r: _Report, value: unknown, p: string): void {
  if (!isObject(value)) return;
  for (const [name, expression] of Object.entries(value)) {
    const ip = `${p}/${escapeToken(name)}`;
    if (!NAME_PATTERN.test(name)) r.error('invalid-name', ip, `output name "${name}" must match ^[a-zA-Z0-9.\\-_]+$; rename it`);
    if (r.v11 && isSelectorObject(expression)) checkSelector(r, expression, ip);
    else if (typeof expression !== 'string') r.error('wrong-type', ip, `output "${name}" must be a runtime expression string such as $response.body#/id${r.v11 ? ' or a Selector Object {context, selector, type}' : ''}`);
  }
}

function checkComponents(r: _Report, components: JsonObject): void {
  for (const group of Object.keys(COMPONENTS)) {
    const entries = components[group];
    if (!isObject(entries)) continue;
    for (const [key, entry] of Object.entries(entries)) {
      const p = `/components/${group}/${escapeToken(key)}`;
      if (!NAME_PATTERN.test(key)) r.error('invalid-name', p, `component key "${key}" must match ^[a-zA-Z0-9.\\-_]+$; rename it`);
      if (group === 'parameters') checkParameter(r, entry, p, false);
      else if (group === 'successActions') checkActionObject(r, entry, p, 'success');
      else if (group === 'failureActions') checkActionObject(r, entry, p, 'failure');
      else if (!isObject(entry) && typeof entry !== 'boolean') r.error('wrong-type', p, `components.inputs.${key} must be a JSON Schema object`);
    }
  }
}

/**
 * The spec says ids SHOULD match `[A-Za-z0-9_-]+`: a document that does not is still valid and
 * runs (expressions naming such ids still resolve), so this is a warning.
 */
function checkId(r: _Report, id: unknown, p: string, what: string): void {
  if (id === '') r.error('invalid-id', p, `${what} is empty; give it a name of letters, digits, _ and -`);
  else if (typeof id === 'string' && !ID_PATTERN.test(id)) {
    r.warn('id-pattern', p, `${what} "${id}" does not match [A-Za-z0-9_-]+, as the spec recommends (SHOULD): it works here, but other tools may not read expressions that name it; rename it to letters, digits, _ and -`);
  }
}

/** Type-checks an object's fields; reports missing, mistyped and unknown ones. `x-` extensions are allowed. */
function checkObject(r: _Report, value: unknown, p: string, what: string, fields: Fields): JsonObject | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) {
    r.error('wrong-type', p, `${what} must be an object`);
    return undefined;
  }
  for (const [name, field] of Object.entries(fields)) {
    const v = value[name];
    if (v === undefined) {
      if (field.required) r.error('missing-field', `${p}/${name}`, `${what} is missing the required field "${name}"`);
    } else if (field.v11 && !r.v11) {
      r.needs11(`${p}/${escapeToken(name)}`, `${what} field "${name}"`);
    } else if (!hasKind(v, field.kind)) {
      r.error('wrong-type', `${p}/${name}`, `${what} field "${name}" must be ${article(field.kind)}, not ${describe(v)}`);
    }
  }
  for (const key of Object.keys(value)) {
    if (!(key in fields) && !key.startsWith('x-')) {
      r.error('unknown-field', `${p}/${escapeToken(key)}`, `${what} has an unknown field "${key}"; remove it, check its spelling, or prefix it with x- for an extension`);
    }
  }
  return value;
}

function eachItem(r: _Report, value: unknown, p: string, what: string, nonEmpty: boolean, check: (item: unknown, p: string) => void): void {
  if (!Array.isArray(value)) return;
  if (nonEmpty && value.length === 0) r.error('empty-list', p, `${what} must list at least one entry`);
  value.forEach((item, i) => { check(item, `${p}/${i}`); });
}

function hasKind(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'any':
      return true;
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isObject(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    default:
      return typeof v === kind;
  }
}

function article(kind: Kind): string {
  return kind === 'integer' || kind === 'object' || kind === 'array' ? `an ${kind}` : `a ${kind}`;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`;
}

export function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

const STEP_ACTIONS = ['send', 'receive'];

/** Arazzo 1.1 step fields that only make sense together: action/correlationId/timeout and the AsyncAPI target. */
function checkStep11(r: _Report, step: JsonObject, p: string): void {
  const action = step['action'];
  if (typeof action === 'string' && !STEP_ACTIONS.includes(action)) {
    r.error('invalid-value', `${p}/action`, `step action "${action}" is not allowed; use send or receive`);
  }
  if (step['channelPath'] !== undefined && action === undefined) {
    r.error('missing-field', `${p}/action`, 'a step with channelPath needs action: send or receive (the workflow\'s side of the channel)');
  }
  if (step['correlationId'] !== undefined && action !== 'receive') {
    r.error('ignored-field', `${p}/correlationId`, 'correlationId only applies to steps with action: receive; remove it or make the step receive');
  }
  if (action !== undefined && step['workflowId'] !== undefined) {
    r.error('ignored-field', `${p}/action`, 'action only applies to AsyncAPI steps (operationId, operationPath or channelPath), not to a step that calls a workflow');
  }
  const timeout = step['timeout'];
  if (typeof timeout === 'number' && timeout < 0) r.error('invalid-value', `${p}/timeout`, `timeout is milliseconds and must be 0 or more (got ${timeout})`);
  // The official 1.1 schema: minItems 1 (a step with no prerequisites leaves dependsOn out), uniqueItems.
  if (r.v11 && Array.isArray(step['dependsOn']) && step['dependsOn'].length === 0) {
    r.error('empty-list', `${p}/dependsOn`, 'dependsOn must list at least one step; a step with no prerequisites leaves dependsOn out (another step\'s dependsOn already makes the workflow run by dependencies)');
  }
  eachItem(r, step['dependsOn'], `${p}/dependsOn`, 'dependsOn', false, (item, ip) => {
    if (typeof item !== 'string') r.error('wrong-type', ip, 'step dependsOn entries must be stepIds (or $workflows.<id>.steps.<stepId>)');
  });
  checkUnique(r, step['dependsOn'], `${p}/dependsOn`, 'dependsOn');
}

/** `uniqueItems` for lists of strings: each repeat is an error at its position. */
function checkUnique(r: _Report, value: unknown, p: string, what: string): void {
  if (!Array.isArray(value)) return;
  const first = new Map<unknown, number>();
  value.forEach((item, i) => {
    if (typeof item !== 'string') return;
    const at = first.get(item);
    if (at === undefined) first.set(item, i);
    else r.error('duplicate-dependency', `${p}/${i}`, `${what} lists "${item}" twice (entries ${at} and ${i}); entries must be unique: remove this one`);
  });
}

/** Selector Objects inside a value (parameter value, payload, replacement value), 1.1 only. */
function checkSelectorsIn(r: _Report, value: unknown, p: string, depth = 0): void {
  if (depth > 32) return;
  if (isSelectorObject(value)) {
    checkSelector(r, value as unknown as JsonObject, p);
    return;
  }
  if (Array.isArray(value)) value.forEach((v, i) => { checkSelectorsIn(r, v, `${p}/${i}`, depth + 1); });
  else if (isObject(value)) for (const [k, v] of Object.entries(value)) checkSelectorsIn(r, v, `${p}/${escapeToken(k)}`, depth + 1);
}

function checkSelector(r: _Report, value: unknown, p: string): void {
  const selector = checkObject(r, value, p, 'selector', SELECTOR);
  if (!selector) return;
  checkExpressionType(r, selector['type'], `${p}/type`, 'selector type');
}

/** `jsonpath | xpath | jsonpointer` or `{type, version}` (Arazzo 1.1 Expression Type Object). */
function checkExpressionType(r: _Report, type: unknown, p: string, what: string): void {
  if (typeof type === 'string') {
    if (!(type in EXPRESSION_TYPE_VERSIONS_11)) r.error('invalid-value', p, `${what} "${type}" is not allowed; use jsonpath, xpath or jsonpointer`);
    return;
  }
  const expressionType = checkObject(r, type, p, what, EXPRESSION_TYPE);
  if (!expressionType) return;
  const kind = expressionType['type'];
  if (typeof kind !== 'string' || !(kind in EXPRESSION_TYPE_VERSIONS_11)) {
    r.error('invalid-value', `${p}/type`, `${what} "${String(kind)}" is not allowed; use jsonpath, xpath or jsonpointer`);
    return;
  }
  checkExpressionVersion(r, kind, expressionType['version'], `${p}/version`);
}

/** RFC 3986 URI-reference characters (unreserved, reserved, percent-escapes). */
function isUriReference(text: string): boolean {
  return /^([A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/.test(text);
}
