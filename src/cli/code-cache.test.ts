// The launcher's V8 code cache (code-cache.ts): each case runs a small CommonJS file in a child
// process, as bin/offsetctl does, and reads what became of the cache and what the code returned.
// Real parts: child processes.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeCacheFile } from './code-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'offsetctl-code-cache-'));
const loader = new URL('./code-cache.js', import.meta.url).href;
// The child: optional V8 flag, load the file through the cache, print status and result, exit.
const child = join(dir, 'child.mjs');
writeFileSync(child, `import { loadWithCodeCache } from ${JSON.stringify(loader)};
import { setFlagsFromString } from 'node:v8';
const [file, cache, exit, flag] = process.argv.slice(2);
if (flag) setFlagsFromString(flag);
const r = loadWithCodeCache(file, cache === '-' ? undefined : cache);
process.stdout.write(r.status + ' ' + r.exports.value());
process.exitCode = Number(exit);
`);

function run(script: string, cache: string, opts: { exit?: number; flag?: string } = {}): { status: string; value: string } {
  const r = spawnSync(process.execPath, [child, script, cache, String(opts.exit ?? 0), ...(opts.flag ? [opts.flag] : [])], { encoding: 'utf8' });
  assert.equal(r.status, opts.exit ?? 0, r.stderr);
  const [status = '', value = ''] = r.stdout.split(' ');
  return { status, value };
}

function header(cache: string): { exitStatus: number; length: number } {
  const buf = readFileSync(cache);
  return JSON.parse(buf.subarray(0, buf.indexOf(10)).toString('utf8')) as { exitStatus: number; length: number };
}

function script(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, `module.exports = { value: () => ${text} };\n`);
  return file;
}

test('the first run writes the cache, the next one runs from it', () => {
  const file = script('a.cjs', "'a' + [1, 2, 3].map((x) => x * 2).join('')");
  const cache = join(dir, 'cache', 'a.bin');
  assert.deepEqual(run(file, cache), { status: 'none', value: 'a246' });
  assert.ok(header(cache).length > 0);
  assert.deepEqual(run(file, cache), { status: 'used', value: 'a246' });
});

test('a damaged cache is compiled afresh and written again', () => {
  const file = script('b.cjs', "'b'");
  const cache = join(dir, 'b.bin');
  run(file, cache);
  const buf = readFileSync(cache);
  buf[buf.length - 5] = (buf[buf.length - 5] ?? 0) ^ 0xff;
  writeFileSync(cache, buf);
  assert.deepEqual(run(file, cache), { status: 'corrupt', value: 'b' });
  assert.deepEqual(run(file, cache), { status: 'used', value: 'b' });
  writeFileSync(cache, 'not a cache');
  assert.deepEqual(run(file, cache), { status: 'corrupt', value: 'b' });
});

test('a rebuilt file of the same length never runs the old code', () => {
  const file = script('c.cjs', "'old'");
  const cache = join(dir, 'c.bin');
  run(file, cache);
  const { mtime } = statSync(file);
  script('c.cjs', "'new'");
  // npm installs every file with the same mtime: only the content tells the builds apart.
  utimesSync(file, mtime, mtime);
  assert.deepEqual(run(file, cache), { status: 'stale', value: 'new' });
  assert.deepEqual(run(file, cache), { status: 'used', value: 'new' });
});

test('code cached under other V8 flags is refused by V8 and replaced', () => {
  const file = script('d.cjs', "'d'");
  const cache = join(dir, 'd.bin');
  run(file, cache);
  assert.deepEqual(run(file, cache, { flag: '--liftoff-only' }), { status: 'rejected', value: 'd' });
  assert.deepEqual(run(file, cache, { flag: '--liftoff-only' }), { status: 'used', value: 'd' });
});

test("a failed run's cache gives way to a successful run's, not the other way round", () => {
  const file = script('e.cjs', "'e'");
  const cache = join(dir, 'e.bin');
  run(file, cache, { exit: 3 });
  assert.equal(header(cache).exitStatus, 3);
  assert.equal(run(file, cache).status, 'used');
  assert.equal(header(cache).exitStatus, 0, 'rewritten by the successful run');
  run(file, cache, { exit: 2 });
  assert.equal(header(cache).exitStatus, 0, 'a failed run keeps the successful one');
});

test('without a cache file it just runs the code; a folder it cannot write costs only speed', () => {
  const file = script('f.cjs', "'f'");
  assert.deepEqual(run(file, '-'), { status: 'off', value: 'f' });
  writeFileSync(join(dir, 'a-file'), '');
  assert.deepEqual(run(file, join(dir, 'a-file', 'f.bin')), { status: 'none', value: 'f' });
});

test('one cache per verb, in the cache folder the environment names', () => {
  assert.equal(codeCacheFile(['rewind', 'c1'], { HOME: '/home/me' }), '/home/me/.cache/offsetctl/code-cache/rewind.bin');
  assert.equal(codeCacheFile(['rewind', 'c1', '--dry-run'], { XDG_CACHE_HOME: '/x' }), '/x/offsetctl/code-cache/rewind-dry-run.bin');
  assert.equal(codeCacheFile(['runs', '--help'], { OFFSETCTL_CODE_CACHE_DIR: '/c' }), '/c/runs-help.bin');
  assert.equal(codeCacheFile(['../../etc/x'], { OFFSETCTL_CODE_CACHE_DIR: '/c' }), '/c/other.bin');
  assert.equal(codeCacheFile([], { OFFSETCTL_CODE_CACHE_DIR: '/c' }), '/c/other.bin');
  assert.equal(codeCacheFile(['rewind'], { OFFSETCTL_CODE_CACHE_DIR: '/c', NODE_DISABLE_COMPILE_CACHE: '1' }), undefined);
});
