// Runtime expressions and criteria: their syntax (via the expression and criteria parsers) and
// what they point at ($steps / $workflows / $outputs / $components / $sourceDescriptions / $inputs).

import { type RuntimeExpression, findExpressions, findInvalidExpressions, parseRuntimeExpression, scanRuntimeExpression } from '../expressions/index.js';
import { checkCriterion } from '../criteria/index.js';
import type { Criterion } from '../types.js';
import { lookupComponent, type _DocumentIndex, type _WorkflowEntry } from './_index.js';
import { type _Report, asArray, asObject, isDefinedName, isObject } from './_report.js';
import { escapeToken } from './validate-structure.js';

interface Scope {
  index: _DocumentIndex;
  r: _Report;
  workflow?: _WorkflowEntry;
  /** Index of the step the expression belongs to; undefined for workflow-level values. */
  stepIndex?: number;
  /** The step receives a message (1.1 `action: receive`): `$message` is readable there. */
  receive?: boolean;
  /** 1.1: the workflow uses step dependsOn, so a later step's outputs are an implicit dependency, not an error. */
  concurrent?: boolean;
  /** What `$outputs.<name>` reads where the expression is written (see outputsMeaning). */
  outputs?: OutputsMeaning;
  /** The value is evaluated in a step that calls a workflow: no request, so no $statusCode, $response, ... */
  noExchange?: boolean;
}

/**
 * `$outputs` has a value only where outputs exist: in a workflow's outputs, those written before
 * (they are evaluated in order, when the workflow ends); in the outputs, criteria and actions of
 * a step that calls a workflow, that workflow's outputs (as the OAI's own examples use it);
 * anywhere else in a workflow, never (its outputs do not exist while its steps run).
 */
type OutputsMeaning =
  | { kind: 'earlier'; names: string[] }
  | { kind: 'callee'; workflowId: string; names: string[] | undefined }
  | { kind: 'none'; why: string };

const NO_OUTPUTS_YET = "a workflow's outputs ($outputs) are evaluated when it ends, after its steps; read the step output the value comes from ($steps.<stepId>.outputs.<name>)";

/** The workflow a step calls, when it is one of this document's (an arazzo source's are not known here). */
function calleeOf(index: _DocumentIndex, step: Record<string, unknown>): { workflowId: string; names: string[] | undefined } | undefined {
  const ref = step['workflowId'];
  if (typeof ref !== 'string') return undefined;
  return { workflowId: ref, names: ref.startsWith('$') ? undefined : index.workflows.get(ref)?.outputs };
}

export function validateExpressions(index: _DocumentIndex, r: _Report): void {
  for (const workflow of index.workflows.values()) {
    const w = workflow.value;
    const p = workflow.pointer;
    const steps = asArray(w['steps']).map(asObject);
    const scope: Scope = { index, r, workflow, concurrent: steps.some((s) => s?.['dependsOn'] !== undefined) };
    const none: OutputsMeaning = { kind: 'none', why: NO_OUTPUTS_YET };
    checkParameters({ ...scope, outputs: none }, w['parameters'], `${p}/parameters`);
    // Workflow-level actions also follow steps that call workflows, where $outputs is the callee's.
    const callees = steps.flatMap((s) => (s ? [calleeOf(index, s)] : [])).filter((c) => c !== undefined);
    const actionOutputs: OutputsMeaning = callees.length === 0 ? none : callees.some((c) => c.names === undefined) ? { kind: 'callee', workflowId: callees[0]!.workflowId, names: undefined } : { kind: 'callee', workflowId: callees.map((c) => c.workflowId).join('", "'), names: callees.flatMap((c) => c.names ?? []) };
    checkActions({ ...scope, outputs: actionOutputs }, w['successActions'], `${p}/successActions`);
    checkActions({ ...scope, outputs: actionOutputs }, w['failureActions'], `${p}/failureActions`);
    checkOutputs(scope, w['outputs'], `${p}/outputs`, true);
    steps.forEach((step, j) => {
      if (!step) return;
      const sp = `${p}/steps/${j}`;
      const callee = calleeOf(index, step);
      const stepScope: Scope = { ...scope, stepIndex: j, receive: step['action'] === 'receive', outputs: none, ...(callee ? { noExchange: true } : {}) };
      // A step's parameters are evaluated before the workflow it calls runs.
      checkParameters(callee ? { ...stepScope, outputs: { kind: 'none', why: "this step's parameters are evaluated before the workflow it calls runs; $outputs means that workflow's outputs only in the step's outputs, criteria and actions" } } : stepScope, step['parameters'], `${sp}/parameters`);
      const body = asObject(step['requestBody']);
      if (body) {
        checkValue(stepScope, body['payload'], `${sp}/requestBody/payload`);
        asArray(body['replacements']).forEach((rep, k) => { checkValue(stepScope, asObject(rep)?.['value'], `${sp}/requestBody/replacements/${k}/value`); });
      }
      const after: Scope = callee ? { ...stepScope, outputs: { kind: 'callee', ...callee } } : stepScope;
      checkCriteria(after, step['successCriteria'], `${sp}/successCriteria`);
      checkActions(after, step['onSuccess'], `${sp}/onSuccess`);
      checkActions(after, step['onFailure'], `${sp}/onFailure`);
      checkOutputs(after, step['outputs'], `${sp}/outputs`);
    });
  }
  // Components are checked without a workflow: $steps and $outputs cannot be judged there.
  const components = index.components;
  const bare: Scope = { index, r };
  for (const [key, parameter] of Object.entries(asObject(components['parameters']) ?? {})) {
    checkValue(bare, asObject(parameter)?.['value'], `/components/parameters/${escapeToken(key)}/value`);
  }
  for (const group of ['successActions', 'failureActions']) {
    for (const [key, action] of Object.entries(asObject(components[group]) ?? {})) {
      checkCriteria(bare, asObject(action)?.['criteria'], `/components/${group}/${escapeToken(key)}/criteria`);
    }
  }
}

