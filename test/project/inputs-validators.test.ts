// The build compiles the shipped workflows' inputs schemas ahead of time (scripts/inputs-validators.mjs)
// so a rewind does not load ajv's compiler. These tests hold that file to what the engine would
// compile at run time: every shipped schema is in it under the key the engine looks up, and each
// precompiled function answers exactly as ajv does (verdict, errors, defaults filled in).
// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { loadDocumentFile } from '../../src/arazzo/document/index.js';
import { inputsRoot, inputsSchemaKey } from '../../src/arazzo/runner/inputs.js';
import type { Components, Workflow } from '../../src/arazzo/types.js';
import { repoRoot } from '../support/repo.js';

const requireCjs = createRequire(import.meta.url);
const validatorsFile = join(repoRoot, 'dist', 'bundle', 'cli', 'inputs-validators.cjs');

async function shippedSchemas(): Promise<Array<{ name: string; root: Record<string, unknown> }>> {
  const out: Array<{ name: string; root: Record<string, unknown> }> = [];
  for (const file of readdirSync(join(repoRoot, 'workflows')).filter((f) => f.endsWith('.arazzo.yaml')).sort()) {
    const doc = await loadDocumentFile(join(repoRoot, 'workflows', file));
    const value = doc.value as { workflows: Workflow[]; components?: Components };
    for (const wf of value.workflows) {
      if (wf.inputs && typeof wf.inputs === 'object') out.push({ name: `${file} ${wf.workflowId}`, root: inputsRoot(wf.inputs as Record<string, unknown>, value.components) });
    }
  }
  return out;
}

// Inputs every workflow sees: valid ones, missing ones, wrong types, out-of-enum values.
const samples: unknown[] = [
  {},
  { connectorName: 'c' },
  { connectorName: '' },
  { connectorName: 'c', offsets: [] },
  { connectorName: 'c', offsets: [{ partition: { filename: '/f' }, offset: { position: 7 } }] },
  { connectorName: 'c', offsets: [{ partition: {} }] },
  { connectorName: 'c', offsets: [{ partition: {}, offset: null }], resumeAfter: 'never' },
  { connectorName: 'c', offsets: [{ partition: {}, offset: null }], resumeAfter: 'sometimes' },
  { connectorName: 'c', targetState: 'PAUSED', offsets: [] },
  { connectorName: 'c', targetState: 'GONE', offsets: [] },
  { connectorName: 42, offsets: 'x', resumeAfter: 1, targetState: null },
  { connectorName: 'c', offsets: [{ partition: {}, offset: {} }], topic: 'orders', bootstrapServers: 'h:9092', expectedRecords: 3 },
];

test('the build precompiled every shipped inputs schema, under the key the engine looks up', async () => {
  assert.ok(existsSync(validatorsFile), `${validatorsFile} is built by scripts/build.mjs`);
  const validators = requireCjs(validatorsFile) as Record<string, () => unknown>;
  const schemas = await shippedSchemas();
  assert.ok(schemas.length >= 3, 'rewind, reset and restore have inputs');
  for (const { name, root } of schemas) {
    const key = inputsSchemaKey(root);
    assert.ok(key !== undefined && Object.hasOwn(validators, key), `${name}: precompiled under ${key}`);
  }
  assert.equal(Object.keys(validators).length, schemas.length, 'nothing else is in the file');
});

test('each precompiled validator answers as ajv compiling the schema at run time does', async () => {
  const validators = requireCjs(validatorsFile) as Record<string, () => ValidateFunction>;
  const { Ajv2020 } = requireCjs('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const ajv = new Ajv2020({ allErrors: true, useDefaults: true, strict: false, validateFormats: true, validateSchema: false });
  let invalid = 0;
  for (const { name, root } of await shippedSchemas()) {
    const precompiled = validators[inputsSchemaKey(root)!]!();
    const compiled = ajv.compile(root);
    for (const sample of samples) {
      const a = structuredClone(sample);
      const b = structuredClone(sample);
      const okA = precompiled(a);
      const okB = compiled(b);
      assert.equal(okA, okB, `${name} ${JSON.stringify(sample)}`);
      assert.deepEqual(precompiled.errors ?? null, compiled.errors ?? null, `${name} ${JSON.stringify(sample)}: errors`);
      assert.deepEqual(a, b, `${name} ${JSON.stringify(sample)}: defaults filled in alike`);
      if (!okA) invalid++;
    }
  }
  assert.ok(invalid > 0, 'some samples are refused (the comparison covers errors too)');
});
