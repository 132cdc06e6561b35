#!/usr/bin/env node
// `npm test`: build, run the unit suite, make sure the local sandbox cluster runs with a Connect
// cluster per test lane (starting it when needed and stopping it afterwards if this script started
// it), run the integration files in lanes, and print one closing line `N passed, N failed`.
// Tests of the team store share one throwaway PostgreSQL server: the one OFFSETCTL_TEST_PG
// describes (`.ci/run` starts it once for every job), else one this script starts
// (src/sandbox/postgres-server.ts) and stops at the end.
//   --unit              unit tests only (no Kafka needed)
//   --integration       integration tests only
//   --lanes N           integration lanes (default 3, or OFFSETCTL_TEST_LANES); 1 runs every file one by one
//   --no-build          use dist/ and bin/ as they are (CI's Node legs, after the main job built them)
//   --node-leg          with --unit: only the unit files of what differs between Node versions (NODE_LEG)
// OFFSETCTL_UNIT_CONCURRENCY: unit files run at once (default 4).
//   --record-durations  write each integration file's measured seconds into scripts/test-durations.json
//   NAME ...            only the integration files whose name (without .test.js) is given
// OFFSETCTL_KEEP_SANDBOX=1 leaves a sandbox this script started running.
//
// Lanes (docs/design.md, "Test lanes"): lane k is a queue of integration files run one after the
// other against a Connect cluster of its own on the one sandbox broker (lane 1: `main`, and the
// `second` and `other` clusters; lane k: `lane-k`, from `sandbox up --lanes N`), told to each file
// in OFFSETCTL_LANE (test/support/sandbox.ts). No two files share a Connect cluster at the same
// time, so one file's rebalances, stops and offset writes never reach another. A failed test is
// failed: nothing runs again.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { homedir, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const argv = process.argv.slice(2);
// Three lanes: the lanes' files mostly wait on Connect (task starts, offset flushes, rebalances),
// not the CPU. Measured back to back on this 2-core machine (npm test, sandbox and the plugins'
// lane alike): two lanes 1,348 s of integration with the machine 30–65% busy, three lanes 916 s
// with it 45–80% busy. Each lane is a Connect cluster of two workers on the one broker.
const DEFAULT_LANES = 3;
const args = new Set(argv.filter((a) => a.startsWith('--')));
const lanesAt = argv.indexOf('--lanes');
const laneCount = Number(lanesAt >= 0 ? argv[lanesAt + 1] : process.env.OFFSETCTL_TEST_LANES || DEFAULT_LANES);
const only = new Set(argv.filter((a, i) => !a.startsWith('--') && !(lanesAt >= 0 && i === lanesAt + 1)));
const wantUnit = !args.has('--integration');
const wantIntegration = !args.has('--unit');
if (!Number.isInteger(laneCount) || laneCount < 1 || laneCount > 4) {
  const given = lanesAt >= 0 ? argv[lanesAt + 1] : process.env.OFFSETCTL_TEST_LANES;
  console.error(`--lanes (or OFFSETCTL_TEST_LANES) must be a whole number from 1 to 4, got ${given}`);
  process.exit(2);
}
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
if (!args.has('--no-build') && run(process.execPath, [join(root, 'scripts', 'build.mjs')]) !== 0) {
  console.error('build failed');
  console.log('0 passed, 1 failed');
  process.exit(1);
}

// One PostgreSQL server for every test that needs one (each makes its own databases and users).
let startedPg;
if (!process.env.OFFSETCTL_TEST_PG) {
  const { startPgServer, describeServer, findPgBin, THROWAWAY_SETTINGS } = await import(join(root, 'dist', 'src', 'sandbox', 'postgres-server.js'));
  if (findPgBin()) {
    try {
      startedPg = await startPgServer({ settings: THROWAWAY_SETTINGS });
      process.env.OFFSETCTL_TEST_PG = describeServer(startedPg);
      console.log(`PostgreSQL for the tests on 127.0.0.1:${startedPg.port}`);
    } catch (err) {
      console.error(`could not start PostgreSQL for the tests: ${err.message}`);
    }
  } else {
    console.error('PostgreSQL is not installed (apt-get install postgresql): the team-store tests will fail');
  }
}
const stopPg = async () => {
  if (!startedPg) return;
  const { stopPgServer } = await import(join(root, 'dist', 'src', 'sandbox', 'postgres-server.js'));
  stopPgServer(startedPg, 'fast');
  rmSync(startedPg.dir, { recursive: true, force: true });
  startedPg = undefined;
};

