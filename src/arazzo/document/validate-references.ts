// References between the objects of one document: ids that must exist, ids that must be unique,
// reusable components, dependsOn. Whether operations resolve is the sources' job (checkOperations).

import { lookupComponent, splitSourceReference, type _DocumentIndex, type _WorkflowEntry } from './_index.js';
import { type _Report, asArray, asObject, asString, isObject, type JsonObject } from './_report.js';
import { pointerTokens } from './_locate.js';

export function validateReferences(index: _DocumentIndex, r: _Report): void {
  checkDuplicates(index, r);
  for (const workflow of index.workflows.values()) checkWorkflowReferences(index, workflow, r);
  checkDependencyCycles(index, r);
  if (r.v11) for (const workflow of index.workflows.values()) checkStepDependencies(index, workflow, r);
}

function checkDuplicates(index: _DocumentIndex, r: _Report): void {
  const seenSources = new Set<string>();
  asArray(index.root['sourceDescriptions']).forEach((s, i) => {
    const name = asString(asObject(s)?.['name']);
    if (name === undefined) return;
    if (seenSources.has(name)) r.error('duplicate-source-name', `/sourceDescriptions/${i}/name`, `sourceDescription name "${name}" is used twice; names must be unique`);
    seenSources.add(name);
  });
  const seenWorkflows = new Set<string>();
  asArray(index.root['workflows']).forEach((w, i) => {
    const workflow = asObject(w);
    const id = asString(workflow?.['workflowId']);
    if (id !== undefined) {
      if (seenWorkflows.has(id)) r.error('duplicate-workflow-id', `/workflows/${i}/workflowId`, `workflowId "${id}" is used by two workflows; workflowIds must be unique in a document`);
      seenWorkflows.add(id);
    }
    // stepIds are unique per workflow: the same stepId in two workflows is fine.
    const seenSteps = new Set<string>();
    asArray(workflow?.['steps']).forEach((s, j) => {
      const stepId = asString(asObject(s)?.['stepId']);
      if (stepId === undefined) return;
      if (seenSteps.has(stepId)) {
        r.error('duplicate-step-id', `/workflows/${i}/steps/${j}/stepId`, `stepId "${stepId}" appears twice in workflow "${id ?? i}"; stepIds must be unique within a workflow`);
      }
      seenSteps.add(stepId);
    });
  });
}

function checkWorkflowReferences(index: _DocumentIndex, workflow: _WorkflowEntry, r: _Report): void {
  const w = workflow.value;
  const p = workflow.pointer;
  asArray(w['dependsOn']).forEach((dep, i) => {
    if (typeof dep !== 'string') return;
    if (dep === workflow.id) r.error('dependency-cycle', `${p}/dependsOn/${i}`, `workflow "${dep}" depends on itself; remove it from dependsOn`);
    else checkWorkflowTarget(index, dep, `${p}/dependsOn/${i}`, 'dependsOn', r);
  });
  checkParameterList(index, w['parameters'], `${p}/parameters`, r, false);
  checkActionList(index, workflow, w['successActions'], `${p}/successActions`, 'successActions', r);
  checkActionList(index, workflow, w['failureActions'], `${p}/failureActions`, 'failureActions', r);
  checkSchemaRefs(index, w['inputs'], `${p}/inputs`, r);
  asArray(w['steps']).forEach((s, j) => {
    const step = asObject(s);
    if (!step) return;
    const sp = `${p}/steps/${j}`;
    const calledWorkflow = asString(step['workflowId']);
    if (calledWorkflow !== undefined) checkWorkflowTarget(index, calledWorkflow, `${sp}/workflowId`, 'step workflowId', r);
    const operationId = asString(step['operationId']);
    if (operationId?.startsWith('$sourceDescriptions.')) checkOperationSource(index, operationId, `${sp}/operationId`, r);
    const operationPath = asString(step['operationPath']);
    if (operationPath !== undefined) checkOperationPath(index, operationPath, `${sp}/operationPath`, r);
    const channelPath = asString(step['channelPath']);
    if (channelPath !== undefined) checkChannelPath(index, channelPath, `${sp}/channelPath`, r);
    checkParameterList(index, step['parameters'], `${sp}/parameters`, r, calledWorkflow === undefined);
    checkActionList(index, workflow, step['onSuccess'], `${sp}/onSuccess`, 'successActions', r);
    checkActionList(index, workflow, step['onFailure'], `${sp}/onFailure`, 'failureActions', r);
  });
}

