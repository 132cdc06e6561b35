// scripts/test.mjs, the README's test command, on a small project of its own: a built tree with
// one unit file and five integration files, a build script that does nothing and a `bin/offsetctl`
// that says the sandbox runs with the lanes' clusters. Shown: the integration files run in two
// lanes at once, one file at a time per lane, each told its lane (OFFSETCTL_LANE); a move file is
// kept in lane 1; the rest wait in one queue, longest first by the durations table; a test that fails is counted
// failed once, and its file is not run again. Uses: real child processes (node --test), no Kafka.
// Real parts: a real PostgreSQL, child processes.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../support/repo.js';

const STATUS = {
  running: true, connect: ['http://127.0.0.1:1'], bootstrap: '127.0.0.1:2', clusters: [{ name: 'main', connect: [] }, { name: 'lane-2', connect: [] }],
};

/**
 * An integration file that records its lane and when it ran, taking `ms`; `fails` makes its second
 * test fail. With MEET=1 it also waits (up to 20 s) until a file of another lane has started: it
 * sees one only when the lanes run at the same time, however slowly the machine starts processes.
 */
function integrationFile(log: string, ms: number, fails = false): string {
  const meet = JSON.stringify(join(dirname(log), 'started-'));
  return "import test from 'node:test';\nimport { appendFileSync, existsSync, writeFileSync } from 'node:fs';\n" +
    `writeFileSync(${meet} + process.env.OFFSETCTL_LANE, '');\n` +
    `test('records its lane', async () => { const began = Date.now(); await new Promise((r) => setTimeout(r, ${ms}));\n` +
    `  const lane = process.env.OFFSETCTL_LANE; let met = false;\n` +
    `  for (let i = 0; process.env.MEET === '1' && i < 200 && !met; i++) {\n` +
    `    met = ['1', '2'].some((l) => l !== lane && existsSync(${meet} + l)); if (!met) await new Promise((r) => setTimeout(r, 100));\n  }\n` +
    `  const file = import.meta.url.split('/').pop();\n` +
    `  appendFileSync(${JSON.stringify(log)}, JSON.stringify({ file, lane, began, ended: Date.now(), met }) + '\\n'); });\n` +
    `test('second', () => { ${fails ? "throw new Error('always');" : ''} });\n`;
}

function project(): { dir: string; log: string } {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-runner-'));
  const log = join(dir, 'ran.jsonl');
  for (const d of ['scripts', 'bin', 'dist/test/integration', 'dist/test/unit']) mkdirSync(join(dir, d), { recursive: true });
  copyFileSync(join(repoRoot, 'scripts', 'test.mjs'), join(dir, 'scripts', 'test.mjs'));
  writeFileSync(join(dir, 'scripts', 'build.mjs'), `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(join(dir, 'built'))}, 'x');\n`);
  // Last measured: a and b long, c and d short; move-x would go anywhere by its time, but is lane 1's.
  writeFileSync(join(dir, 'scripts', 'test-durations.json'), JSON.stringify({ seconds: { a: 100, b: 90, c: 10, d: 5, 'move-x': 1 } }));
  writeFileSync(join(dir, 'bin', 'offsetctl'), `#!/usr/bin/env node\nconsole.log(${JSON.stringify(JSON.stringify(STATUS))});\n`);
  chmodSync(join(dir, 'bin', 'offsetctl'), 0o755);
  writeFileSync(join(dir, 'dist/test/unit/u.test.js'), "import test from 'node:test';\ntest('unit', () => {});\n");
  for (const [name, ms] of [['a', 600], ['b', 500], ['c', 200], ['d', 200], ['move-x', 200]] as const) {
    writeFileSync(join(dir, `dist/test/integration/${name}.test.js`), integrationFile(log, ms));
  }
  return { dir, log };
}