const all = testFiles(join(root, 'dist'));
const isIntegration = (f) => f.includes(`${join('dist', 'test', 'integration')}`);
const totals = { pass: 0, fail: 0, skipped: 0 };
// `npm run lint` (Biome, format check, knip): one test of the full run (docs/lint.md); a finding fails it.
const lintHere = wantUnit && wantIntegration && readdirSync(root).includes('biome.json');
if (lintHere) { if (run('npm', ['run', '--silent', 'lint']) === 0) totals.pass += 1; else { totals.fail += 1; console.error('npm run lint failed'); } }
const tapDir = mkdtempSync(join(tmpdir(), 'offsetctl-tap-'));

/**
 * Each failed test of a TAP report as one line: suite, name, file:line and the error's first line.
 * Printed again at the end (and kept for `.ci/run`'s recap in OFFSETCTL_FAILURES_FILE): a failure
 * in a long run is otherwise hundreds of lines above the summary, beyond what a CI log shows.
 */
function failuresIn(tap, suite) {
  const out = [];
  const lines = tap.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)not ok \d+ - (.*)$/.exec(lines[i]);
    if (!m) continue;
    // The YAML block under it: `key: value`, or `key: |-` and the indented lines after.
    const fields = {};
    const indent = m[1].length + 2;
    for (let j = i + 1; j < lines.length && !/^\s*(not )?ok \d+ /.test(lines[j]) && lines[j].trim() !== '...'; j++) {
      const f = /^\s*(location|error|actual):\s?(.*)$/.exec(lines[j]);
      if (!f || lines[j].length - lines[j].trimStart().length !== indent) continue;
      let value = f[2];
      if (value.startsWith('|')) {
        const block = [];
        for (let k = j + 1; k < lines.length && (lines[k].trim() === '' || lines[k].length - lines[k].trimStart().length > indent); k++) block.push(lines[k].trim());
        value = block.filter(Boolean).join(' / ');
      }
      fields[f[1]] = value.replace(/^'(.*)'$/, '$1');
    }
    // A failed file shows as a parent "not ok" over its failed tests; the tests say more.
    if (/^\d+ subtests? failed$/.test(fields.error ?? '')) continue;
    const where = (fields.location ?? '').replace(/^.*\/dist\//, '');
    const actual = fields.actual ? `; actual: ${fields.actual.slice(0, 300)}` : '';
    out.push(`[${suite}] ${m[2]} (${where}): ${(fields.error ?? '').slice(0, 300)}${actual}`);
  }
  return out;
}
const failures = [];

function tapCounts(text) {
  const count = (key) => Number((text.match(new RegExp(`^# ${key} (\\d+)$`, 'm')) ?? [])[1] ?? 0);
  return { pass: count('pass'), fail: count('fail') + count('cancelled'), skipped: count('skipped') };
}

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
  const c = tapCounts(text);
  failures.push(...failuresIn(text, name));
  totals.pass += c.pass;
  totals.fail += c.fail + (text ? 0 : 1);
  totals.skipped += c.skipped;
}

/**
 * What differs between Node versions, for CI's Node 22/24/26 legs (`--unit --node-leg`): the
 * store's SQLite driver (node:sqlite from 22.13, better-sqlite3 before) and the pg driver, the
 * CLI's launcher and start-up (compile cache, the ES module bundle, signals, pipes), the HTTP
 * client (Node's fetch and undici), the Kafka client, the console's HTTP(S) server, the sandbox's
 * processes, and the engine package installed with npm. The rest of the unit suite (the engine's
 * expressions and criteria, ops' plans, the renderers, fuzzing) is plain JavaScript that every
 * Node runs alike: the default job runs it.
 */