/** A workflowId in this document, or `$sourceDescriptions.<arazzo source>.<workflowId>`. */
function checkWorkflowTarget(index: _DocumentIndex, ref: string, p: string, what: string, r: _Report): void {
  const qualified = splitSourceReference(ref);
  if (qualified) {
    const type = index.sources.get(qualified.source);
    if (!index.sources.has(qualified.source)) {
      r.error('unknown-source', p, `${what} "${ref}" names source "${qualified.source}", which is not in sourceDescriptions (${[...index.sources.keys()].join(', ') || 'none'})`);
    } else if (type === 'openapi') {
      r.error('unknown-workflow', p, `${what} "${ref}" points into "${qualified.source}", an openapi source; workflows come from type: arazzo sources`);
    }
    return;
  }
  if (!index.workflows.has(ref)) {
    r.error('unknown-workflow', p, `${what} "${ref}" is not a workflowId in this document (known: ${[...index.workflows.keys()].join(', ')}); for another Arazzo document write $sourceDescriptions.<name>.<workflowId>`);
  }
}

function checkOperationSource(index: _DocumentIndex, operationId: string, p: string, r: _Report): void {
  const qualified = splitSourceReference(operationId);
  if (!qualified) {
    r.error('invalid-expression', p, `operationId "${operationId}" must be $sourceDescriptions.<name>.<operationId> or a bare operationId`);
  } else if (!index.sources.has(qualified.source)) {
    r.error('unknown-source', p, `operationId "${operationId}" names source "${qualified.source}", which is not in sourceDescriptions (${[...index.sources.keys()].join(', ')})${didYouMean(index, qualified.source)}`);
  } else if (index.sources.get(qualified.source) === 'arazzo') {
    r.error('unknown-source', p, `operationId "${operationId}" points into "${qualified.source}", an arazzo source; operations come from openapi sources (use workflowId to call a workflow)`);
  }
}

/** `{$sourceDescriptions.<name>.url}#<json pointer>`; the braces may be left off. */
export const OPERATION_PATH = /^\{?\$sourceDescriptions\.([^.}]+)\.url\}?#(\/.*)$/;

function checkOperationPath(index: _DocumentIndex, operationPath: string, p: string, r: _Report): void {
  const match = OPERATION_PATH.exec(operationPath);
  if (!match) {
    const id = splitSourceReference(operationPath);
    if (id && !id.rest.includes('#') && id.rest !== 'url') {
      // The spec's own 1.1 example writes an operation id here.
      const asyncapi = index.sources.get(id.source) === 'asyncapi';
      r.error('invalid-expression', p, `operationPath "${operationPath}" names an operation by id, but operationPath wants a JSON pointer into the description; write operationId: ${operationPath}${asyncapi ? ` (or operationPath: '{$sourceDescriptions.${id.source}.url}#/operations/${id.rest}')` : ''}`);
      return;
    }
    r.error('invalid-expression', p, `operationPath "${operationPath}" must look like {$sourceDescriptions.<name>.url}#/paths/~1items~1{id}/get`);
    return;
  }
  const source = match[1] as string;
  if (!index.sources.has(source)) {
    r.error('unknown-source', p, `operationPath names source "${source}", which is not in sourceDescriptions (${[...index.sources.keys()].join(', ')})${didYouMean(index, source)}`);
  }
}

