// Static checks of every operation step against its OpenAPI description: the operation resolves
// (errors), and the step's parameters and body fit it (warnings: the request may still work).

import type { LoadedDocument } from '../document/index.js';
import type { ArazzoError, Diagnostic } from '../errors.js';
import { isRecord, type OpenApiSource } from './openapi-source.js';
import type { AsyncApiSource } from './asyncapi-source.js';
import { findMessageTarget } from './resolve-message.js';
import { isArazzo11 } from '../document/index.js';
import { describeOperation, describeResolved, findOperation, type ResolvedOperation } from './resolve-operation.js';

export interface _CheckedRegistry {
  doc: LoadedDocument;
  openapiSources: ReadonlyMap<string, OpenApiSource>;
  asyncapiSources: ReadonlyMap<string, AsyncApiSource>;
  nestedRegistries(): _CheckedRegistry[];
}

export function checkRegistryOperations(registry: _CheckedRegistry, visited = new Set<_CheckedRegistry>()): Diagnostic[] {
  if (visited.has(registry)) return [];
  visited.add(registry);
  const diagnostics: Diagnostic[] = [];
  const doc = registry.doc;
  const report = (severity: Diagnostic['severity'], code: string, pointer: string, message: string): void => {
    diagnostics.push({ code, severity, message, pointer, file: doc.file, ...(doc.locate(pointer) ?? {}) });
  };
  const root = isRecord(doc.value) ? doc.value : {};
  const components = isRecord(root['components']) && isRecord(root['components']['parameters']) ? root['components']['parameters'] : {};
  list(root['workflows']).forEach((w, i) => {
    if (!isRecord(w)) return;
    list(w['steps']).forEach((s, j) => {
      // A step that calls a workflow has no operation of its own (an action or channelPath on it
      // is the structure checks' error), so there is nothing to resolve here.
      if (!isRecord(s) || s['workflowId'] !== undefined) return;
      if (isArazzo11(root) && (s['action'] !== undefined || s['channelPath'] !== undefined)) {
        // 1.1 AsyncAPI step: its operation or channel, and the direction of its action.
        const at = `/workflows/${i}/steps/${j}/${typeof s['channelPath'] === 'string' ? 'channelPath' : typeof s['operationPath'] === 'string' ? 'operationPath' : 'operationId'}`;
        try {
          findMessageTarget(registry.asyncapiSources, s as never, {});
        } catch (err) {
          const e = err as ArazzoError;
          // A missing Kafka server is a run-time matter, as for OpenAPI servers.
          if (e.code !== 'E_SOURCE') report('error', /declared action/.test(e.message) ? 'action-direction' : 'unknown-operation', at, e.message);
        }
        return;
      }
      const field = typeof s['operationPath'] === 'string' ? 'operationPath' : typeof s['operationId'] === 'string' ? 'operationId' : undefined;
      if (!field) return;
      const pointer = `/workflows/${i}/steps/${j}`;
      let resolved: ResolvedOperation;
      try {
        // A missing server is a run-time matter: validate and plan work without one.
        const { source, operation } = findOperation(registry.openapiSources, { [field]: s[field] as string });
        resolved = describeResolved(source, operation, '');
      } catch (err) {
        const e = err as ArazzoError;
        const ambiguous = /more than one source|appears twice/.test(e.message);
        const id = String(s[field]).replace(/^\$sourceDescriptions\.[^.]+\./, '');
        const async = [...registry.asyncapiSources.values()].find((a) => a.operations.has(id));
        const message = async ? `operation "${id}" is in the AsyncAPI source "${async.name}": an AsyncAPI step needs action: send or receive (the workflow's side)` : e.message;
        report('error', e.code === 'E_SOURCE' ? 'invalid-source' : ambiguous ? 'ambiguous-operation' : 'unknown-operation', `${pointer}/${field}`, message);
        return;
      }
      const given = stepParameters(w['parameters'], s['parameters'], components);
      const operationName = describeOperation(resolved);
      for (const [key, at] of given) {
        const [where, name] = key.split('\u0000') as [string, string];
        const declared = resolved.parameters.some((p) => p.in === where && sameName(where, p.name, name));
        if (!declared) report('warning', 'unknown-parameter', at === 'workflow' ? `/workflows/${i}/parameters` : `${pointer}/parameters/${at}`, `parameter "${name}" (in ${where}) is not declared by ${operationName}; check its name and in`);
      }
      for (const p of resolved.parameters) {
        if (!p.required) continue;
        const provided = [...given.keys()].some((key) => {
          const [where, name] = key.split('\u0000') as [string, string];
          return where === p.in && sameName(where, p.name, name);
        });
        if (!provided) report('warning', 'missing-parameter', pointer, `${operationName} requires the ${p.in} parameter "${p.name}", which step "${String(s['stepId'])}" does not pass; add it to the step's parameters`);
      }
      if (resolved.requestBody?.required && s['requestBody'] === undefined) {
        report('warning', 'missing-request-body', pointer, `${operationName} requires a request body; add requestBody to step "${String(s['stepId'])}"`);
      }
    });
  });
  for (const nested of registry.nestedRegistries()) diagnostics.push(...checkRegistryOperations(nested, visited));
  return diagnostics;
}

/** (in, name) → where it was given: a step parameter index, or 'workflow'. Reusable parameters are followed. */
function stepParameters(workflowLevel: unknown, stepLevel: unknown, components: Record<string, unknown>): Map<string, number | 'workflow'> {
  const given = new Map<string, number | 'workflow'>();
  const add = (item: unknown, at: number | 'workflow'): void => {
    let parameter = item;
    if (isRecord(parameter) && typeof parameter['reference'] === 'string') {
      parameter = components[parameter['reference'].replace(/^\$components\.parameters\./, '')];
    }
    if (!isRecord(parameter) || typeof parameter['name'] !== 'string' || typeof parameter['in'] !== 'string') return;
    given.set(`${parameter['in']}\u0000${parameter['name']}`, at);
  };
  list(workflowLevel).forEach((p) => { add(p, 'workflow'); });
  list(stepLevel).forEach((p, k) => { add(p, k); });
  return given;
}

// RFC 9110: header names are case-insensitive; every other parameter name is case-sensitive. A
// querystring parameter's name is never sent (OpenAPI 3.2), so any name matches the operation's one.
function sameName(where: string, a: string, b: string): boolean {
  return where === 'querystring' || (where === 'header' ? a.toLowerCase() === b.toLowerCase() : a === b);
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
