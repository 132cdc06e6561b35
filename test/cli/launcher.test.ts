// bin/offsetctl picks how to run the CLI: on a Node without a module compile cache (20) the
// CommonJS build through V8's code cache (src/cli/code-cache.ts), elsewhere the ES module
// bundle with Node's own compile cache. Both must answer the same.
// Real parts: child processes, spawns the CLI.
import * as assert from 'node:assert/strict';
import * as nodeModule from 'node:module';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../support/cli.js';
import { cliPath, repoRoot } from '../support/repo.js';

const hasCompileCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

test(`the launcher runs the ${hasCompileCache ? 'ES module bundle (Node has a compile cache)' : 'CommonJS bundle through the code cache (Node has no compile cache)'}`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-launcher-'));
  const env = { OFFSETCTL_CODE_CACHE_DIR: dir, OFFSETCTL_CODE_CACHE_DEBUG: '1', NODE_DISABLE_COMPILE_CACHE: undefined };
  const first = await runCli(['version', '-o', 'json'], { env });
  const second = await runCli(['-o', 'json', 'version'], { env });
  for (const r of [first, second]) assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(second.stdout), JSON.parse(first.stdout));
  if (hasCompileCache) {
    assert.doesNotMatch(first.stderr + second.stderr, /code cache:/);
    assert.deepEqual(readdirSync(dir), []);
  } else {
    assert.match(first.stderr, /^code cache: none \(.*version\.bin\)$/m);
    assert.match(second.stderr, /^code cache: used \(.*version\.bin\)$/m);
    assert.deepEqual(readdirSync(dir), ['version.bin']);
  }
  // Node's own switch turns the cache off; the command still answers.
  const off = await runCli(['version', '-o', 'json'], { env: { ...env, NODE_DISABLE_COMPILE_CACHE: '1' } });
  assert.equal(off.status, 0, off.stderr);
  assert.deepEqual(JSON.parse(off.stdout), JSON.parse(first.stdout));
  if (!hasCompileCache) assert.match(off.stderr, /^code cache: off$/m);
});

test('a copy without dist/ says how to build it (exit 2), and --version still answers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-unbuilt-'));
  mkdirSync(join(dir, 'bin'));
  copyFileSync(cliPath, join(dir, 'bin', 'offsetctl'));
  copyFileSync(join(repoRoot, 'bin', 'package.json'), join(dir, 'bin', 'package.json'));
  copyFileSync(join(repoRoot, 'package.json'), join(dir, 'package.json'));
  const unbuilt = spawnSync(process.execPath, [join(dir, 'bin', 'offsetctl'), 'connectors'], { encoding: 'utf8' });
  assert.equal(unbuilt.status, 2, unbuilt.stderr);
  assert.match(unbuilt.stderr, /offsetctl is not built: run `npm ci`/);
  const version = spawnSync(process.execPath, [join(dir, 'bin', 'offsetctl'), '--version'], { encoding: 'utf8' });
  assert.equal(version.status, 0, version.stderr);
  assert.match(version.stdout, /^\d+\.\d+\.\d+/);
});
