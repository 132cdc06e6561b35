// scripts/test.mjs, the README's test command, on a small project of its own: a built tree with
// one unit file and two integration files, a build script that does nothing and a `bin/offsetctl`
// that says the sandbox runs. Shown: a file whose test fails beside a neighbour and passes alone
// counts as passed and is listed as such; a test that fails alone too stays failed (exit 1); and
// with OFFSETCTL_NO_RETRY=1 the first failure counts. Each test counts once in the totals.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../support/repo.js';

function project(): { dir: string; marker: string } {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-runner-'));
  const marker = join(dir, 'failed-once');
  for (const d of ['scripts', 'bin', 'dist/test/integration', 'dist/test/unit']) mkdirSync(join(dir, d), { recursive: true });
  copyFileSync(join(repoRoot, 'scripts', 'test.mjs'), join(dir, 'scripts', 'test.mjs'));
  writeFileSync(join(dir, 'scripts', 'build.mjs'), 'process.exit(0);\n');
  writeFileSync(join(dir, 'bin', 'offsetctl'), '#!/usr/bin/env node\nconsole.log(JSON.stringify({ running: true }));\n');
  chmodSync(join(dir, 'bin', 'offsetctl'), 0o755);
  writeFileSync(join(dir, 'dist/test/unit/u.test.js'), "import test from 'node:test';\ntest('unit', () => {});\n");
  writeFileSync(
    join(dir, 'dist/test/integration/flaky.test.js'),
    "import test from 'node:test';\nimport { existsSync, writeFileSync } from 'node:fs';\n" +
      "test('steady', () => {});\n" +
      `test('fails the first time', () => { if (!existsSync(${JSON.stringify(marker)})) { writeFileSync(${JSON.stringify(marker)}, ''); throw new Error('first time'); } });\n`,
  );
  writeFileSync(
    join(dir, 'dist/test/integration/solid.test.js'),
    "import test from 'node:test';\ntest('s1', () => {});\ntest('s2', () => { if (process.env.BROKEN === '1') throw new Error('always'); });\n",
  );
  return { dir, marker };
}

function runTests(dir: string, env: Record<string, string> = {}): { status: number | null; out: string } {
  // Without NODE_TEST_CONTEXT: it would make the inner `node --test` report to this runner.
  const { NODE_TEST_CONTEXT: _own, ...outer } = process.env;
  const r = spawnSync(process.execPath, [join(dir, 'scripts', 'test.mjs')], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...outer, OFFSETCTL_TEST_PG: 'given', OFFSETCTL_FAILURES_FILE: '', OFFSETCTL_FLAKY_FILE: '', OFFSETCTL_NO_RETRY: '', BROKEN: '', ...env },
  });
  return { status: r.status, out: r.stdout };
}

test('a file that fails beside a neighbour runs again alone: passed alone counts as passed and is listed; failed alone stays failed', () => {
  const { dir, marker } = project();
  try {
    const flaky = runTests(dir);
    assert.equal(flaky.status, 0, flaky.out);
    assert.match(flaky.out, /failed beside a neighbour, passed alone \(1\):\n {2}\[integration\] fails the first time \(test\/integration\/flaky\.test\.js:\d+:\d+\): first time/);
    assert.match(flaky.out, /^5 passed, 0 failed, 0 skipped$/m);
    assert.doesNotMatch(flaky.out, /^failed tests/m);

    rmSync(marker);
    const broken = runTests(dir, { BROKEN: '1' });
    assert.equal(broken.status, 1, broken.out);
    assert.match(broken.out, /^4 passed, 1 failed, 0 skipped$/m);
    assert.match(broken.out, /failed tests \(2\):\n {2}\[integration\] s2 .*always\n {2}\[integration-again-alone\] s2 .*always/);

    rmSync(marker);
    const noRetry = runTests(dir, { OFFSETCTL_NO_RETRY: '1' });
    assert.equal(noRetry.status, 1, noRetry.out);
    assert.match(noRetry.out, /^4 passed, 1 failed, 0 skipped$/m);
    assert.doesNotMatch(noRetry.out, /again-alone/);
    assert.ok(existsSync(marker));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