function checkParameterList(index: _DocumentIndex, list: unknown, p: string, r: _Report, needsIn: boolean): void {
  const seen = new Set<string>();
  asArray(list).forEach((item, i) => {
    const ip = `${p}/${i}`;
    let parameter = asObject(item);
    if (!parameter) return;
    if (typeof parameter['reference'] === 'string') {
      const reference = parameter['reference'];
      const component = lookupComponent(index, reference);
      if (!reference.startsWith('$components.parameters.')) {
        r.error('unknown-component', `${ip}/reference`, `parameters may only reference $components.parameters.<name>, not "${reference}"`);
        return;
      }
      if (!component) {
        r.error('unknown-component', `${ip}/reference`, `"${reference}" does not exist; define it under components.parameters or fix the name`);
        return;
      }
      parameter = asObject(component.value);
      if (!parameter) return;
      if (needsIn && parameter['in'] === undefined) {
        r.error('missing-field', `${ip}/reference`, `"${reference}" has no "in", which the step needs because it calls an operation; add in: to the component`);
      }
    }
    const key = `${String(parameter['name'])}\u0000${String(parameter['in'] ?? '')}`;
    if (seen.has(key)) {
      r.error('duplicate-parameter', ip, `parameter "${String(parameter['name'])}"${parameter['in'] ? ` in ${String(parameter['in'])}` : ''} is listed twice; keep one`);
    }
    seen.add(key);
  });
}

function checkActionList(index: _DocumentIndex, workflow: _WorkflowEntry, list: unknown, p: string, group: 'successActions' | 'failureActions', r: _Report): void {
  const names = new Set<string>();
  asArray(list).forEach((item, i) => {
    const ip = `${p}/${i}`;
    let action = asObject(item);
    if (!action) return;
    let at = ip;
    if (typeof action['reference'] === 'string') {
      const reference = action['reference'];
      const component = lookupComponent(index, reference);
      if (!reference.startsWith(`$components.${group}.`)) {
        r.error('unknown-component', `${ip}/reference`, `this list may only reference $components.${group}.<name>, not "${reference}"`);
        return;
      }
      if (!component) {
        r.error('unknown-component', `${ip}/reference`, `"${reference}" does not exist; define it under components.${group} or fix the name`);
        return;
      }
      if (action['value'] !== undefined) r.warn('ignored-field', `${ip}/value`, 'value only applies to parameter references; it is ignored here');
      action = asObject(component.value);
      at = `${ip}/reference`;
      if (!action) return;
    }
    const name = asString(action['name']);
    if (name !== undefined) {
      if (names.has(name)) r.warn('duplicate-action', at, `action name "${name}" appears twice in this list; only the first can match first`);
      names.add(name);
    }
    const stepId = asString(action['stepId']);
    if (stepId !== undefined && !workflow.steps.has(stepId)) {
      r.error('unknown-step', at === ip ? `${ip}/stepId` : at, `action "${name ?? i}" targets stepId "${stepId}", which is not a step of workflow "${workflow.id}" (steps: ${[...workflow.steps.keys()].join(', ')})`);
    }
    const workflowId = asString(action['workflowId']);
    if (workflowId !== undefined) checkWorkflowTarget(index, workflowId, at === ip ? `${ip}/workflowId` : at, `action "${name ?? i}" workflowId`, r);
    if (r.v11 && at === ip) checkParameterList(index, action['parameters'], `${ip}/parameters`, r, false);
  });
}

