// The package a user installs: `npm pack`, then `npm install -g ./offsetctl-<v>.tgz --prefix <empty>`
// gives an `offsetctl` on PATH that works from any folder, with the workflows, the OpenAPI
// description and the sandbox files shipped inside the package.
// The install runs with --ignore-scripts: the only install script in the tree is the optional
// better-sqlite3 build (prebuild-install, falling back to compiling SQLite from source — 5 min
// on this machine, where GitHub's prebuilt binaries are out of reach; --omit=optional does not
// stop it in a global install). On Node 22.13+ the store uses node:sqlite and needs no build, so
// the test runs an operator command end to end; on Node 20 it checks the store's message.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, child processes.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { test } from 'node:test';
import { sqliteDriver } from '../../src/store/sqlite/index.js';
import { sandboxRest, startPipeline, numberedLines } from '../support/connect.js';
import { waitForLines } from '../support/files.js';
import { repoRoot } from '../support/repo.js';
import { getSandbox } from '../support/sandbox.js';

const hasNodeSqlite = (() => {
  try {
    return sqliteDriver({}) === 'node:sqlite';
  } catch {
    return false;
  }
})();

test('the packed package installs into an empty prefix and runs from any folder against the sandbox', { timeout: 600_000 }, async (t) => {
  const { connect, cluster } = await getSandbox();
  const work = mkdtempSync(join(tmpdir(), 'offsetctl-package-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  // npm and the installed launcher run on the Node running this test (the Node 24/26 CI legs).
  const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, npm_config_update_notifier: 'false' };
  const sh = (cmd: string, args: string[], cwd: string) => spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 540_000 });

  const pack = sh('npm', ['pack', '--pack-destination', work, '--json'], repoRoot);
  assert.equal(pack.status, 0, pack.stderr);
  const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  assert.ok(info);
  const shipped = info.files.map((f) => f.path);
  assert.ok(shipped.includes('dist/bundle/cli/offsetctl.mjs'), 'the bundle ships');
  // Code splitting: every chunk the entry can import ships beside it, with the one-file ajv
  // (src/arazzo/_on-demand.ts), and no source maps.
  const chunks = readdirSync(join(repoRoot, 'dist', 'bundle', 'cli')).filter((f) => f.endsWith('.mjs') || f.endsWith('.cjs')).map((f) => `dist/bundle/cli/${f}`);
  assert.ok(chunks.length > 1, 'the bundle is split into chunks');
  assert.deepEqual(chunks.filter((c) => !shipped.includes(c)), [], 'every chunk ships');
  assert.deepEqual(shipped.filter((p) => p.endsWith('.map')), [], 'no source maps ship');
  // src/web/assets/ holds the web console's browser files (CSS, JS), read at run time by `offsetctl ui`.
  for (const needed of ['bin/offsetctl', 'workflows/rewind-connector-offsets.arazzo.yaml', 'openapi/kafka-connect.yaml', 'sandbox/pom.xml', 'examples/seeds/reset-connector-offsets.arazzo.yaml', 'src/web/assets/app.css', 'README.md']) {
    assert.ok(shipped.includes(needed), `${needed} ships`);
  }
  const unwanted = shipped.filter((p) => !p.startsWith('src/web/assets/') && /^(src|test|bench|scripts|\.ci)\/|\.test\.|^dist\/(src|test|bench)\/|results\.json$/.test(p));
  assert.deepEqual(unwanted, [], 'no sources, tests, benchmarks or CI files in the package');

  const prefix = join(work, 'prefix');
  const install = sh('npm', ['install', '-g', join(work, info.filename), '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], work);
  assert.equal(install.status, 0, install.stderr);
  const bin = join(prefix, 'bin', 'offsetctl');
  assert.ok(existsSync(bin), `offsetctl on PATH in ${prefix}/bin`);
  const installed = join(prefix, 'lib', 'node_modules', 'offsetctl');
  assert.deepEqual(readdirSync(join(installed, 'dist')), ['bundle'], 'only the bundle in dist/');

  // From a folder that has nothing of offsetctl in it.
  const elsewhere = mkdtempSync(join(work, 'cwd-'));
  const run = (args: string[]) => sh(process.execPath, [bin, ...args], elsewhere);
  const version = run(['--version']);
  assert.equal(version.status, 0, version.stderr);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);

  const status = run(['sandbox', 'status', '--output', 'json']);
  assert.equal(status.status, 0, status.stderr);
  // This test lane's Connect cluster, as the installed CLI lists it.
  const listed = (JSON.parse(status.stdout) as { clusters: Array<{ name: string; connect: string[] }> }).clusters;
  assert.deepEqual(listed.find((c) => c.name === cluster)?.connect, connect);

  // A seed workflow shipped in the package, against a real source connector.
  const rest = await sandboxRest();
  const lines = numberedLines('pkg', 3);
  const pipeline = await startPipeline(rest, 'pkg', lines);
  t.after(() => pipeline.remove());
  assert.deepEqual(await waitForLines(pipeline.outputFile, lines.length), lines);
  const wf = run(['workflow', 'run', join(installed, 'examples', 'seeds', 'reset-connector-offsets.arazzo.yaml'),
    '--source', `kafkaConnectApi=${join(installed, 'openapi', 'kafka-connect.yaml')}`, '--server', connect[0] ?? '',
    '--input', `connectorName=${pipeline.source}`, '--output', 'json']);
  assert.equal(wf.status, 0, `${wf.stdout}\n${wf.stderr}`);
  assert.equal((JSON.parse(wf.stdout) as { status: string }).status, 'passed');

  // The operator commands read the shipped workflows/ from inside the package, and need SQLite.
  const stateDir = join(work, 'state');
  const runs = run(['runs', '--state-dir', stateDir, '--output', 'json']);
  if (hasNodeSqlite) {
    assert.equal(runs.status, 0, runs.stderr);
    const reset = run(['reset', pipeline.source, '--url', connect[0] ?? '', '--state-dir', stateDir, '--yes', '--output', 'json']);
    assert.equal(reset.status, 0, `${reset.stdout}\n${reset.stderr}`);
    assert.equal((JSON.parse(reset.stdout) as { status: string }).status, 'succeeded');
  } else {
    // Without node:sqlite and without the better-sqlite3 build, the store says what to do.
    assert.equal(runs.status, 2, runs.stderr);
    assert.match(runs.stderr, /node:sqlite \(22\.13\+ has\) and better-sqlite3 could not be loaded/);
  }
});
