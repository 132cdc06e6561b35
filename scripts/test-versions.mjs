#!/usr/bin/env node
// `npm run test:versions`: the operator commands and both seeds on several Kafka releases. For each
// version: `offsetctl sandbox up --kafka-version V` in its own folder, the integration files that
// run rewind, reset and rollback (source and sink) and the two seed workflows, then `sandbox down`.
//   (no flag)              every minor from 3.6 to 4.4 (ALL_KAFKA_VERSIONS)
//   --ci                   the issue's CI matrix: 3.6.2, 3.9.1, 4.0.2, 4.4.0 (CI_KAFKA_VERSIONS)
//   --ci-leg               what .ci/run's `versions` job runs: the CI matrix without the default
//                          release (4.4.0), which the main integration suite already runs on
//   --versions a,b         these versions
//   --worker-faults V      after V's tests, the worker-death cases (test/integration/faults-workers,
//                          they kill and restart V's workers) on the same sandbox
//   OFFSETCTL_VERSIONS_DIR parent of the per-version sandbox folders (default ~/.cache/offsetctl/versions);
//                          jars stay there, so each version is downloaded once
//   OFFSETCTL_VERSIONS_LANES        versions run at once, each on its own sandbox (default 2)
//   OFFSETCTL_VERSIONS_CONCURRENCY  test files run at once against one sandbox (default 1: files
//                          side by side rebalance each other's connectors, see below)
// Time is spent in three places (docs/reliability.md, "Kafka versions"): the jars (a Maven copy
// from ~/.m2, or a download on a cold machine), the sandbox start (one broker, two workers), and
// the tests, most of which wait on Connect (task start, offset flush every second) rather than
// use the CPU. So two versions run at once, each on its own sandbox (two sandboxes, ~3 GB of
// heap, at most), and a version's start overlaps the other lane's tests.
// Ends with one line `N passed, N failed`; exit 1 when anything failed.
import { spawn, spawnSync } from 'node:child_process';
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

const began = Date.now();
if (
  spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' }).status !== 0
) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const { ALL_KAFKA_VERSIONS, CI_KAFKA_VERSIONS, DEFAULT_KAFKA_VERSION } = await import(join(root, 'dist', 'src', 'sandbox', 'kafka-versions.js'));
const argv = process.argv.slice(2);
const listed = argv.indexOf('--versions');
const ciLeg = argv.includes('--ci-leg');
const versions =
  listed >= 0
    ? String(argv[listed + 1] ?? '')
        .split(',')
        .filter(Boolean)
    : ciLeg
      ? CI_KAFKA_VERSIONS.filter((v) => v !== DEFAULT_KAFKA_VERSION)
      : argv.includes('--ci')
        ? [...CI_KAFKA_VERSIONS]
        : [...ALL_KAFKA_VERSIONS];