function runTests(dir: string, args: string[] = [], env: Record<string, string> = {}): { status: number | null; out: string } {
  // Without NODE_TEST_CONTEXT: it would make the inner `node --test` report to this runner.
  const { NODE_TEST_CONTEXT: _own, ...outer } = process.env;
  const r = spawnSync(process.execPath, [join(dir, 'scripts', 'test.mjs'), ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...outer, OFFSETCTL_TEST_PG: 'given', OFFSETCTL_FAILURES_FILE: '', OFFSETCTL_PLUGINS_LANE_DONE_FILE: '', OFFSETCTL_TEST_LANES: '2', OFFSETCTL_LANE: '', ...env },
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

interface Ran { file: string; lane: string; began: number; ended: number; met: boolean }

test('integration files run in lanes at once (two here, three by default), one at a time per lane, each told its lane; a move file stays in lane 1; '
  + 'lanes balanced by the durations table', () => {
  const { dir, log } = project();
  try {
    const r = runTests(dir, [], { MEET: '1' });
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /^11 passed, 0 failed, 0 skipped$/m);
    // Lane 1's own first; the rest wait in one queue, longest first by the durations table, and
    // a lane takes the next when it is free: lane 2 takes a at once (lane 1 runs move-x), lane 1
    // takes b after move-x; c and d go to whichever lane is free first.
    assert.match(r.out, /^lane 1 \(main\) first: move-x 1$/m);
    assert.match(r.out, /^then every lane takes the next of 4 files, longest first: a 100, b 90, c 10, d 5$/m);
    const ran = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Ran);
    const lane = (f: string) => ran.find((x) => x.file === `${f}.test.js`)?.lane;
    const began = (f: string) => ran.find((x) => x.file === `${f}.test.js`)?.began ?? Number.NaN;
    assert.deepEqual(['move-x', 'b', 'a'].map(lane), ['1', '1', '2']);
    assert.deepEqual(ran.map((x) => x.file).sort(), ['a', 'b', 'c', 'd', 'move-x'].map((f) => `${f}.test.js`), 'each file ran once');
    assert.ok(began('move-x') < began('b'), `lane 1 ran its own file first: ${JSON.stringify(ran)}`);
    const overlap = (x: Ran, y: Ran) => x.began < y.ended && y.began < x.ended;
    for (const x of ran) {
      for (const y of ran) if (x !== y && x.lane === y.lane) assert.ok(!overlap(x, y), `${x.file} and ${y.file} overlapped in lane ${x.lane}`);
    }
    assert.ok(ran.every((x) => x.met), `each file saw a file of the other lane started: the lanes ran at the same time: ${JSON.stringify(ran)}`);
    assert.doesNotMatch(r.out, /passed alone|again/);

    // By default three lanes: this sandbox has no lane-3, and the runner asks for it.
    const byDefault = runTests(dir, ['--integration', '--no-build'], { OFFSETCTL_TEST_LANES: '' });
    assert.match(byDefault.out, /sandbox up --clusters 2 --lanes 3\)/);
    assert.equal(byDefault.status, 1, byDefault.out);
    // --lanes 1: every file one by one, all in lane 1.
    rmSync(log);
    const one = runTests(dir, ['--integration', '--lanes', '1']);
    assert.equal(one.status, 0, one.out);
    assert.ok(readFileSync(log, 'utf8').trim().split('\n').every((l) => (JSON.parse(l) as Ran).lane === '1'));
    // Named files only; --no-build (CI's Node legs) uses the tree as built.
    rmSync(log);
    const builds = readFileSync(join(dir, 'built'), 'utf8').length;
    const named = runTests(dir, ['--integration', '--no-build', 'c', 'move-x']);
    assert.equal(named.status, 0, named.out);
    assert.equal(readFileSync(join(dir, 'built'), 'utf8').length, builds, 'no build with --no-build');
    assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as Ran).file).sort(), ['c.test.js', 'move-x.test.js']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a test that fails is failed: counted once, listed, exit 1, and its file is not run again', () => {
  const { dir, log } = project();
  try {
    writeFileSync(join(dir, 'dist/test/integration/c.test.js'), integrationFile(log, 100, true));
    const r = runTests(dir);
    assert.equal(r.status, 1, r.out);
    assert.match(r.out, /^10 passed, 1 failed, 0 skipped$/m);
    assert.match(r.out, /failed tests \(1\):\n {2}\[lane [12]\] second \(test\/integration\/c\.test\.js:\d+:\d+\): always/);
    const ran = readFileSync(log, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as Ran).file);
    assert.equal(ran.filter((f) => f === 'c.test.js').length, 1, 'c ran once');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