const NODE_LEG = [
  /[\\/]dist[\\/]test[\\/](cli|store|web)[\\/]/,
  /[\\/]dist[\\/]src[\\/](store|http|kafka|sandbox)[\\/]/,
  /[\\/]dist[\\/]src[\\/]cli[\\/][^\\/]+\.test\.js$/,
  /[\\/]dist[\\/]test[\\/]project[\\/](engine-package|test-runner)\.test\.js$/,
  /[\\/]dist[\\/]test[\\/]engine[\\/]cli\.test\.js$/,
];
const nodeLeg = args.has('--node-leg');
let unitSeconds = {};
try { unitSeconds = JSON.parse(readFileSync(join(root, 'scripts', 'test-durations.json'), 'utf8')).unitSeconds ?? {}; } catch { unitSeconds = {}; }
if (wantUnit) {
  // Longest first (seconds each file took alone, scripts/test-durations.json's unitSeconds): with two
  // files at a time, a long file started last would run on alone at the end.
  const unitKey = (f) => f.slice(f.lastIndexOf(`${join('dist', '')}`) + 5).replace(/\.test\.js$/, '').split('\\').join('/');
  const unitSecondsOf = (f) => unitSeconds[unitKey(f)] ?? 1;
  const unit = all.filter((f) => !isIntegration(f)).filter((f) => !nodeLeg || NODE_LEG.some((re) => re.test(f)))
    .sort((a, b) => unitSecondsOf(b) - unitSecondsOf(a) || a.localeCompare(b));
  // Four files at a time on this 2-core machine: many unit files wait on child processes and
  // PostgreSQL rather than the CPU (measured side by side, idle machine: 68 s with 2, 61 s with 3,
  // 58 s with 4). OFFSETCTL_UNIT_CONCURRENCY sets it.
  runSuite(nodeLeg ? 'unit (what differs between Node versions)' : 'unit', unit, Number(process.env.OFFSETCTL_UNIT_CONCURRENCY) || 4);
}

/**
 * Integration files that run in lane 1, and why: each uses something only lane 1 has. Nothing
 * else is pinned, and nothing runs alone: lane isolation covers what the old SERIAL list worked
 * around (a neighbour's rebalance or connector creation answering 409 to a file's own REST writes,
 * the seed workflows taking that 409 as a failure, a restart answered during a neighbour's
 * rebalance). test/support/sandbox.ts refuses these outside lane 1 (requireLaneOne).
 */
const LANE_ONE = [
  // Moves need a second Connect cluster: the sandbox's `second` is lane 1's; move-mirror also adds
  // and stops the `other` Kafka cluster.
  { re: /^move-/, why: 'uses the second (and other) Connect cluster' },
  // Stops the second cluster and adds it again: only lane 1 uses it, one file at a time.
  { re: /^sandbox-clusters$/, why: 'stops and adds the second cluster' },
  // `sandbox demo` makes its pipeline on the main cluster, which is lane 1's.
  { re: /^sandbox-demo(-failure)?$/, why: '`sandbox demo` runs on the main cluster' },
  // Two Connect clusters on one Kafka cluster: main and second.
  { re: /^(two-connect-clusters|lock-keys)$/, why: 'uses the second Connect cluster' },
];
const baseName = (f) => f.split(/[\\/]/).pop().replace(/\.test\.js$/, '');

/**
 * Files that need real connector plugins (Debezium, the JDBC sink, Iceberg) run in a lane of
 * their own, against a second sandbox started with them (`sandbox up --plugin … --cdc-postgres`,
 * in OFFSETCTL_PLUGINS_SANDBOX_DIR or ~/.cache/offsetctl/sandbox-plugins: the plugins stay cached
 * there), with OFFSETCTL_REQUIRE_PLUGINS=1 so a missing plugin fails instead of skipping.
 */
const PLUGIN_FILES = /^(sandbox-plugins|sandbox-demo-cdc|profiles-|replay-|verify-debezium)/;
const PLUGIN_ARGS = ['--plugin', 'debezium-postgres', '--plugin', 'debezium-jdbc-sink', '--plugin', 'iceberg-sink', '--cdc-postgres'];
const pluginsDir = process.env.OFFSETCTL_PLUGINS_SANDBOX_DIR
  || join(process.env.XDG_CACHE_HOME?.startsWith('/') ? process.env.XDG_CACHE_HOME : join(homedir(), '.cache'), 'offsetctl', 'sandbox-plugins');

/**
 * Seconds each integration file took when last measured (scripts/test-durations.json, written by
 * `--record-durations`), to balance the lanes: a file not in it counts as DEFAULT_SECONDS.
 */
