// The on-disk cache of parsed documents: hits give the same value, a corrupted or foreign file
// falls back to parsing, concurrent writers never leave a half file, and diagnostics still get
// their line and column on a hit.
// Real parts: a SQLite store file, child processes, spawns the CLI.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseDocumentText, type DocumentCache } from '../../src/arazzo/document/parse-document.js';
import { validateArazzo } from '../../src/arazzo/document/validate-arazzo.js';
import { documentCache } from '../../src/cli/document-cache.js';
import { loadOpsWorkflow, useDocumentCache } from '../../src/ops/workflows/index.js';
import { runCli } from '../support/cli.js';
import { openapiPath, repoRoot, seedsDir } from '../support/repo.js';

const seed = join(seedsDir, 'reset-connector-offsets.arazzo.yaml');

function counting(cache: DocumentCache): DocumentCache & { hits: number; sets: number } {
  const c = { hits: 0, sets: 0, key: cache.key, get: (k: string) => {
    const v = cache.get(k);
    if (v !== undefined) c.hits++;
    return v;
  }, set: (k: string, v: unknown) => {
    c.sets++;
    cache.set(k, v);
  } };
  return c;
}

test('a second parse of the same text is a hit with an equal value; another text is a miss', () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-doccache-'));
  const cache = counting(documentCache(dir));
  const text = readFileSync(openapiPath, 'utf8');
  const first = parseDocumentText(text, '/a/kafka-connect.yaml', { cache });
  const second = parseDocumentText(text, '/b/elsewhere.yaml', { cache });
  assert.equal(cache.sets, 1);
  assert.equal(cache.hits, 1);
  assert.deepEqual(second.value, first.value);
  assert.notEqual(second.value, first.value, 'a fresh copy, not a shared object');
  // .inf survives (JSON could not carry it).
  const inf = parseDocumentText('x: .inf\n', '/c.yaml', { cache });
  assert.deepEqual(parseDocumentText('x: .inf\n', '/c.yaml', { cache }).value, inf.value);
  assert.equal((inf.value as { x: number }).x, Infinity);
  // The same text as .json is parsed by stricter rules: a different key.
  assert.notEqual(cache.key('{}', 'a.json'), cache.key('{}', 'a.yaml'));
});

test('a hit still locates pointers at their line and column (the YAML is parsed on demand)', () => {
  const cache = documentCache(mkdtempSync(join(tmpdir(), 'offsetctl-doccache-')));
  const text = 'arazzo: 1.0.1\ninfo:\n  title: t\n  version: "1"\n';
  parseDocumentText(text, '/d.yaml', { cache });
  const hit = parseDocumentText(text, '/d.yaml', { cache });
  assert.deepEqual(hit.locate('/info/title'), { line: 3, column: 3 });
});

test('a corrupted or foreign cache file is ignored and replaced', () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-doccache-'));
  const cache = counting(documentCache(dir));
  const text = 'a: 1\n';
  parseDocumentText(text, '/e.yaml', { cache });
  const folder = join(dir, 'cache', 'documents');
  const [file] = readdirSync(folder);
  assert.ok(file);
  for (const junk of [Buffer.from('not v8 at all'), Buffer.alloc(0), Buffer.from([0xff, 0x0f, 0x6f, 0x22, 0x01, 0x61])]) {
    writeFileSync(join(folder, file), junk);
    const doc = parseDocumentText(text, '/e.yaml', { cache });
    assert.deepEqual(doc.value, { a: 1 });
  }
  assert.equal(cache.hits, 0);
  assert.deepEqual(parseDocumentText(text, '/e.yaml', { cache }).value, { a: 1 });
  assert.equal(cache.hits, 1, 'rewritten after the corruption');
});

test('concurrent offsetctl processes share one cache folder without errors', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'offsetctl-doccache-'));
  const args = ['workflow', 'validate', seed, '--source', `kafkaConnectApi=${openapiPath}`, '--state-dir', stateDir];
  const run = () => new Promise<{ status: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'offsetctl'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (status) => resolve({ status, out }));
  });
  const results = await Promise.all([run(), run(), run(), run()]);
  for (const r of results) {
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /: valid/);
  }
  const files = readdirSync(join(stateDir, 'cache', 'documents'));
  assert.equal(files.filter((f) => f.endsWith('.tmp')).length, 0, 'no temp files left');
  assert.equal(files.length, 3, 'one entry per document (workflow and OpenAPI), and the workflow\'s validation result');
  const again = await runCli(args);
  assert.equal(again.status, 0, again.stderr);
});

test('a validation result is kept beside the parsed value: the same text at the same path is not checked again', () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-doccache-'));
  const cache = { cache: documentCache(dir) };
  const text = readFileSync(seed, 'utf8');
  const first = validateArazzo(parseDocumentText(text, seed, cache));
  assert.deepEqual(first.filter((d) => d.severity === 'error'), []);
  // Were the check to run again it would see this damage; the kept result is returned instead.
  const again = parseDocumentText(text, seed, cache);
  (again.value as Record<string, unknown>).workflows = 'damaged';
  assert.deepEqual(validateArazzo(again), first);
  // Another path is checked anew (a result may name its file), and finds the damage.
  const elsewhere = parseDocumentText(text, join(dir, 'copy.arazzo.yaml'), cache);
  (elsewhere.value as Record<string, unknown>).workflows = 'damaged';
  assert.ok(validateArazzo(elsewhere).some((d) => d.severity === 'error'));
  // A document with errors: the kept diagnostics carry the same lines and columns.
  const bad = 'arazzo: 1.0.1\ninfo:\n  title: t\n  version: 1\nsourceDescriptions: []\nworkflows:\n- workflowId: w\n  steps:\n  - stepId: s\n    operationId: nowhere\n    successCriteria:\n    - condition: $statusCode ==\n';
  const badFirst = validateArazzo(parseDocumentText(bad, join(dir, 'bad.arazzo.yaml'), cache));
  assert.ok(badFirst.some((d) => d.severity === 'error' && d.line !== undefined));
  assert.deepEqual(validateArazzo(parseDocumentText(bad, join(dir, 'bad.arazzo.yaml'), cache)), badFirst);
});

test('the engine keeps no cache of its own: the shipped workflows and their OpenAPI source go through the cache handed to ops', async () => {
  const c = counting(documentCache(mkdtempSync(join(tmpdir(), 'offsetctl-doccache-'))));
  await loadOpsWorkflow('rewind', 'http://127.0.0.1:9');
  assert.equal(c.sets + c.hits, 0, 'nothing handed in: nothing cached');
  useDocumentCache(c);
  try {
    await loadOpsWorkflow('rewind', 'http://127.0.0.1:9');
    // the workflow, its OpenAPI description (read through the document's cache) and the workflow's validation
    assert.equal(c.sets, 3);
    await loadOpsWorkflow('rewind', 'http://127.0.0.1:9');
    assert.equal(c.hits, 3);
  } finally {
    useDocumentCache(undefined);
  }
});
