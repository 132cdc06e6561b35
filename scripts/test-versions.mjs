#!/usr/bin/env node
// `npm run test:versions`: the operator commands and both seeds on several Kafka releases. For each
// version: `offsetctl sandbox up --kafka-version V` in its own folder, the integration files that
// run rewind, reset and rollback (source and sink) and the two seed workflows, then `sandbox down`.
//   (no flag)              every minor from 3.6 to 4.4 (ALL_KAFKA_VERSIONS, about 6-8 min per version)
//   --ci                   the CI matrix: 3.6.2, 3.9.1, 4.0.2, 4.4.0 (CI_KAFKA_VERSIONS)
//   --versions a,b         these versions
//   OFFSETCTL_VERSIONS_DIR parent of the per-version sandbox folders (default ~/.cache/offsetctl/versions);
//                          jars stay there, so each version is downloaded once
// Ends with one line `N passed, N failed`; exit 1 when anything failed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const cli = join(root, 'bin', 'offsetctl');
const FILES = [
  'ops-rewind-rollback', // rewind + rollback of a source (offsets and state exactly back)
  'ops-reset', // reset + rollback
  'ops-sink-and-states', // sink rewind (kafka_offset), PAUSED kept / --resume
  'rewind-workflow', // seed + shipped rewind workflow, source and sink
  'reset-workflow', // seed + shipped reset workflow
  'kafka-version', // GET / reports the version the sandbox runs; version-specific behaviour
].map((f) => join(root, 'dist', 'test', 'integration', `${f}.test.js`));

if (spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' }).status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const { ALL_KAFKA_VERSIONS, CI_KAFKA_VERSIONS } = await import(join(root, 'dist', 'src', 'sandbox', 'kafka-versions.js'));
const argv = process.argv.slice(2);
const listed = argv.indexOf('--versions');
const versions = listed >= 0 ? String(argv[listed + 1] ?? '').split(',').filter(Boolean) : argv.includes('--ci') ? [...CI_KAFKA_VERSIONS] : [...ALL_KAFKA_VERSIONS];
const parent = process.env.OFFSETCTL_VERSIONS_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'offsetctl', 'versions');
const tapDir = mkdtempSync(join(tmpdir(), 'offsetctl-versions-'));

const rows = [];
let passed = 0;
let failed = 0;
for (const version of versions) {
  const dir = join(parent, `sandbox-${version}`);
  const env = { ...process.env, OFFSETCTL_SANDBOX_DIR: dir };
  console.log(`\n=== Kafka ${version} (${dir}) ===`);
  let started = Date.now();
  const up = spawnSync(process.execPath, [cli, 'sandbox', 'up', '--kafka-version', version, '--workers', '2'], { cwd: root, env, stdio: 'inherit' });
  const upSeconds = Math.round((Date.now() - started) / 1000);
  if (up.status !== 0) {
    rows.push({ version, up: upSeconds, tests: 0, pass: 0, fail: 1, note: 'sandbox did not start' });
    failed += 1;
    spawnSync(process.execPath, [cli, 'sandbox', 'down'], { cwd: root, env, stdio: 'inherit' });
    continue;
  }
  started = Date.now();
  const tap = join(tapDir, `${version}.tap`);
  spawnSync(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...FILES], { cwd: root, env, stdio: 'inherit' });
  const testSeconds = Math.round((Date.now() - started) / 1000);
  let text = '';
  try { text = readFileSync(tap, 'utf8'); } catch { /* counted as a failure */ }
  const count = (key) => Number((text.match(new RegExp(`^# ${key} (\\d+)$`, 'm')) ?? [])[1] ?? 0);
  const pass = count('pass');
  const fail = count('fail') + count('cancelled') + (text ? 0 : 1);
  passed += pass;
  failed += fail;
  spawnSync(process.execPath, [cli, 'sandbox', 'down'], { cwd: root, env, stdio: 'inherit' });
  rows.push({ version, up: upSeconds, tests: testSeconds, pass, fail, note: '' });
}

console.log('\n| Kafka | sandbox up | tests | passed | failed |\n|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.version} | ${r.up} s | ${r.tests} s | ${r.pass} | ${r.fail}${r.note ? ` (${r.note})` : ''} |`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
