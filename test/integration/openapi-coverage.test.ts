// Every operation the project's workflows call (ours in workflows/ and the seeds in
// examples/seeds) is described in openapi/kafka-connect.yaml.
// Real parts: the sandbox's Kafka broker and Connect cluster.
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { listOperations, loadOpenApi } from '../support/openapi.js';
import { seedsDir, workflowsDir } from '../support/repo.js';

interface StepReference {
  file: string;
  stepId: string;
  operationId?: string;
  operationPath?: string;
}

function workflowFiles(): string[] {
  const files: string[] = [];
  for (const dir of [workflowsDir, seedsDir]) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) if (/\.arazzo\.ya?ml$/.test(name)) files.push(join(dir, name));
  }
  return files.sort();
}

function stepReferences(file: string): StepReference[] {
  const doc = parse(readFileSync(file, 'utf8')) as { workflows?: Array<{ steps?: Array<Record<string, unknown>> }> };
  const refs: StepReference[] = [];
  for (const workflow of doc.workflows ?? []) {
    for (const step of workflow.steps ?? []) {
      const ref: StepReference = { file, stepId: String(step['stepId']) };
      if (typeof step['operationId'] === 'string') ref.operationId = step['operationId'];
      if (typeof step['operationPath'] === 'string') ref.operationPath = step['operationPath'];
      if (ref.operationId !== undefined || ref.operationPath !== undefined) refs.push(ref);
    }
  }
  return refs;
}

/** The operationIds of a document's OpenAPI sources when none of them is openapi/kafka-connect.yaml; undefined otherwise. */
function otherSources(file: string): Set<string> | undefined {
  const doc = parse(readFileSync(file, 'utf8')) as { sourceDescriptions?: Array<{ url: string; type?: string }> };
  const urls = (doc.sourceDescriptions ?? []).filter((d) => d.type !== 'asyncapi').map((d) => d.url);
  // The seeds name their own copies of the Connect API (not in this repository): those are checked against ours, as before.
  if (urls.length === 0 || urls.some((u) => /kafka-connect\.ya?ml$/.test(u) || !existsSync(join(dirname(file), u)))) return undefined;
  const ids = new Set<string>();
  for (const url of urls) for (const o of listOperations(parse(readFileSync(join(dirname(file), url), 'utf8')) as never)) ids.add(o.operationId);
  return ids;
}

/** The operations of a document's AsyncAPI sources (3.x `operations`, 2.x `operationId`s): its message steps are checked against those. */
function asyncOperations(file: string): Set<string> {
  const doc = parse(readFileSync(file, 'utf8')) as { sourceDescriptions?: Array<{ url: string; type?: string }> };
  const ids = new Set<string>();
  for (const d of (doc.sourceDescriptions ?? []).filter((x) => x.type === 'asyncapi')) {
    const path = join(dirname(file), d.url);
    if (!existsSync(path)) continue;
    const api = parse(readFileSync(path, 'utf8')) as { operations?: Record<string, unknown>; channels?: Record<string, Record<string, { operationId?: string }>> };
    for (const id of Object.keys(api.operations ?? {})) ids.add(id);
    for (const channel of Object.values(api.channels ?? {})) for (const op of Object.values(channel ?? {})) if (op?.operationId) ids.add(op.operationId);
  }
  return ids;
}

test('the seed workflows ship inside the repository (examples/seeds)', () => {
  const seeds = workflowFiles().filter((f) => f.startsWith(seedsDir));
  assert.ok(seeds.length >= 2, `expected the two seed workflows in ${seedsDir}, found ${seeds.length}`);
});

test('every operation the workflows call is described in openapi/kafka-connect.yaml (or in the other API a document names)', () => {
  const operations = listOperations(loadOpenApi());
  const ids = new Set(operations.map((o) => o.operationId));
  const pointers = new Set(operations.map((o) => `/paths/${o.path.replace(/~/g, '~0').replace(/\//g, '~1')}/${o.method}`));
  const files = workflowFiles();
  assert.ok(files.length > 0, 'no workflow documents found');
  const missing: string[] = [];
  let checked = 0;
  for (const file of files) {
    for (const ref of stepReferences(file)) {
      checked += 1;
      // A document whose sources are other APIs (the Iceberg REST catalog's table step) is checked against those.
      const other = otherSources(file);
      if (other) {
        const id = ref.operationId?.split('.').pop();
        if (id !== undefined && !other.has(id)) missing.push(`${file} step ${ref.stepId}: operationId ${ref.operationId}`);
        continue;
      }
      if (ref.operationId !== undefined) {
        // `$sourceDescriptions.<name>.<operationId>` names the source too; the id is the last part.
        const id = ref.operationId.startsWith('$sourceDescriptions.') ? ref.operationId.split('.').slice(2).join('.') : ref.operationId;
        // A message step (replay's signal) is an operation of the document's AsyncAPI source.
        if (asyncOperations(file).has(id)) continue;
        if (!ids.has(id)) missing.push(`${file} step ${ref.stepId}: operationId ${ref.operationId}`);
      } else if (ref.operationPath !== undefined) {
        const pointer = decodeURIComponent(ref.operationPath.slice(ref.operationPath.indexOf('#') + 1));
        if (!pointers.has(pointer)) missing.push(`${file} step ${ref.stepId}: operationPath ${ref.operationPath}`);
      }
    }
  }
  assert.ok(checked >= 12, `expected the seeds' 12 operation steps at least, checked ${checked}`);
  assert.deepEqual(missing, [], `operations not described:\n${missing.join('\n')}`);
});

test('the operationIds the seeds use are the ones issue 3 names', () => {
  const ids = new Set(listOperations(loadOpenApi()).map((o) => o.operationId));
  for (const id of ['stopConnector', 'getConnectorOffsets', 'alterConnectorOffsets', 'resetConnectorOffsets', 'resumeConnector', 'getConnectorStatus',
    'listConnectors', 'createConnector', 'getConnector', 'getConnectorConfig', 'putConnectorConfig', 'pauseConnector', 'restartConnector',
    'deleteConnector', 'getConnectorTasks', 'getTaskStatus', 'restartTask', 'getConnectorTopics', 'listConnectorPlugins',
    'validateConnectorConfig', 'getHealth', 'getServerInfo']) {
    assert.ok(ids.has(id), `operationId ${id} missing`);
  }
});
