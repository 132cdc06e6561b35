#!/usr/bin/env node
// `npm test`: build, run the unit suite, make sure the local sandbox cluster runs (starting it
// when needed and stopping it afterwards if this script started it), run the integration suite
// against it, and print one closing line `N passed, N failed`.
//   --unit          unit tests only (no Kafka needed)
//   --integration   integration tests only
// OFFSETCTL_KEEP_SANDBOX=1 leaves a sandbox this script started running.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const args = new Set(process.argv.slice(2));
const wantUnit = !args.has('--integration');
const wantIntegration = !args.has('--unit');
const cli = join(root, 'bin', 'offsetctl');

function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { stdio: 'inherit', cwd: root, ...opts });
  return r.status ?? 1;
}

function testFiles(dir) {
  const out = [];
  let entries;
  try { entries = readdirSync(dir, { withFileTypes: true, recursive: true }); } catch { return out; }
  for (const e of entries) if (e.isFile() && e.name.endsWith('.test.js')) out.push(join(e.parentPath ?? e.path, e.name));
  return out.sort();
}

// tsc for the tests, then the one-file bundle bin/offsetctl runs (scripts/build.mjs does both).
if (run(process.execPath, [join(root, 'scripts', 'build.mjs')]) !== 0) {
  console.error('build failed');
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const all = testFiles(join(root, 'dist'));
const isIntegration = (f) => f.includes(`${join('dist', 'test', 'integration')}`);
const totals = { pass: 0, fail: 0, skipped: 0 };
const tapDir = mkdtempSync(join(tmpdir(), 'offsetctl-tap-'));

function runSuite(name, files, concurrency) {
  if (files.length === 0) return;
  const tap = join(tapDir, `${name}.tap`);
  console.log(`\n=== ${name}: ${files.length} files ===`);
  run(process.execPath, [
    '--test', `--test-concurrency=${concurrency}`,
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tap}`,
    ...files,
  ]);
  let text = '';
  try { text = readFileSync(tap, 'utf8'); } catch { /* no report: counted as failure below */ }
  const count = (key) => Number((text.match(new RegExp(`^# ${key} (\\d+)$`, 'm')) ?? [])[1] ?? 0);
  if (!text) totals.fail += 1;
  totals.pass += count('pass');
  totals.fail += count('fail') + count('cancelled');
  totals.skipped += count('skipped');
}

if (wantUnit) runSuite('unit', all.filter((f) => !isIntegration(f)), 2);

let startedSandbox = false;
if (wantIntegration) {
  const files = all.filter(isIntegration);
  if (files.length > 0) {
    const status = spawnSync(process.execPath, [cli, 'sandbox', 'status', '--output', 'json'], { cwd: root, encoding: 'utf8' });
    let running = false;
    try { running = JSON.parse(status.stdout).running === true; } catch { running = false; }
    if (!running) {
      console.log('\n=== starting the sandbox cluster (offsetctl sandbox up) ===');
      if (run(process.execPath, [cli, 'sandbox', 'up']) !== 0) {
        console.error('could not start the sandbox: integration tests not run');
        totals.fail += files.length;
      } else startedSandbox = true;
    }
    if (running || startedSandbox) {
      try {
        runSuite('integration', files, 1);
      } finally {
        if (startedSandbox && process.env.OFFSETCTL_KEEP_SANDBOX !== '1') {
          console.log('\n=== stopping the sandbox cluster ===');
          run(process.execPath, [cli, 'sandbox', 'down']);
        }
      }
    }
  }
}

rmSync(tapDir, { recursive: true, force: true });
console.log(`\n${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`);
process.exit(totals.fail === 0 && totals.pass > 0 ? 0 : 1);
