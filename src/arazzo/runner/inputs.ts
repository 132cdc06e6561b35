// Workflow inputs: validated against the workflow's JSON Schema (2020-12 unless the schema says
// draft-07) before any request, with defaults filled in. Each schema is compiled once.
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import { ArazzoError } from '../errors.js';
import type { Components } from '../types.js';

export type InputsValidator = (inputs: Record<string, unknown>) => Record<string, unknown>;

let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

function ajvFor(schema: Record<string, unknown>): Ajv | Ajv2020 {
  const dialect = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
  const options = { allErrors: true, useDefaults: true, strict: false, validateFormats: true } as const;
  const addFormats = formatsModule.default;
  if (/draft-0[4-7]/.test(dialect)) {
    if (!draft07) addFormats((draft07 = new Ajv(options)));
    return draft07;
  }
  if (!draft2020) addFormats((draft2020 = new Ajv2020(options)));
  return draft2020;
}

/**
 * `$ref: '#/components/inputs/x'` points into the Arazzo document, not into the schema: the
 * document's `components.inputs` travel with the schema under the same pointer so such
 * references resolve (ajv ignores the unknown `components` keyword in non-strict mode).
 */
export function compileInputs(schema: unknown, components: Components | undefined, workflowId: string): InputsValidator {
  if (schema === undefined || schema === null || typeof schema !== 'object') return (inputs) => ({ ...inputs });
  const root: Record<string, unknown> = { ...(schema as Record<string, unknown>) };
  if (components?.inputs) root['components'] = { inputs: components.inputs };
  delete root['$id'];
  let validate: ValidateFunction;
  try {
    validate = ajvFor(root).compile(root);
  } catch (err) {
    throw new ArazzoError('E_DOCUMENT_INVALID', `workflow "${workflowId}": the inputs schema does not compile: ${(err as Error).message}`);
  }
  return (inputs) => {
    // Defaults are written into the value ajv validates: validate a copy, never the caller's object.
    const value = structuredClone(inputs);
    if (!validate(value)) throw new ArazzoError('E_INPUTS', describeInputErrors(workflowId, validate.errors ?? []));
    return value;
  };
}

function inputName(error: ErrorObject): string {
  const path = error.instancePath.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  if (error.keyword === 'required' && missing) path.push(missing);
  const extra = (error.params as { additionalProperty?: string }).additionalProperty;
  if (error.keyword === 'additionalProperties' && extra) path.push(extra);
  return path.length === 0 ? '(inputs)' : path.reduce((acc, t, i) => (/^\d+$/.test(t) ? `${acc}[${t}]` : i === 0 ? t : `${acc}.${t}`), '');
}

function describeOne(error: ErrorObject): string {
  const name = inputName(error);
  if (error.keyword === 'required') return `input "${name}": is required (pass it with --input ${name}=... or in --inputs)`;
  if (error.keyword === 'additionalProperties') return `input "${name}": is not an input of this workflow (the schema forbids other inputs)`;
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  const suffix = allowed ? ` (${allowed.map((v) => JSON.stringify(v)).join(', ')})` : '';
  return `input "${name}": ${error.message ?? 'is invalid'}${suffix}`;
}

export function describeInputErrors(workflowId: string, errors: ErrorObject[]): string {
  // allErrors reports a failed `if`/`anyOf` together with its branches; keep the readable ones first.
  const lines = [...new Set(errors.filter((e) => e.keyword !== 'if').map(describeOne))];
  const shown = lines.slice(0, 5);
  const more = lines.length > shown.length ? `; and ${lines.length - shown.length} more` : '';
  return `workflow "${workflowId}" inputs are invalid: ${shown.join('; ')}${more}`;
}