/** Local `$ref`s in input schemas (`#/components/inputs/x`) must point at something. */
function checkSchemaRefs(index: _DocumentIndex, schema: unknown, p: string, r: _Report): void {
  const visit = (node: unknown, np: string, depth: number): void => {
    if (depth > 64) return;
    if (Array.isArray(node)) node.forEach((n, i) => { visit(n, `${np}/${i}`, depth + 1); });
    if (!isObject(node)) return;
    const ref = node['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#/') && resolveLocal(index.root, ref) === undefined) {
      r.error('unknown-component', `${np}/$ref`, `$ref "${ref}" points at nothing in this document; define it (e.g. under components.inputs) or fix the pointer`);
    } else if (typeof ref === 'string' && ref.startsWith('#/')) {
      const chain = refChainProblem(index.root, ref);
      if (chain) r.error('ref-chain', `${np}/$ref`, chain);
    }
    for (const [k, v] of Object.entries(node)) if (k !== '$ref') visit(v, `${np}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1);
  };
  visit(schema, p, 0);
}

/** Longest chain of schemas that are only a `$ref` to the next one (ajv compiles each on the stack). */
const MAX_REF_CHAIN = 64;

/**
 * Follows schemas that consist of a `$ref` alone: a loop of them describes no value at all, and a
 * very long chain overflows the schema compiler's stack. Both are refused here, by name.
 */
function refChainProblem(root: JsonObject, first: string): string | undefined {
  const seen: string[] = [];
  for (let ref: string | undefined = first; ref !== undefined;) {
    if (seen.includes(ref)) {
      const loop = [...seen.slice(seen.indexOf(ref)), ref];
      return `$ref "${first}" refers to itself in a loop (${loop.length > 6 ? `${loop.slice(0, 3).join(' → ')} → … → ${ref}` : loop.join(' → ')}); point one of them at a real schema`;
    }
    if (seen.length >= MAX_REF_CHAIN) return `$ref "${first}" starts a chain of more than ${MAX_REF_CHAIN} schemas that only refer to the next one; point it at the schema itself`;
    seen.push(ref);
    const target = resolveLocal(root, ref);
    const next = isObject(target) ? target['$ref'] : undefined;
    ref = typeof next === 'string' && next.startsWith('#/') ? next : undefined;
  }
  return undefined;
}

function resolveLocal(root: JsonObject, ref: string): unknown {
  let node: unknown = root;
  for (const token of pointerTokens(ref.slice(1))) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

function checkDependencyCycles(index: _DocumentIndex, r: _Report): void {
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string, trail: string[]): void => {
    const mark = state.get(id);
    if (mark === 'done') return;
    if (mark === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(id)), id];
      const entry = index.workflows.get(id);
      if (cycle.length > 2 && entry) r.error('dependency-cycle', `${entry.pointer}/dependsOn`, `dependsOn forms a cycle: ${cycle.join(' → ')}; break it`);
      return;
    }
    state.set(id, 'visiting');
    for (const dep of asArray(index.workflows.get(id)?.value['dependsOn'])) {
      if (typeof dep === 'string' && index.workflows.has(dep) && dep !== id) visit(dep, [...trail, id]);
    }
    state.set(id, 'done');
  };
  for (const id of index.workflows.keys()) visit(id, []);
}

/** `{$sourceDescriptions.<name>.url}#/channels/<channel key>` (Arazzo 1.1, AsyncAPI sources). */
export const CHANNEL_PATH = /^\{?\$sourceDescriptions\.([^.}]+)\.url\}?#(\/channels\/.+)$/;

function checkChannelPath(index: _DocumentIndex, channelPath: string, p: string, r: _Report): void {
  const match = CHANNEL_PATH.exec(channelPath);
  if (!match) {
    r.error('invalid-expression', p, `channelPath "${channelPath}" must look like {$sourceDescriptions.<name>.url}#/channels/<channel>`);
    return;
  }
  const source = match[1] as string;
  if (!index.sources.has(source)) r.error('unknown-source', p, `channelPath names source "${source}", which is not in sourceDescriptions (${[...index.sources.keys()].join(', ')})`);
  else if (index.sources.get(source) !== undefined && index.sources.get(source) !== 'asyncapi') r.error('unknown-source', p, `channelPath names source "${source}", a ${String(index.sources.get(source))} source; channels come from type: asyncapi sources`);
}

/**
 * Arazzo 1.1 step dependsOn: a stepId of this workflow, `$workflows.<id>.steps.<stepId>` or
 * `$sourceDescriptions.<name>.<workflowId>.steps.<stepId>`; no step depends on itself, and
 * explicit plus implicit (output reference) dependencies form no cycle.
 */
function checkStepDependencies(index: _DocumentIndex, workflow: _WorkflowEntry, r: _Report): void {
  const steps = asArray(workflow.value['steps']);
  const graph = new Map<string, Set<string>>();
  steps.forEach((s, j) => {
    const step = asObject(s);
    const stepId = asString(step?.['stepId']);
    if (!step || stepId === undefined) return;
    const deps = new Set<string>(implicitStepDependencies(step));
    asArray(step['dependsOn']).forEach((dep, k) => {
      if (typeof dep !== 'string') return;
      const dp = `${workflow.pointer}/steps/${j}/dependsOn/${k}`;
      const other = /^\$workflows\.([^.]+)\.steps\.([^.]+)$/.exec(dep);
      const external = /^\$sourceDescriptions\.([^.]+)\.([^.]+)\.steps\.([^.]+)$/.exec(dep);
      if (other) {
        const target = index.workflows.get(other[1] as string);
        if (!target) r.error('unknown-workflow', dp, `dependsOn "${dep}" names workflow "${other[1]}", which is not in this document (workflows: ${[...index.workflows.keys()].join(', ')})`);
        else if (!target.steps.has(other[2] as string)) r.error('unknown-step', dp, `dependsOn "${dep}": workflow "${other[1]}" has no step "${other[2]}" (steps: ${[...target.steps.keys()].join(', ')})`);
        else if (target.id === workflow.id) deps.add(other[2] as string);
      } else if (external) {
        const type = index.sources.get(external[1] as string);
        if (!index.sources.has(external[1] as string)) r.error('unknown-source', dp, `dependsOn "${dep}" names source "${external[1]}", which is not in sourceDescriptions`);
        else if (type !== undefined && type !== 'arazzo') r.error('unknown-source', dp, `dependsOn "${dep}" points into "${external[1]}", a ${type} source; steps of other documents come from type: arazzo sources`);
      } else if (dep === stepId) {
        r.error('dependency-cycle', dp, `step "${stepId}" depends on itself; remove it from dependsOn`);
      } else if (!workflow.steps.has(dep)) {
        r.error('unknown-step', dp, `dependsOn "${dep}" is not a step of workflow "${workflow.id}" (steps: ${[...workflow.steps.keys()].join(', ')}); a step of another workflow is written $workflows.<workflowId>.steps.<stepId>`);
      } else deps.add(dep);
    });
    deps.delete(stepId);
    graph.set(stepId, deps);
  });
  const cycle = findCycle(graph);
  if (cycle) {
    const at = workflow.steps.get(cycle[0] as string) ?? 0;
    r.error('dependency-cycle', `${workflow.pointer}/steps/${at}`, `steps depend on each other in a cycle (explicit dependsOn and output references): ${cycle.join(' → ')}; break it`);
  }
}

// `$steps.<id>.outputs`: ids that break only the SHOULD pattern (`find pet`, `get.pets`) included,
// as the expression parser reads them (no `$ { } #` or condition operators inside).
const STEP_REFERENCE = /\$steps\.([^${}#=!<>&|()'[\]]+?)\.outputs(?![A-Za-z])/g;

/** Steps whose outputs a step reads (`$steps.<id>.outputs`), anywhere in it: implicit dependencies. */
export function implicitStepDependencies(step: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 64) return;
    if (typeof value === 'string') {
      for (const m of value.matchAll(STEP_REFERENCE)) found.add(m[1] as string);
    } else if (Array.isArray(value)) value.forEach((v) => { visit(v, depth + 1); });
    else if (isObject(value)) for (const [k, v] of Object.entries(value)) if (k !== 'dependsOn') visit(v, depth + 1);
  };
  visit(step, 0);
  return [...found];
}

function findCycle(graph: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const trail: string[] = [];
  const visit = (id: string): string[] | undefined => {
    const mark = state.get(id);
    if (mark === 'done') return undefined;
    if (mark === 'visiting') return [...trail.slice(trail.indexOf(id)), id];
    state.set(id, 'visiting');
    trail.push(id);
    for (const dep of graph.get(id) ?? []) {
      if (!graph.has(dep)) continue;
      const found = visit(dep);
      if (found) return found;
    }
    trail.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of graph.keys()) {
    const found = visit(id);
    if (found) return found;
  }
  return undefined;
}

/** Source names are case-sensitive; the spec's own 1.1 example spells one two ways. */
function didYouMean(index: _DocumentIndex, name: string): string {
  const match = [...index.sources.keys()].find((k) => k.toLowerCase() === name.toLowerCase());
  return match ? `; names are case-sensitive: write "${match}"` : '';
}
