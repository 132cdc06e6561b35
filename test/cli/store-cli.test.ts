// Choosing the team store from the command line, its credentials, and the `store` commands, on
// the tests' real PostgreSQL server: --store, OFFSETCTL_STORE and a context's store; the password
// from PGPASSWORD, a .pgpass file or --store-password-env, never from the URL and never in any
// output; `store status|migrate|import`; an older offsetctl against a newer schema; the server
// unreachable.
// Real parts: a real PostgreSQL, a SQLite store file, spawns the CLI.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/index.js';
import { runCli, type CliResult } from '../support/cli.js';
import { adminPool, newDatabase, addOperator } from '../support/postgres.js';
import { PG_MIGRATIONS } from '../../src/store/postgres/migrations.js';

const KNOWN = PG_MIGRATIONS.length;

/** A clean environment: no store, no PG* variables, a config file and state folder of its own. */
function isolated(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'offsetctl-store-cli-'));
  return {
    OFFSETCTL_STORE: undefined, PGPASSWORD: undefined, PGPASSFILE: undefined, PGUSER: undefined, PGHOST: undefined, PGPORT: undefined, PGDATABASE: undefined,
    PGSSLMODE: undefined, PGSSLROOTCERT: undefined, HOME: home,
    OFFSETCTL_CONFIG: join(home, 'config.yaml'), OFFSETCTL_STATE_DIR: join(home, 'state'), ...extra,
  };
}

function noSecret(r: CliResult, secret: string): void {
  for (const text of [r.stdout, r.stderr]) {
    assert.ok(!text.includes(secret), `the password appeared in output:\n${text}`);
    assert.ok(!text.includes(Buffer.from(secret).toString('base64')), 'the password appeared base64-encoded');
    assert.ok(!text.includes(encodeURIComponent(secret)), 'the password appeared URL-encoded');
  }
}

test('store status before and after store migrate; the password comes from PGPASSWORD and never shows', async () => {
  const db = await newDatabase('cli');
  const env = isolated({ PGPASSWORD: db.owner.password });
  let r = await runCli(['store', 'status', '--store', db.url], { env });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`team store \\(PostgreSQL\\) ${db.url.replace(/[/.]/g, '\\$&')}`));
  assert.match(r.stdout, new RegExp(`login +${db.owner.user}`));
  assert.match(r.stdout, new RegExp(`schema +version 0 \\(this offsetctl knows up to ${KNOWN}\\): run \`offsetctl store migrate\``));
  noSecret(r, db.owner.password);
  r = await runCli(['store', 'migrate', '--store', db.url], { env });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`schema migrated from version 0 to ${KNOWN}`));
  r = await runCli(['store', 'migrate', '--store', db.url], { env });
  assert.match(r.stdout, new RegExp(`schema already at version ${KNOWN}; nothing to do`));
  r = await runCli(['store', 'status', '--store', db.url, '-o', 'json'], { env });
  const status = JSON.parse(r.stdout) as { backend: string; schemaVersion: number; dbUser: string; locks: unknown[] };
  assert.deepEqual([status.backend, status.schemaVersion, status.dbUser, status.locks], ['postgres', KNOWN, db.owner.user, []]);
  r = await runCli(['store', 'status'], { env });
  assert.match(r.stdout, /store +SQLite file .*offsetctl\.db/, 'without a team store: the state folder\'s file');
});

test('a password in the URL is refused (flag, variable, context) and never repeated', async () => {
  const secret = 'Sup3r-s3cret/pw';
  const url = `postgres://alice:${encodeURIComponent(secret)}@127.0.0.1:5432/offsetctl`;
  const env = isolated();
  for (const [args, extra] of [[['runs', '--store', url], {}], [['runs'], { OFFSETCTL_STORE: url }]] as const) {
    const r = await runCli([...args], { env: { ...env, ...extra } });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /holds a password; never write it into the URL .*PGPASSWORD.*\.pgpass.*--store-password-env/);
    noSecret(r, secret);
  }
  const set = await runCli(['config', 'set-context', 'team', '--url', 'http://127.0.0.1:8083', '--store', url], { env });
  assert.equal(set.status, 2);
  assert.match(set.stderr, /--store: holds a password; secrets are not stored in the config file/);
  noSecret(set, secret);
  writeFileSync(env.OFFSETCTL_CONFIG!, `current-context: team\ncontexts:\n  team:\n    url: http://127.0.0.1:8083\n    store: ${url}\n`);
  const read = await runCli(['runs'], { env });
  assert.equal(read.status, 2);
  assert.match(read.stderr, /contexts\.team\.store: holds a password/);
  noSecret(read, secret);
});

