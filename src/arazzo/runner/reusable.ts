// Reusable Objects (`{reference: $components.<kind>.<name>, value?}`) and the merge rules for
// parameters and actions between a workflow and its steps.
import { ArazzoError } from '../errors.js';
import type { Components, FailureAction, Parameter, ReusableObject, SuccessAction } from '../types.js';

function isReusable(item: unknown): item is ReusableObject {
  return typeof item === 'object' && item !== null && typeof (item as { reference?: unknown }).reference === 'string';
}

function lookUp<T>(components: Components | undefined, kind: keyof Components, ref: ReusableObject, where: string): T {
  const match = /^\$components\.([A-Za-z]+)\.(.+)$/.exec(ref.reference);
  const found = match && match[1] === kind ? (components?.[kind] as Record<string, unknown> | undefined)?.[match[2]!] : undefined;
  if (found === undefined) {
    throw new ArazzoError('E_DOCUMENT_INVALID', `${where}: reference "${ref.reference}" does not name an entry of components.${kind}; define it there or fix the reference`);
  }
  return found as T;
}

/** Parameters with Reusable Objects replaced by the component, `value` overriding the component's value. */
export function resolveParameters(list: ReadonlyArray<Parameter | ReusableObject> | undefined, components: Components | undefined, where: string): Parameter[] {
  return (list ?? []).map((item) => {
    if (!isReusable(item)) return item;
    const param = lookUp<Parameter>(components, 'parameters', item, where);
    return 'value' in item && item.value !== undefined ? { ...param, value: item.value } : param;
  });
}

/**
 * Workflow parameters overridden by step parameters with the same (`name`, `in`): the step's
 * definition wins but a workflow parameter is never removed.
 */
export function mergeParameters(workflowParams: Parameter[], stepParams: Parameter[]): Parameter[] {
  const merged = new Map<string, Parameter>();
  for (const p of [...workflowParams, ...stepParams]) merged.set(`${p.in ?? ''}\u0000${p.in === 'header' ? p.name.toLowerCase() : p.name}`, p);
  return [...merged.values()];
}

export function resolveActions<T extends SuccessAction | FailureAction>(
  list: ReadonlyArray<T | ReusableObject> | undefined,
  components: Components | undefined,
  kind: 'successActions' | 'failureActions',
  where: string,
): T[] {
  return (list ?? []).map((item) => (isReusable(item) ? lookUp<T>(components, kind, item, where) : item));
}

/**
 * The actions a step uses: its own first, then the workflow's whose names the step does not
 * redefine. The step overrides (first match wins and its actions come first) but, as the spec
 * says, cannot remove a workflow-level action.
 */
export function mergeActions<T extends { name: string }>(stepActions: T[], workflowActions: T[]): Array<T & { origin: 'step' | 'workflow' }> {
  const names = new Set(stepActions.map((a) => a.name));
  return [
    ...stepActions.map((a) => ({ ...a, origin: 'step' as const })),
    ...workflowActions.filter((a) => !names.has(a.name)).map((a) => ({ ...a, origin: 'workflow' as const })),
  ];
}
