// The team store's server stopped (`pg_ctl stop -m immediate`) at a chosen step of a real rewind
// (issue 30, points 2 and 3): the sandbox's real worker, a PostgreSQL of this file's own (it is
// stopped; the shared one must not be), two operators as two processes (alice, bob: own state
// folders, own database logins and passwords). Putting the connector back needs Connect, not the
// database; the account says what is true, exits 1 (the run failed, never the exit 2 of a refusal
// after a change), and the run's lock is freed by the command the account advises.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { type ConnectFixture, connectFixture, sortedOffsets, tempDir, waitFor } from '../support/connect.js';
import { runCli, type CliResult } from '../support/cli.js';
import { restartPgServer, startPgServer, stopPgServer, type PgServer } from '../../src/sandbox/postgres-server.js';

const requireCjs = createRequire(import.meta.url);
interface Client {
  query(q: string, v?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  connect(): Promise<void>;
  end(): Promise<void>;
  on(e: string, f: () => void): void;
}
interface Login { user: string; password: string }

let w1: ConnectFixture;
let own: PgServer;
const alice: Login = { user: 'alice', password: 'alice-pw-3f9a1c' };
const bob: Login = { user: 'bob', password: 'bob-pw-8e2d7b' };

async function admin(): Promise<Client> {
  const { Client: PgClient } = requireCjs('pg') as { Client: new (c: Record<string, unknown>) => Client };
  const c = new PgClient({ host: own.host, port: own.port, user: own.adminUser, password: own.adminPassword, database: 'offsetctl' });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

before(async () => {
  w1 = await connectFixture(0);
  own = await startPgServer();
  const { Client: PgClient } = requireCjs('pg') as { Client: new (c: Record<string, unknown>) => Client };
  const setup = new PgClient({ host: own.host, port: own.port, user: own.adminUser, password: own.adminPassword, database: 'postgres' });
  await setup.connect();
  // As docs/team.md sets a team up: a NOLOGIN owner role, one login per operator.
  await setup.query('CREATE ROLE offsetctl_team NOLOGIN');
  await setup.query('CREATE DATABASE offsetctl OWNER offsetctl_team');
  for (const l of [alice, bob]) await setup.query(`CREATE ROLE ${l.user} LOGIN PASSWORD '${l.password}' IN ROLE offsetctl_team`);
  await setup.end();
});
after(async () => {
  await w1?.cleanup();
  if (own) stopPgServer(own, 'immediate');
});

/** One operator: own state folder, own login and password, the team store by --store. */
function operator(login: Login, env: NodeJS.ProcessEnv = {}): (args: string[], stdin?: string) => Promise<CliResult> {
  const stateDir = tempDir(`offsetctl-${login.user}-`);
  return (args, stdin) => runCli([...args, '--url', w1.url, '--store', `postgres://${login.user}@127.0.0.1:${own.port}/offsetctl`, '--state-dir', stateDir], {
    ...(stdin !== undefined ? { stdin } : {}),
    env: { OFFSETCTL_STORE: undefined, OFFSETCTL_CONFIG: join(stateDir, 'none.yaml'), PGPASSWORD: login.password, ...env },
  });
}

const target = (file: string, position: number): string => JSON.stringify({ offsets: [{ partition: { filename: file }, offset: { position } }] });

/**
 * Alice's rewind to position 0, held before `step` (with its lock, its lease renewed) until the
 * test has stopped the server; then it goes on without a store.
 */
async function rewindLosingStore(
  source: { name: string; file: string }, step: string, lastStep: string, leaseSeconds: number, extra: string[] = [],
): Promise<{ running: Promise<CliResult>; release: string }> {
  const release = join(tempDir('offsetctl-release-'), 'go');
  const lease = String(leaseSeconds);
  const a = operator(alice, { OFFSETCTL_TEST_PAUSE_BEFORE_STEP: step, OFFSETCTL_TEST_RELEASE_FILE: release, OFFSETCTL_STORE_LEASE_SECONDS: lease });
  const running = a(['rewind', source.name, '--offsets', '-', '--yes', ...extra], target(source.file, 0));
  const watch = await admin();
  try {
    await waitFor(`alice's run to finish step ${lastStep}`, async () => {
      const r = await watch.query('SELECT 1 FROM runs WHERE connector = $1 AND last_step = $2', [source.name, lastStep]);
      return r.rows.length > 0;
    }, 120_000, 200);
  } finally {
    await watch.end();
  }
  stopPgServer(own, 'immediate');
  writeFileSync(release, '');
  return { running, release };
}

/** Whether the lock on `connector` has a lease still running (undefined: no lock). */
async function leaseLive(connector: string): Promise<boolean | undefined> {
  const c = await admin();
  try {
    const row = (await c.query('SELECT (expires_at > now()) AS live FROM locks WHERE connector = $1', [connector])).rows[0];
    return row === undefined ? undefined : row.live === true;
  } finally {
    await c.end();
  }
}

async function locksOn(connector: string): Promise<number> {
  const c = await admin();
  try {
    return Number((await c.query('SELECT count(*)::int AS n FROM locks WHERE connector = $1', [connector])).rows[0]!.n);
  } finally {
    await c.end();
  }
}

test('point 2: the store stops after waitForStopped and stays down: the connector is put back, exit 1; the advised `runs abandon` frees the lock', async () => {
  const source = await w1.createSource(3);
  const before = await w1.offsets(source.name);
  const { running } = await rewindLosingStore(source, 'captureOffsets', 'waitForStopped', 3);
  const r = await running;
  restartPgServer(own);
  assert.equal(r.status, 1, `exit 1, run failed (never 2 after the connector was stopped): ${r.stderr}`);
  assert.match(r.stderr, /rewind of \S+ failed at step captureOffsets: the team store did not take a write/);
  assert.match(r.stderr, /Recovery put the connector back \(RUNNING\)\. Offsets had not been changed\./);
  assert.doesNotMatch(r.stderr, /LEFT STOPPED|Recovery failed/);
  const runId = /run (run-\S+) reads interrupted/.exec(r.stderr)?.[1];
  assert.ok(runId, `the account says the end could not be recorded, naming the run: ${r.stderr}`);
  assert.match(r.stderr, new RegExp(`The run's end could not be recorded \\(.*tried again for 3 s.*\\): .*\`offsetctl runs abandon ${runId} --reason <why>\``));
  await w1.waitRunning(source.name);
  assert.deepEqual(sortedOffsets(await w1.offsets(source.name)), sortedOffsets(before), 'the change step never ran');
  // Once the store is back, the run holds the lock; bob runs the command the account advised.
  const b = operator(bob);
  assert.equal(await locksOn(source.name), 1);
  const abandoned = await b(['runs', 'abandon', runId, '--reason', 'store was down', '--yes']);
  assert.equal(abandoned.status, 0, abandoned.stderr);
  assert.equal(await locksOn(source.name), 0, 'the advised command freed the lock');
  const next = await b(['rewind', source.name, '--offsets', '-', '--yes'], target(source.file, 1));
  assert.equal(next.status, 0, next.stderr);
});

test('point 2: the store stops after waitForStopped and is back within the lease: the outcome is recorded and the lock freed', async () => {
  const source = await w1.createSource(3);
  const before = await w1.offsets(source.name);
  const { running } = await rewindLosingStore(source, 'captureOffsets', 'waitForStopped', 30);
  // The connector is put back while the store is down; then the server comes back.
  await waitFor('the connector to be put back without the store', async () => (await w1.status(source.name)).connector.state === 'RUNNING', 120_000, 200);
  restartPgServer(own);
  const r = await running;
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /Recovery put the connector back \(RUNNING\)\. Offsets had not been changed\./);
  assert.doesNotMatch(r.stderr, /could not be recorded|LEFT STOPPED/);
  assert.deepEqual(sortedOffsets(await w1.offsets(source.name)), sortedOffsets(before));
  assert.equal(await locksOn(source.name), 0);
  const b = operator(bob);
  const runs = JSON.parse((await b(['runs', '--connector', source.name, '-o', 'json'])).stdout) as Array<{ status: string; message?: string }>;
  assert.equal(runs[0]?.status, 'failed');
  assert.match(runs[0]?.message ?? '', /Recovery put the connector back \(RUNNING\)/);
});

test('point 3: the store stops after the write: the account says the offsets changed, the connector is as planned, exit 1; rollback undoes it', async () => {
  const source = await w1.createSource(3);
  const before = await w1.offsets(source.name);
  // --leave-stopped: the plan ends STOPPED, so the offsets written stay as they are to be read.
  const { running } = await rewindLosingStore(source, 'verifyOffsets', 'rewindOffsets', 3, ['--leave-stopped']);
  const r = await running;
  restartPgServer(own);
  assert.equal(r.status, 1, `exit 1 (never 2 after a change): ${r.stderr}`);
  assert.match(r.stderr, /rewind of \S+ failed at step verifyOffsets: the team store did not take a write/);
  assert.match(r.stderr, /The change itself was made: the offsets of 1 partition\(s\) read back as the target, so they were kept \(not undone\)\./);
  assert.match(r.stderr, /kept \(not undone\)\. The connector was put back as the plan said \(STOPPED\)\./);
  assert.doesNotMatch(r.stderr, /Offsets had not been changed|LEFT STOPPED|Recovery failed/);
  assert.match(r.stderr, /could not be recorded .*`offsetctl rollback \S+` \(snapshot snap-\S+\)/);
  assert.equal((await w1.status(source.name)).connector.state, 'STOPPED');
  assert.deepEqual(sortedOffsets(await w1.offsets(source.name)).map((o) => o.offset), [{ position: 0 }], 'written, and kept');
  // Once the store is back and alice's lease has run out (3 s from its last renewal; within it,
  // the lock is hers and a rollback is refused E_LOCKED naming the lease's end), bob undoes it
  // with the advised rollback (it takes the run over).
  await waitFor('alice\'s lease to run out', async () => (await leaseLive(source.name)) === false, 30_000, 200);
  const b = operator(bob);
  const rb = await b(['rollback', source.name, '--yes']);
  assert.equal(rb.status, 0, rb.stderr);
  assert.match(rb.stdout, /taking over run run-\S+ of alice@/);
  await w1.waitRunning(source.name);
  assert.deepEqual(sortedOffsets(await w1.offsets(source.name)), sortedOffsets(before));
  assert.equal(await locksOn(source.name), 0);
});
