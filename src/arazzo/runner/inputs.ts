// Workflow inputs: validated against the workflow's JSON Schema (2020-12 unless the schema says
// draft-07) before any request, with defaults filled in. Each schema is compiled once.
// ajv (and ajv-formats, only for schemas that use `format`) is loaded on the first schema:
// `workflow validate` and documents without inputs never pay its start-up cost.
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type formatsModule from 'ajv-formats';
import { createHash } from 'node:crypto';
import { loadAjv, loadAjv2020, loadAjvFormats, loadPrecompiledInputs } from '../_on-demand.js';
import { ArazzoError } from '../errors.js';
import type { Components } from '../types.js';
import { isPlainSchema } from './_plain-schema.js';

export type InputsValidator = (inputs: Record<string, unknown>) => Record<string, unknown>;

interface Dialect {
  ajv: Ajv | Ajv2020;
  formats: boolean;
}

let draft07: Dialect | undefined;
let draft2020: Dialect | undefined;

function ajvFor(schema: Record<string, unknown>, usesFormats: boolean): Ajv | Ajv2020 {
  const dialect = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
  // Schemas are checked against their meta-schema below, only when that check could fail.
  // scripts/inputs-validators.mjs compiles the shipped workflows' schemas with these options too.
  const options = { allErrors: true, useDefaults: true, strict: false, validateFormats: true, validateSchema: false } as const;
  let entry: Dialect;
  if (/draft-0[4-7]/.test(dialect)) {
    entry = draft07 ??= { ajv: new (loadAjv() as { Ajv: typeof Ajv }).Ajv(options), formats: false };
  } else {
    entry = draft2020 ??= { ajv: new (loadAjv2020() as { Ajv2020: typeof Ajv2020 }).Ajv2020(options), formats: false };
  }
  if (usesFormats && !entry.formats) {
    (loadAjvFormats() as { default: typeof formatsModule.default }).default(entry.ajv);
    entry.formats = true;
  }
  return entry.ajv;
}

/** Whether a schema may name a `format` (a property called "format" counts too: harmless). */
function usesFormats(schema: Record<string, unknown>): boolean {
  try {
    return JSON.stringify(schema).includes('"format"');
  } catch {
    return true; // a cyclic schema (YAML aliases): let ajv see it with every format available
  }
}

/**
 * `$ref: '#/components/inputs/x'` points into the Arazzo document, not into the schema: the
 * document's `components.inputs` travel with the schema under the same pointer so such
 * references resolve (ajv ignores the unknown `components` keyword in non-strict mode).
 */
export function compileInputs(schema: unknown, components: Components | undefined, workflowId: string): InputsValidator {
  if (schema === undefined || schema === null || typeof schema !== 'object') return (inputs) => ({ ...inputs });
  const root = inputsRoot(schema as Record<string, unknown>, components);
  const workflow = `workflow "${workflowId}"`;
  // A plain schema cannot fail to compile, so it is compiled on first use: `workflow plan`
  // never validates inputs and so never loads ajv for it. Any other schema is compiled (and
  // refused, if it must be) right away, before any request.
  let validate: ValidateFunction | undefined = isPlainSchema(root) ? undefined : compileSchema(root, workflow);
  return (inputs) => {
    validate ??= compileSchema(root, workflow);
    // Defaults are written into the value ajv validates: validate a copy, never the caller's object.
    const value = structuredClone(inputs);
    if (!validate(value)) throw inputsError(workflowId, validate.errors ?? []);
    return value;
  };
}

/** The schema that is compiled: the workflow's, with the document's `components.inputs` and without `$id`. */
export function inputsRoot(schema: Record<string, unknown>, components: Components | undefined): Record<string, unknown> {
  const root: Record<string, unknown> = { ...schema };
  if (components?.inputs) root['components'] = { inputs: components.inputs };
  delete root['$id'];
  return root;
}

/** What the build's precompiled validators are keyed by (scripts/inputs-validators.mjs): the schema root's JSON. */
export function inputsSchemaKey(root: Record<string, unknown>): string | undefined {
  try {
    return createHash('sha256').update(JSON.stringify(root)).digest('hex');
  } catch {
    return undefined; // a cyclic schema (YAML aliases) is never precompiled
  }
}

function compileSchema(root: Record<string, unknown>, workflow: string): ValidateFunction {
  const key = inputsSchemaKey(root);
  const precompiled = key === undefined ? undefined : loadPrecompiledInputs(key);
  if (typeof precompiled === 'function') return precompiled as ValidateFunction;
  try {
    const ajv = ajvFor(root, usesFormats(root));
    // What ajv's own validateSchema option does on compile, with the same message.
    if (!isPlainSchema(root) && !(ajv.validateSchema(root) as boolean)) throw new Error(`schema is invalid: ${ajv.errorsText(ajv.errors)}`);
    return ajv.compile(root);
  } catch (err) {
    // A stack overflow here is a schema nested or chained too deeply ($refs): say so, not V8's words.
    const why = err instanceof RangeError ? 'it nests or chains $refs too deeply; flatten it' : (err as Error).message;
    throw new ArazzoError('E_DOCUMENT_INVALID', `${workflow}: the inputs schema does not compile: ${why}`);
  }
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
  if (error.keyword === 'required') return `input "${name}": is required`;
  if (error.keyword === 'additionalProperties') return `input "${name}": is not an input of this workflow (the schema forbids other inputs)`;
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  const suffix = allowed ? ` (${allowed.map((v) => JSON.stringify(v)).join(', ')})` : '';
  return `input "${name}": ${error.message ?? 'is invalid'}${suffix}`;
}

/** The refusal, with the missing required inputs as a hint (a front end knows how they are given). */
function inputsError(workflowId: string, errors: ErrorObject[]): ArazzoError {
  const missing = [...new Set(errors.filter((e) => e.keyword === 'required').map(inputName))];
  return new ArazzoError('E_INPUTS', describeInputErrors(workflowId, errors), missing.length > 0 ? { hint: { kind: 'provide-input', names: missing } } : {});
}

export function describeInputErrors(workflowId: string, errors: ErrorObject[]): string {
  // allErrors reports a failed `if`/`anyOf` together with its branches; keep the readable ones first.
  const lines = [...new Set(errors.filter((e) => e.keyword !== 'if').map(describeOne))];
  const shown = lines.slice(0, 5);
  const more = lines.length > shown.length ? `; and ${lines.length - shown.length} more` : '';
  return `workflow "${workflowId}" inputs are invalid: ${shown.join('; ')}${more}`;
}