function checkParameters(scope: Scope, list: unknown, p: string): void {
  asArray(list).forEach((item, i) => { checkValue(scope, asObject(item)?.['value'], `${p}/${i}/value`); });
}

function checkActions(scope: Scope, list: unknown, p: string): void {
  asArray(list).forEach((item, i) => { checkCriteria(scope, asObject(item)?.['criteria'], `${p}/${i}/criteria`); });
}

function checkOutputs(scope: Scope, outputs: unknown, p: string, workflowLevel = false): void {
  const written: string[] = [];
  for (const [name, value] of Object.entries(asObject(outputs) ?? {})) {
    // A workflow's outputs see the ones written before them.
    if (workflowLevel) scope = { ...scope, outputs: { kind: 'earlier', names: [...written] } };
    written.push(name);
    if (isObject(value) && typeof value['context'] === 'string') checkExpression(scope, value['context'], `${p}/${escapeToken(name)}/context`);
    if (typeof value !== 'string') continue;
    const op = `${p}/${escapeToken(name)}`;
    if (expressionsIn(value).length === 0) {
      scope.r.warn('not-an-expression', op, `output "${name}" is the literal string "${value}", not a runtime expression; write e.g. $response.body#/id`);
    }
    checkValue(scope, value, op);
  }
}

function checkCriteria(scope: Scope, list: unknown, p: string): void {
  asArray(list).forEach((item, i) => {
    const criterion = asObject(item);
    if (!criterion || typeof criterion['condition'] !== 'string') return;
    const cp = `${p}/${i}`;
    const context = criterion['context'];
    if (typeof context === 'string') checkExpression(scope, context, `${cp}/context`);
    let problem: string | undefined;
    // The structure checks already said what is wrong with type/context: do not repeat it.
    if (!scope.r.hasErrorUnder(cp)) {
      try {
        problem = checkCriterion(criterion as unknown as Criterion, scope.r.v11);
      } catch (err) {
        problem = err instanceof Error ? err.message : String(err);
      }
    }
    if (problem !== undefined) scope.r.error('invalid-criterion', `${cp}/condition`, `condition "${criterion['condition']}" is not valid: ${problem}`);
    const type = criterion['type'];
    if (type === undefined || type === 'simple') {
      // References inside a simple condition are checked too, so a typo in $steps.x fails validation.
      for (const ast of scanCondition(criterion['condition'])) checkTarget(scope, ast, `${cp}/condition`);
    } else if (scope.r.v11) {
      // 1.1: `{$...}` in regex/jsonpath/xpath conditions is substituted before evaluation.
      checkValue(scope, criterion['condition'], `${cp}/condition`);
    }
  });
}

