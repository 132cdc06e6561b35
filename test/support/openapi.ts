// openapi/kafka-connect.yaml for tests: find operations by id or path, and check a live response
// against the response the description declares for its status (JSON Schema 2020-12 via ajv).
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { openapiPath } from './repo.js';

type Json = Record<string, unknown>;

export interface OperationRef {
  operationId: string;
  path: string;
  method: string;
  operation: Json;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const DOC_ID = 'https://offsetctl.test/openapi/kafka-connect.yaml';

export function loadOpenApi(): Json {
  return parse(readFileSync(openapiPath, 'utf8')) as Json;
}

export function listOperations(doc: Json): OperationRef[] {
  const out: OperationRef[] = [];
  for (const [path, item] of Object.entries((doc['paths'] ?? {}) as Record<string, Json>)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method] as Json | undefined;
      if (operation && typeof operation['operationId'] === 'string') out.push({ operationId: operation['operationId'], path, method, operation });
    }
  }
  return out;
}

function pointerEscape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function resolveLocal(doc: Json, ref: string): Json {
  let node: unknown = doc;
  for (const raw of ref.replace(/^#\//, '').split('/')) node = (node as Json)[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  if (!node) throw new Error(`unresolved $ref ${ref}`);
  return node as Json;
}

export class ResponseChecker {
  readonly doc: Json;
  readonly #ajv: Ajv2020;
  readonly #operations: Map<string, OperationRef>;

  constructor(doc: Json = loadOpenApi()) {
    this.doc = doc;
    this.#ajv = new Ajv2020({ strict: false, allErrors: true });
    const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
    addFormats(this.#ajv);
    // The whole description is one schema resource, so `#/components/...` refs resolve in it.
    this.#ajv.addSchema({ ...doc, $id: DOC_ID }, undefined, undefined, false);
    this.#operations = new Map(listOperations(doc).map((o) => [o.operationId, o]));
  }

  operation(operationId: string): OperationRef {
    const op = this.#operations.get(operationId);
    if (!op) throw new Error(`openapi/kafka-connect.yaml has no operation ${operationId}`);
    return op;
  }

  /**
   * Problems of a live response against the description ([] when it conforms): the status must
   * be declared explicitly (not only as `default`), a declared JSON body must validate, and a
   * response declared without content must have no body.
   */
  check(operationId: string, status: number, body: unknown): string[] {
    const op = this.operation(operationId);
    const responses = (op.operation['responses'] ?? {}) as Record<string, Json>;
    let key = String(status);
    if (!responses[key]) {
      const range = `${String(status)[0]}XX`;
      if (responses[range]) key = range;
      else return [`${operationId}: status ${status} is not declared (declared: ${Object.keys(responses).join(', ')})`];
    }
    let response = responses[key] as Json;
    if (typeof response['$ref'] === 'string') response = resolveLocal(this.doc, response['$ref']);
    const content = response['content'] as Record<string, Json> | undefined;
    const json = content?.['application/json'];
    if (!json) return body === undefined || body === '' ? [] : [`${operationId} ${status}: declared without a body, got ${JSON.stringify(body).slice(0, 200)}`];
    const responsePointer = typeof responses[key]?.['$ref'] === 'string'
      ? `${String(responses[key]?.['$ref']).slice(1)}/content/application~1json/schema`
      : `/paths/${pointerEscape(op.path)}/${op.method}/responses/${pointerEscape(key)}/content/application~1json/schema`;
    const validate = this.#ajv.getSchema(`${DOC_ID}#${responsePointer}`);
    if (!validate) return [`${operationId} ${status}: cannot compile the schema at ${responsePointer}`];
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${operationId} ${status}: ${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  }
}