const faultsAt = argv.includes('--worker-faults') ? String(argv[argv.indexOf('--worker-faults') + 1] ?? '') : undefined;
if (faultsAt !== undefined && !versions.includes(faultsAt)) {
  console.log(`--worker-faults ${faultsAt}: not one of the versions run (${versions.join(', ')})`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const concurrency = Math.max(1, Number(process.env.OFFSETCTL_VERSIONS_CONCURRENCY) || 1);
const lanes = Math.max(1, Number(process.env.OFFSETCTL_VERSIONS_LANES) || 2);
const parent = process.env.OFFSETCTL_VERSIONS_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'offsetctl', 'versions');
const tapDir = mkdtempSync(join(tmpdir(), 'offsetctl-versions-'));
const seconds = (ms) => Math.round(ms / 1000);
if (ciLeg) console.log(`Kafka ${DEFAULT_KAFKA_VERSION} (the sandbox default): covered by the main integration suite (job node-default), not run again here`);
console.log(`Kafka ${versions.join(', ')}: ${FILES.length} files each (${concurrency} at a time), ${lanes} versions at a time, each on its own sandbox`);

/** Runs a child, its output prefixed with the version so interleaved lines stay readable; resolves to its exit status. */
function run(version, args, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const prefix = (stream, out) => {
      let rest = '';
      stream.on('data', (chunk) => {
        const lines = (rest + chunk.toString('utf8')).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) out.write(`[${version}] ${line}\n`);
      });
      stream.on('end', () => {
        if (rest) out.write(`[${version}] ${rest}\n`);
      });
    };
    prefix(child.stdout, process.stdout);
    prefix(child.stderr, process.stderr);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

const envFor = (version) => ({ ...process.env, OFFSETCTL_SANDBOX_DIR: join(parent, `sandbox-${version}`) });

async function up(version) {
  const started = Date.now();
  const status = await run(version, [cli, 'sandbox', 'up', '--kafka-version', version, '--workers', '2'], envFor(version));
  return { status, ms: Date.now() - started };
}

async function tests(version, files = FILES, env = envFor(version), name = version) {
  const started = Date.now();
  const tap = join(tapDir, `${name}.tap`);
  await run(
    version,
    [
      '--test',
      `--test-concurrency=${concurrency}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tap}`,
      ...files,
    ],
    env,
  );
  let text = '';
  try {
    text = readFileSync(tap, 'utf8');
  } catch {
    /* counted as a failure */
  }
  const count = (key) => Number((text.match(new RegExp(`^# ${key} (\\d+)$`, 'm')) ?? [])[1] ?? 0);
  return { pass: count('pass'), fail: count('fail') + count('cancelled') + (text ? 0 : 1), ms: Date.now() - started };
}

const down = (version) => run(version, [cli, 'sandbox', 'down'], envFor(version));

const rows = [];
let passed = 0;
let failed = 0;
/** One version, start to end: its own sandbox, its tests, the worker deaths when asked, down. */
async function lane(version) {
  const started = await up(version);
  if (started.status !== 0) {
    rows.push({ version, up: seconds(started.ms), tests: 0, pass: 0, fail: 1, note: 'sandbox did not start' });
    failed += 1;
    await down(version);
    return;
  }
  const result = await tests(version);
  passed += result.pass;
  failed += result.fail;
  rows.push({ version, up: seconds(started.ms), tests: seconds(result.ms), pass: result.pass, fail: result.fail, note: '' });
  if (version === faultsAt) {
    // The sandbox is this script's own, so its workers may be killed (the tests restart them).
    const faults = await tests(
      version,
      [join(root, 'dist', 'test', 'integration', 'faults-workers.test.js')],
      { ...envFor(version), OFFSETCTL_FAULTS_WORKERS: '1' },
      `${version}-faults-workers`,
    );
    passed += faults.pass;
    failed += faults.fail;
    rows.push({ version: `${version} worker deaths`, up: 0, tests: seconds(faults.ms), pass: faults.pass, fail: faults.fail, note: '' });
  }
  await down(version);
}
// `lanes` versions at a time, each on its own sandbox: versions never share a cluster, so one
// version's connectors never rebalance another's (files of one version side by side did: a
// connector caught UNASSIGNED mid-rebalance is, rightly, not resumed by a rewind).
const queue = [...versions];
await Promise.all(
  Array.from({ length: Math.min(lanes, queue.length) }, async () => {
    for (let v = queue.shift(); v !== undefined; v = queue.shift()) await lane(v);
  }),
);
rows.sort((a, b) => versions.indexOf(a.version.split(' ')[0]) - versions.indexOf(b.version.split(' ')[0]));

console.log(`\n| Kafka | sandbox up | tests | passed | failed |\n|---|---|---|---|---|`);
for (const r of rows) console.log(`| ${r.version} | ${r.up} s | ${r.tests} s | ${r.pass} | ${r.fail}${r.note ? ` (${r.note})` : ''} |`);
if (ciLeg) console.log(`| ${DEFAULT_KAFKA_VERSION} | — | in the main integration suite | — | — |`);
console.log(`versions: ${versions.length} Kafka release(s) in ${seconds(Date.now() - began)} s (${lanes} at a time)`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