/** Every runtime expression in a value, at any depth. */
function checkValue(scope: Scope, value: unknown, p: string): void {
  if (typeof value === 'string') {
    for (const error of findInvalidExpressions(value)) scope.r.error('invalid-expression', p, `${error.message}; fix the expression (write $$ for a literal $ at the start of a string)`);
    for (const text of expressionsIn(value)) checkExpression(scope, text, p, true);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => { checkValue(scope, v, `${p}/${i}`); });
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) checkValue(scope, v, `${p}/${escapeToken(k)}`);
  }
}

function expressionsIn(text: string): string[] {
  try {
    return findExpressions(text);
  } catch {
    return [];
  }
}

function checkExpression(scope: Scope, text: string, p: string, quietSyntax = false): void {
  let ast: RuntimeExpression;
  try {
    ast = parseRuntimeExpression(text);
  } catch (err) {
    // Syntax inside a simple condition is the criteria parser's to report.
    if (!quietSyntax) scope.r.error('invalid-expression', p, `"${text}" is not a valid runtime expression: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  checkTarget(scope, ast, p);
}

function checkTarget(scope: Scope, ast: RuntimeExpression, p: string): void {
  const { index, r, workflow } = scope;
  if (scope.noExchange && EXCHANGE_ROOTS.has(ast.root)) {
    r.warn('no-value', p, `${ast.text} has no value in a step that calls a workflow (it sends no request of its own): a criterion on it always fails and an output from it is always absent; test or map the called workflow's outputs ($outputs.<name>) instead`);
    return;
  }
  switch (ast.root) {
    case 'steps': {
      if (!workflow) return;
      const at = workflow.steps.get(ast.stepId);
      if (at === undefined) {
        r.error('unknown-step', p, `${ast.text} names step "${ast.stepId}", which is not in workflow "${workflow.id}" (steps: ${[...workflow.steps.keys()].join(', ')})`);
        return;
      }
      if (ast.field !== 'outputs') {
        r.error('invalid-expression', p, `${ast.text}: steps expose only outputs; write $steps.${ast.stepId}.outputs.<name>`);
        return;
      }
      const target = asObject(asArray(workflow.value['steps'])[at]) ?? {};
      // A step that calls a workflow and maps no outputs of its own has that workflow's outputs.
      const callee = target['outputs'] === undefined ? calleeOf(index, target) : undefined;
      const outputs = callee ? callee.names : Object.keys(asObject(target['outputs']) ?? {});
      if (outputs !== undefined && ast.name !== undefined && !isDefinedName(ast.name, outputs)) {
        r.error('unknown-output', p, `${ast.text} reads output "${ast.name}", which step "${ast.stepId}" never defines (its outputs: ${outputs.join(', ') || 'none'}); add it to the step's outputs`);
      } else if (scope.stepIndex !== undefined && at > scope.stepIndex && !scope.concurrent) {
        if (r.v11) {
          // 1.1: a workflow without dependsOn runs in order, so a forward reference cannot be satisfied.
          r.error('forward-reference', p, `${ast.text} reads step "${ast.stepId}", which comes later in this sequential workflow; move "${ast.stepId}" before this step, or declare dependsOn to let the order follow the references`);
        } else {
          // Only a warning: a goto can make a later step run first.
          r.warn('step-not-yet-run', p, `${ast.text} reads step "${ast.stepId}", which comes after this step; its outputs are not known yet on the first pass`);
        }
      }
      return;
    }
    case 'workflows': {
      const target = index.workflows.get(ast.workflowId);
      if (!target) {
        r.error('unknown-workflow', p, `${ast.text} names workflow "${ast.workflowId}", which is not in this document (workflows: ${[...index.workflows.keys()].join(', ')})`);
      } else if (ast.field === 'outputs' && ast.name !== undefined && !isDefinedName(ast.name, target.outputs)) {
        r.error('unknown-output', p, `${ast.text} reads output "${ast.name}", which workflow "${ast.workflowId}" never defines (its outputs: ${target.outputs.join(', ') || 'none'})`);
      } else if (ast.field !== 'outputs' && ast.field !== 'inputs') {
        r.error('invalid-expression', p, `${ast.text}: workflows expose inputs and outputs; write $workflows.${ast.workflowId}.outputs.<name>`);
      }
      return;
    }
    case 'outputs':
      checkOutputsReference(scope, ast.name, ast.text, p);
      return;
    case 'inputs':
      if (workflow) checkInput(scope, workflow, ast.name, ast.text, p);
      return;
    case 'components': {
      const known = ['parameters', 'inputs', 'successActions', 'failureActions'];
      if (!known.includes(ast.kind)) {
        r.error('unknown-component', p, `${ast.text}: components hold ${known.join(', ')}, not "${ast.kind}"`);
      } else if (ast.name !== undefined && !lookupComponent(index, `$components.${ast.kind}.${ast.name}`) && !hasDottedComponent(index, ast.kind, ast.name)) {
        r.error('unknown-component', p, `${ast.text} names a component that does not exist; define components.${ast.kind}.${ast.name} or fix the name`);
      }
      return;
    }
    case 'message':
      if (!r.v11) r.needs11(p, `${ast.text} ($message)`);
      else if (!scope.receive) r.error('message-outside-receive', p, `${ast.text}: $message is only known in a step with action: receive (its criteria, outputs and actions)`);
      return;
    case 'self':
      if (!r.v11) r.needs11(p, '$self');
      return;
    case 'sourceDescriptions':
      if (!index.sources.has(ast.name)) {
        r.error('unknown-source', p, `${ast.text} names source "${ast.name}", which is not in sourceDescriptions (${[...index.sources.keys()].join(', ')})`);
      }
      return;
    default:
      return;
  }
}

/** `$outputs.<name>`: defined, and able to have a value where it is written. */
function checkOutputsReference(scope: Scope, name: string, text: string, p: string): void {
  const { r, workflow } = scope;
  if (!workflow) return;
  const meaning = scope.outputs ?? { kind: 'none', why: NO_OUTPUTS_YET };
  if (meaning.kind === 'callee') {
    if (meaning.names !== undefined && !isDefinedName(name, meaning.names)) {
      r.error('unknown-output', p, `${text} reads output "${name}" of the workflow this step calls ("${meaning.workflowId}"), which does not define it (its outputs: ${meaning.names.join(', ') || 'none'})`);
    }
    return;
  }
  if (!isDefinedName(name, workflow.outputs)) {
    r.error('unknown-output', p, `${text} reads output "${name}", which workflow "${workflow.id}" does not define (its outputs: ${workflow.outputs.join(', ') || 'none'})`);
  } else if (meaning.kind === 'none') {
    r.error('no-value', p, `${text} can have no value here: ${meaning.why}`);
  } else if (!isDefinedName(name, meaning.names)) {
    r.error('no-value', p, `${text} can have no value here: workflow outputs are evaluated in the order written, and "${name}" comes at or after this one; move it before`);
  }
}

const EXCHANGE_ROOTS = new Set(['url', 'method', 'statusCode', 'request', 'response']);

function hasDottedComponent(index: _DocumentIndex, kind: string, name: string): boolean {
  return isDefinedName(name, Object.keys(asObject(index.components[kind]) ?? {}));
}

/** Only a warning, and only when the input schema plainly lists its properties. */
function checkInput(scope: Scope, workflow: _WorkflowEntry, name: string, text: string, p: string): void {
  const schema = asObject(workflow.value['inputs']);
  const properties = asObject(schema?.['properties']);
  if (!schema || !properties) return;
  const open = ['$ref', 'allOf', 'anyOf', 'oneOf', 'patternProperties', 'additionalProperties', 'dependentSchemas', 'if'].some((k) => k in schema);
  if (open || isDefinedName(name, Object.keys(properties))) return;
  scope.r.warn('unknown-input', p, `${text} reads input "${name}", which workflow "${workflow.id}" does not declare in inputs.properties (${Object.keys(properties).join(', ')})`);
}

const CONDITION_REFERENCE = /\$(?:(?:steps|workflows|outputs|inputs|components|sourceDescriptions|message|request|response)\.|(?:statusCode|url|method)(?![A-Za-z]))/g;

/** Expressions that name other objects, scanned the way the criteria parser reads them. */
function scanCondition(condition: unknown): RuntimeExpression[] {
  if (typeof condition !== 'string') return [];
  const found: RuntimeExpression[] = [];
  for (const match of condition.matchAll(CONDITION_REFERENCE)) {
    try {
      found.push(scanRuntimeExpression(condition, match.index, 'condition').expression);
    } catch {
      // Syntax errors in a condition are checkCriterion's to report.
    }
  }
  return found;
}