const DURATIONS_FILE = join(root, 'scripts', 'test-durations.json');
const DEFAULT_SECONDS = 60;
let durations = {};
try { durations = JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')).seconds ?? {}; } catch { durations = {}; }
const secondsOf = (f) => durations[baseName(f)] ?? DEFAULT_SECONDS;

/**
 * The lanes' work: lane 1 runs its pinned files first; every other file waits in one queue,
 * longest first (by the last measured seconds), and each lane takes the next file when it is free
 * (so a lane slowed down by a loaded machine takes fewer, and the lanes end close together). The
 * plugins' lane takes from the same queue once its own files are done (its sandbox is a whole
 * sandbox: a broker and a Connect cluster of two workers), except the files that work on sandboxes
 * themselves (`sandbox-*`), which assume the default one — only with OFFSETCTL_PLUGINS_LANE_SHARES=1
 * (off by default: see below).
 */
function planQueue(files) {
  const pinned = (f) => LANE_ONE.some((p) => p.re.test(baseName(f)));
  const free = files.filter((f) => !pinned(f)).sort((a, b) => secondsOf(b) - secondsOf(a) || a.localeCompare(b));
  return { laneOne: files.filter(pinned), free };
}
// Off by default: measured in two CI rehearsals, a third lane of generic files made the
// integration phase no shorter on this 2-core machine (997 and 1,100 s, against 1,098 s with
// two lanes) and its files slower and less reliable (a sink that did not commit in 120 s).
const pluginsLaneShares = process.env.OFFSETCTL_PLUGINS_LANE_SHARES === '1';
const pluginsLaneMay = (f) => !/^sandbox-/.test(baseName(f));

/** Takes the next file from the shared queue that `may` allows, or undefined. */
function take(queue, may = () => true) {
  const at = queue.findIndex(may);
  return at < 0 ? undefined : queue.splice(at, 1)[0];
}

/**
 * The plugins' sandbox keeps its CDC PostgreSQL across runs (~/.cache): a test killed or failed
 * before its clean-up leaves its replication slot behind, and once max_replication_slots (10) are
 * taken every Debezium source fails with "Creation of replication slot failed" (a CI rehearsal
 * lost 7 tests so). Before the lane's first file, when no file of it runs, no slot is in use by a
 * test: every inactive slot is dropped.
 */
async function dropLeftoverSlots() {
  const status = spawnSync(process.execPath, [cli, 'sandbox', 'status', '--output', 'json', '--dir', pluginsDir], { cwd: root, encoding: 'utf8' });
  let url;
  try { url = JSON.parse(status.stdout)?.cdc?.url; } catch { url = undefined; }
  if (!url) return;
  const { createRequire } = await import('node:module');
  const { Client } = createRequire(import.meta.url)('pg');
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
    const dropped = await client.query('SELECT slot_name, pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE NOT active');
    if (dropped.rowCount > 0) console.log(`plugins' sandbox: dropped ${dropped.rowCount} replication slot(s) earlier runs left: ${dropped.rows.map((r) => r.slot_name).join(', ')}`);
  } catch (err) {
    console.error(`plugins' sandbox: could not drop the replication slots earlier runs left (${err.message})`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const measured = {};
let integrationBegan = Date.now();
const FILE_TIMEOUT_MS = (Number(process.env.OFFSETCTL_FILE_TIMEOUT_S) || 1800) * 1000;

/** One integration file in its own `node --test`, in lane `lane`; its spec output is printed whole when it ends. */
function runFile(file, lane, extraEnv = {}) {
  const name = baseName(file);
  const tap = join(tapDir, `${name}.tap`);
  const spec = join(tapDir, `${name}.spec`);
  const began = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [
      '--test', '--test-reporter=spec', `--test-reporter-destination=${spec}`, '--test-reporter=tap', `--test-reporter-destination=${tap}`, file,
    ], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, OFFSETCTL_LANE: String(lane === 'plugins' ? 1 : lane), ...extraEnv } });
    // A file that hangs past every test's own timeout is stopped and counted failed, not waited for.
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGTERM'); setTimeout(() => child.kill('SIGKILL'), 20_000).unref(); }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      const seconds = Math.round((Date.now() - began) / 1000);
      measured[name] = seconds;
      let text = '';
      try { text = readFileSync(tap, 'utf8'); } catch { /* counted below */ }
      let out = '';
      try { out = readFileSync(spec, 'utf8'); } catch { /* nothing printed */ }
      const c = tapCounts(text);
      const found = failuresIn(text, `lane ${lane}`);
      // No report, or a non-zero exit without a failed test (a crash outside any test): one failure.
      if (!text || timedOut || (code !== 0 && c.fail === 0)) {
        c.fail += 1;
        found.push(`[lane ${lane}] ${name}: ${timedOut ? `stopped after ${FILE_TIMEOUT_MS / 1000} s` : `exit ${code} with no failed test reported`}`);
      }
      totals.pass += c.pass;
      totals.fail += c.fail;
      totals.skipped += c.skipped;
      failures.push(...found);
      const at = Math.round((began - integrationBegan) / 1000);
      console.log(`\n--- lane ${lane}: ${name} (from +${at} s, ${seconds} s): ${c.pass} passed, ${c.fail} failed, ${c.skipped} skipped ---\n${out.trimEnd()}`);
      resolve();
    });
  });
}

