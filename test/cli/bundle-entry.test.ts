// The bundle's entry (src/cli/bundle-entry.ts) hands the libraries the files the build packed
// beside it: a command run from dist/bundle/cli uses yaml-bundle.cjs, undici-bundle.cjs and
// inputs-validators.cjs, and requires none of yaml's, undici's or ajv's own files. (The libraries
// never look for those files themselves: test/project/lazy-seam.test.ts.)
// Real parts: a child process running the built bundle (no server: the run stops at its inputs).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { repoRoot } from '../support/repo.js';

const bundle = pathToFileURL(join(repoRoot, 'dist', 'bundle', 'cli', 'offsetctl.mjs')).href;

// Runs the bundle's main() in a child and prints which CommonJS files it required.
const child = `
const { createRequire } = require('node:module');
import(${JSON.stringify(bundle)}).then(async (m) => {
  const args = ['workflow', 'run', 'workflows/rewind-connector-offsets.arazzo.yaml', '--input', 'connector=x', '--server', 'http://127.0.0.1:1'];
  await m.main(['node', 'offsetctl', ...args]);
  const files = Object.keys(createRequire(process.cwd() + '/').cache);
  process.stdout.write(JSON.stringify(files.map((f) => f.slice(${JSON.stringify(repoRoot.length + 1)}))));
});`;

test('a command run from the bundle uses the packed yaml, undici and inputs validators, not the packages', () => {
  const run = spawnSync(process.execPath, ['-e', child], {
    cwd: repoRoot,
    encoding: 'utf8',
    // The document cache would spare the parse (and yaml): this run parses.
    env: { ...process.env, OFFSETCTL_NO_DOCUMENT_CACHE: '1' },
  });
  // A refusal (exit 2) at the inputs: the document was parsed, the HTTP client made, the inputs checked.
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /E_INPUTS/);
  const files = JSON.parse(run.stdout) as string[];
  for (const packed of ['yaml-bundle.cjs', 'undici-bundle.cjs', 'inputs-validators.cjs']) {
    assert.ok(files.includes(`dist/bundle/cli/${packed}`), `${packed} not used: ${files.filter((f) => !f.includes('node_modules')).join(', ')}`);
  }
  assert.deepEqual(files.filter((f) => /node_modules\/(yaml|undici|ajv)\//.test(f)), []);
});
