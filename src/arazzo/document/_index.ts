// What the reference checks need to know about a document, gathered once and defensively
// (structure errors are reported elsewhere; here a malformed object is simply skipped).

import { asArray, asObject, asString, type JsonObject } from './_report.js';

export interface _WorkflowEntry {
  id: string;
  pointer: string;
  value: JsonObject;
  /** stepId → index in `steps` (first occurrence). */
  steps: Map<string, number>;
  outputs: string[];
}

export interface _DocumentIndex {
  root: JsonObject;
  /** Source name → declared type (undefined when the document does not say). */
  sources: Map<string, string | undefined>;
  workflows: Map<string, _WorkflowEntry>;
  components: JsonObject;
}

export function indexDocument(root: JsonObject): _DocumentIndex {
  const sources = new Map<string, string | undefined>();
  for (const source of asArray(root['sourceDescriptions'])) {
    const name = asString(asObject(source)?.['name']);
    if (name !== undefined && !sources.has(name)) sources.set(name, asString(asObject(source)?.['type']));
  }
  const workflows = new Map<string, _WorkflowEntry>();
  asArray(root['workflows']).forEach((w, i) => {
    const value = asObject(w);
    const id = asString(value?.['workflowId']);
    if (!value || id === undefined || workflows.has(id)) return;
    const steps = new Map<string, number>();
    asArray(value['steps']).forEach((s, j) => {
      const stepId = asString(asObject(s)?.['stepId']);
      if (stepId !== undefined && !steps.has(stepId)) steps.set(stepId, j);
    });
    workflows.set(id, { id, pointer: `/workflows/${i}`, value, steps, outputs: Object.keys(asObject(value['outputs']) ?? {}) });
  });
  return { root, sources, workflows, components: asObject(root['components']) ?? {} };
}

/** The component a `$components.<group>.<key>` reference names, if it exists. Keys may contain dots. */
export function lookupComponent(index: _DocumentIndex, reference: string): { group: string; key: string; value: unknown } | undefined {
  const match = /^\$components\.(parameters|successActions|failureActions|inputs)\.(.+)$/.exec(reference);
  if (!match) return undefined;
  const group = match[1] as string;
  const key = match[2] as string;
  const entries = asObject(index.components[group]);
  if (!entries || !Object.hasOwn(entries, key)) return undefined;
  return { group, key, value: entries[key] };
}

/** `$sourceDescriptions.<name>.<rest>` split at the first dot after the name (`rest` may contain dots). */
export function splitSourceReference(text: string): { source: string; rest: string } | undefined {
  const match = /^\$sourceDescriptions\.([^.]+)\.(.+)$/.exec(text);
  return match ? { source: match[1] as string, rest: match[2] as string } : undefined;
}