/** The sandbox's status (`sandbox status --output json`), or undefined. */
function sandboxStatus() {
  const status = spawnSync(process.execPath, [cli, 'sandbox', 'status', '--output', 'json'], { cwd: root, encoding: 'utf8' });
  try { return JSON.parse(status.stdout); } catch { return undefined; }
}
const laneClusterName = (k) => (k === 1 ? 'main' : `lane-${k}`);
const hasLanes = (status, n) => Array.from({ length: n }, (_v, i) => laneClusterName(i + 1)).every((c) => (status?.clusters ?? []).some((x) => x.name === c));

/**
 * CI starts the Kafka versions leg once the plugins' lane is done (.ci/run): that lane ends well
 * before the other two, and its share of the machine would idle until they do. Said once, by
 * a file CI names (and at the end in any case, so CI never waits for a lane that did not run).
 */
function pluginsLaneDone() {
  // (A test of this runner runs it as a child: it clears the variable, or CI would start at once.)
  const file = process.env.OFFSETCTL_PLUGINS_LANE_DONE_FILE;
  if (file && !existsSync(file)) writeFileSync(file, `${new Date().toISOString()}\n`);
}

let startedSandbox = false;
if (wantIntegration) {
  const files = all.filter(isIntegration).filter((f) => only.size === 0 || only.has(baseName(f)));
  if (files.length > 0) {
    const before = sandboxStatus();
    const wasRunning = before?.running === true;
    let ready = wasRunning && hasLanes(before, laneCount);
    if (!ready) {
      // The second Connect cluster is lane 1's, for the move tests; lane-2 … are the other lanes'.
      const what = wasRunning ? 'adding the lanes\' clusters to the running sandbox' : 'starting the sandbox cluster';
      console.log(`\n=== ${what} (offsetctl sandbox up --clusters 2 --lanes ${laneCount}) ===`);
      if (run(process.execPath, [cli, 'sandbox', 'up', '--clusters', '2', '--lanes', String(laneCount)]) === 0) {
        startedSandbox = !wasRunning;
        ready = hasLanes(sandboxStatus(), laneCount);
      }
      if (!ready) {
        console.error('could not start the sandbox with its lanes\' clusters: integration tests not run');
        totals.fail += files.length;
      }
    }
    // The plugins' lane: its own sandbox, started (or reused) beside the others.
    const pluginFiles = files.filter((f) => PLUGIN_FILES.test(baseName(f)));
    let pluginsReady = false;
    let startedPlugins = false;
    const pluginEnv = { OFFSETCTL_SANDBOX_DIR: pluginsDir, OFFSETCTL_REQUIRE_PLUGINS: '1' };
    const pluginsUp = pluginFiles.length === 0 ? Promise.resolve() : new Promise((resolve) => {
      const wasUp = spawnSync(process.execPath, [cli, 'sandbox', 'status', '--output', 'json', '--dir', pluginsDir], { cwd: root, encoding: 'utf8' });
      let up = false;
      try { up = JSON.parse(wasUp.stdout).running === true; } catch { up = false; }
      console.log(`\n=== the plugins' sandbox (${pluginsDir}: offsetctl sandbox up ${PLUGIN_ARGS.join(' ')}) ===`);
      const child = spawn(process.execPath, [cli, 'sandbox', 'up', '--dir', pluginsDir, ...PLUGIN_ARGS], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
      child.on('close', (code) => {
        pluginsReady = code === 0;
        startedPlugins = pluginsReady && !up;
        if (!pluginsReady) console.error('could not start the plugins\' sandbox: its files fail');
        resolve();
      });
    });
    /** Stops the plugins' sandbox if this run started it (once; OFFSETCTL_KEEP_SANDBOX=1 keeps it). */
    let pluginsStopped;
    const stopPlugins = () => {
      pluginsStopped ??= !startedPlugins || process.env.OFFSETCTL_KEEP_SANDBOX === '1' ? Promise.resolve() : new Promise((resolve) => {
        console.log('\n=== stopping the plugins\' sandbox ===');
        spawn(process.execPath, [cli, 'sandbox', 'down', '--dir', pluginsDir], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] }).on('close', () => resolve());
      });
      return pluginsStopped;
    };
    if (ready) {
      try {
        const { laneOne, free: queue } = planQueue(files.filter((f) => !PLUGIN_FILES.test(baseName(f))));
        const sharing = pluginsLaneShares && laneCount > 1 && pluginFiles.length > 0;
        console.log(`\n=== integration: ${files.length} files in ${laneCount} lane(s)${pluginFiles.length > 0 ? ' and the plugins\' lane' : ''}, each on a Connect cluster of its own ===`);
        console.log(`lane 1 keeps: ${LANE_ONE.map((p) => `${p.re.source} (${p.why})`).join('; ')}`);
        console.log(`lane 1 (main) first: ${laneOne.map((f) => `${baseName(f)} ${secondsOf(f)}`).join(', ')}`);
        console.log(`then every lane${sharing ? ' (the plugins\' lane too, after its own files)' : ''} takes the next of ${queue.length} files, longest first: ${queue.map((f) => `${baseName(f)} ${secondsOf(f)}`).join(', ')}`);
        const began = Date.now();
        integrationBegan = began;
        const ended = {};
        if (pluginFiles.length > 0) console.log(`lane plugins (${pluginsDir}): ${pluginFiles.map(baseName).join(', ')}`);
        const pluginLane = async () => {
          await pluginsUp;
          if (pluginsReady) await dropLeftoverSlots();
          for (const f of pluginFiles) {
            if (pluginsReady) await runFile(f, 'plugins', pluginEnv);
            else { totals.fail += 1; failures.push(`[lane plugins] ${baseName(f)}: the plugins' sandbox did not start`); }
          }
          // Then the shared queue, on the plugins' sandbox (no plugin needed, none required).
          for (let f = sharing && pluginsReady ? take(queue, pluginsLaneMay) : undefined; f; f = take(queue, pluginsLaneMay)) {
            await runFile(f, 'plugins', { OFFSETCTL_SANDBOX_DIR: pluginsDir });
          }
          ended.plugins = Math.round((Date.now() - began) / 1000);
          // Nothing else uses the plugins' sandbox: one this run started stops now rather than idle
          // beside the other lanes for their last minutes (its broker, two workers with the
          // plugins loaded, PostgreSQL and the Iceberg catalog take CPU even when idle).
          await stopPlugins();
          pluginsLaneDone();
        };
        const lane = async (k) => {
          if (k === 1) for (const f of laneOne) await runFile(f, 1);
          for (let f = take(queue); f; f = take(queue)) await runFile(f, k);
          ended[k] = Math.round((Date.now() - began) / 1000);
        };
        await Promise.all([...Array.from({ length: laneCount }, (_v, i) => lane(i + 1)), pluginLane()]);
        const each = Object.entries(ended).map(([k, s]) => `lane ${k} ${s} s`).join(', ');
        console.log(`\nintegration lanes took ${each} (${Math.round((Date.now() - began) / 1000)} s in all)`);
        if (args.has('--record-durations')) {
          const table = {
            note: 'seconds each integration file took when last measured (node scripts/test.mjs --record-durations); scripts/test.mjs balances its lanes with them',
            seconds: Object.fromEntries(Object.entries({ ...durations, ...measured }).sort(([a], [b]) => a.localeCompare(b))),
          };
          writeFileSync(DURATIONS_FILE, `${JSON.stringify(table, null, 2)}\n`);
          console.log(`durations of ${Object.keys(measured).length} files written to ${DURATIONS_FILE}`);
        }
      } finally {
        if (startedSandbox && process.env.OFFSETCTL_KEEP_SANDBOX !== '1') {
          console.log('\n=== stopping the sandbox cluster ===');
          run(process.execPath, [cli, 'sandbox', 'down']);
        }
        await pluginsUp;
        await stopPlugins();
      }
    }
  } else if (only.size > 0) {
    console.error(`no integration file is named ${[...only].join(', ')}`);
    totals.fail += 1;
  }
}

if (wantIntegration) pluginsLaneDone();
await stopPg();
rmSync(tapDir, { recursive: true, force: true });
if (failures.length > 0) {
  console.log(`\nfailed tests (${failures.length}):\n${failures.map((f) => `  ${f}`).join('\n')}`);
  if (process.env.OFFSETCTL_FAILURES_FILE) appendFileSync(process.env.OFFSETCTL_FAILURES_FILE, failures.map((f) => `${f}\n`).join(''));
}
console.log(`\n${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`);
process.exit(totals.fail === 0 && totals.pass > 0 ? 0 : 1);