test('a context names the store; a .pgpass file or --store-password-env supplies the password; OFFSETCTL_STORE overrides the context', async () => {
  const db = await newDatabase('ctx');
  const bob = await addOperator(db);
  const env = isolated();
  const pgpass = join(env.HOME!, '.pgpass');
  writeFileSync(pgpass, `127.0.0.1:${db.port}:${db.name}:${db.owner.user}:${db.owner.password}\n`, { mode: 0o600 });
  let r = await runCli(['config', 'set-context', 'team', '--url', 'http://127.0.0.1:8083', '--store', db.url], { env });
  assert.equal(r.status, 0, r.stderr);
  assert.match(readFileSync(env.OFFSETCTL_CONFIG!, 'utf8'), new RegExp(`store: ${db.url.replace(/[/.]/g, '\\$&')}`));
  r = await runCli(['store', 'status'], { env });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`login +${db.owner.user}`), 'the current context\'s store, password from ~/.pgpass');
  // bob's password from a variable the context names; his login, not alice's, is who acts.
  r = await runCli(['config', 'set-context', 'team-bob', '--url', 'http://127.0.0.1:8083', '--store', db.urlFor(bob), '--store-password-env', 'BOB_STORE_PW'], { env });
  assert.equal(r.status, 0, r.stderr);
  r = await runCli(['store', 'status', '--context', 'team-bob'], { env: { ...env, BOB_STORE_PW: bob.password } });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`login +${bob.user}`));
  noSecret(r, bob.password);
  r = await runCli(['store', 'status', '--context', 'team-bob'], { env });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /BOB_STORE_PW is not set/);
  // OFFSETCTL_STORE wins over the context: bob's URL with bob's password from PGPASSWORD.
  r = await runCli(['store', 'status'], { env: { ...env, OFFSETCTL_STORE: db.urlFor(bob), PGPASSWORD: bob.password } });
  assert.match(r.stdout, new RegExp(`login +${bob.user}`));
  // A wrong password is a refusal naming where passwords come from, without the password.
  r = await runCli(['store', 'status', '--store', db.url], { env: { ...env, HOME: tmpdir(), PGPASSWORD: 'wrong-password-123' } });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /refused the login: check the user, and the password in PGPASSWORD, the \.pgpass file or the --store-password-env variable/);
  noSecret(r, 'wrong-password-123');
  // No file offsetctl wrote holds a password.
  for (const f of readdirSync(env.HOME!, { recursive: true }) as string[]) {
    const full = join(env.HOME!, f);
    if (f === '.pgpass' || !statSync(full).isFile()) continue;
    const text = readFileSync(full, 'latin1');
    for (const pw of [db.owner.password, bob.password]) assert.ok(!text.includes(pw), `${f} holds a password`);
  }
});

test('store import copies the local history once; runs and snapshots then read from the team store', async () => {
  const db = await newDatabase('import');
  const env = isolated({ PGPASSWORD: db.owner.password });
  const local = openSqliteStore(env.OFFSETCTL_STATE_DIR!);
  const run = await local.beginRun({ clusterUrl: 'http://127.0.0.1:8083', connector: 'orders', operation: 'rewind', workflowFile: 'w', workflowId: 'w', inputs: {} });
  await local.saveSnapshot({ runId: run.id, clusterUrl: 'http://127.0.0.1:8083', connector: 'orders', connectorType: 'source', stateBefore: 'RUNNING', offsets: [{ partition: { a: 1 }, offset: { b: 2 } }] });
  await local.finishRun(run.id, { status: 'succeeded' });
  await local.recordAudit({ actor: { user: 'ops@laptop', via: 'cli' }, action: 'rewind', outcome: 'succeeded', connector: 'orders', runId: run.id });
  // A batch killed before its second member started: that member has no run, only the batch knows it.
  const batchId = 'batch-20261204-060000-b7a1';
  await local.saveBatch({
    id: batchId, clusterUrl: 'http://127.0.0.1:8083', clusterKey: 'url:http://127.0.0.1:8083', operation: 'rewind', resumeAfter: 'auto',
    members: [{ connector: 'orders' }, { connector: 'fleet-sink-5' }],
  });
  await local.close();
  let r = await runCli(['store', 'import', '--store', db.url], { env });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /imported 1 run\(s\), 1 snapshot\(s\), 1 batch\(es\) and 1 audit entry from .*offsetctl\.db into postgres:/);
  r = await runCli(['runs', '--batch', batchId, '--store', db.url], { env });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /fleet-sink-5\s+rewind\s+not started/, 'the member that never started is known to the team store');
  r = await runCli(['store', 'import', '--store', db.url, '--from', env.OFFSETCTL_STATE_DIR!, '-o', 'json'], { env });
  assert.deepEqual(JSON.parse(r.stdout).runs, 0);
  assert.deepEqual(JSON.parse(r.stdout).skippedRuns, 1);
  assert.deepEqual(JSON.parse(r.stdout).skippedAudit, 1);
  r = await runCli(['audit', '--store', db.url, '-o', 'json'], { env });
  assert.deepEqual(r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { runId: string }).runId), [run.id], 'the imported audit reads from the team store');
  r = await runCli(['runs', '--store', db.url, '-o', 'json'], { env });
  assert.deepEqual((JSON.parse(r.stdout) as Array<{ id: string }>).map((x) => x.id), [run.id]);
  r = await runCli(['snapshots', '--store', db.url], { env });
  assert.match(r.stdout, /orders/);
  r = await runCli(['store', 'import', '--store', db.url, '--from', join(env.HOME!, 'nothing-here')], { env });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /holds no offsetctl store/);
  r = await runCli(['store', 'import'], { env });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /name it with --store/);
});

test('an older offsetctl against a newer schema refuses, saying to upgrade; an unreachable server is exit 2', async () => {
  const db = await newDatabase('newer');
  const env = isolated({ PGPASSWORD: db.owner.password });
  assert.equal((await runCli(['store', 'migrate', '--store', db.url], { env })).status, 0);
  const admin = await adminPool(db.name);
  try {
    await admin.query(`INSERT INTO offsetctl_schema (version, offsetctl) VALUES (${KNOWN + 1}, '9.0.0')`);
  } finally {
    await admin.end();
  }
  let r = await runCli(['runs', '--store', db.url], { env });
  assert.equal(r.status, 2);
  assert.match(r.stderr, new RegExp(`schema version ${KNOWN + 1}, written by a newer offsetctl; this one knows up to ${KNOWN}: upgrade offsetctl`));
  r = await runCli(['runs', '--store', 'postgres://alice@127.0.0.1:1/offsetctl'], { env });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /cannot open the team store postgres:\/\/alice@127\.0\.0\.1:1\/offsetctl: .*ECONNREFUSED.*cannot be reached/);
});
