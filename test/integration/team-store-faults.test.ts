// The team store failing under a real change, on real parts (the sandbox's workers, a real
// PostgreSQL): the connection lost after the stop but before the snapshot is durable, a statement
// timeout at the same point, the connection lost during the change, and the server crashed
// (`pg_ctl stop -m immediate`) and restarted with two runs in flight. The fault table is in
// docs/team.md. (The database unreachable before a change is in team-store.test.ts.)
//
// Holding the snapshot's INSERT at the right moment: the test takes an exclusive lock on the
// snapshots table from its own session, so offsetctl's write waits inside the server; the test
// then ends offsetctl's session (pg_terminate_backend: the connection is lost) or lets the
// statement timeout fire, and lets go of the lock.
// Real parts: the sandbox's Kafka broker and Connect cluster, a real PostgreSQL, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { type ConnectFixture, connectFixture, sortedOffsets, tempDir, waitFor } from '../support/connect.js';
import { runCli, type CliResult } from '../support/cli.js';
import { newDatabase, testPgServer, type TestDatabase } from '../support/postgres.js';
import { restartPgServer, startPgServer, stopPgServer, type PgServer } from '../../src/sandbox/postgres-server.js';

const requireCjs = createRequire(import.meta.url);
interface Client { query(q: string, v?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>; connect(): Promise<void>; end(): Promise<void>; on(e: string, f: () => void): void }

let w1: ConnectFixture;
let db: TestDatabase;
before(async () => {
  w1 = await connectFixture(0);
  db = await newDatabase('faults');
});
after(async () => w1?.cleanup());

/** A session of the superuser on the test database, for holding locks and ending sessions. */
async function superSession(database: string, server?: PgServer): Promise<Client> {
  const s = server ?? await testPgServer();
  const { Client: PgClient } = requireCjs('pg') as { Client: new (c: Record<string, unknown>) => Client };
  const c = new PgClient({ host: s.host, port: s.port, user: s.adminUser, password: s.adminPassword, database });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

function rewind(name: string, file: string, position: number, store: string, extra: NodeJS.ProcessEnv = {}, password = db.owner.password): Promise<CliResult> {
  return runCli(['rewind', name, '--offsets', '-', '--yes', '--url', w1.url, '--store', store, '--state-dir', tempDir('offsetctl-fault-')], {
    stdin: JSON.stringify({ offsets: [{ partition: { filename: file }, offset: { position } }] }),
    env: { OFFSETCTL_STORE: undefined, PGPASSWORD: password, OFFSETCTL_STORE_LEASE_SECONDS: '3', ...extra },
  });
}

/**
 * Waits until one of offsetctl's sessions waits on the test's lock and ends it (the connection is
 * lost). Watched from a session of its own: inside a transaction pg_stat_activity is a snapshot
 * taken once, so the locking session would never see offsetctl arrive.
 */
async function cutWaitingSession(database: string, user: string, what: string, statement = '%'): Promise<void> {
  const watch = await superSession(database);
  try {
    const pid = await waitFor(what, async () => {
      const r = await watch.query(`SELECT pid FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock' AND query LIKE $2`, [user, statement]);
      return r.rows[0] ? Number(r.rows[0].pid) : undefined;
    }, 60_000, 100);
    await watch.query('SELECT pg_terminate_backend($1)', [pid]);
  } finally {
    await watch.end();
  }
}

test('the connection lost after the stop, before the snapshot is durable: the change never starts and the connector is put back', async () => {
  const source = await w1.createSource(3);
  const before = await w1.offsets(source.name);
  const admin = await superSession(db.name);
  try {
    await admin.query('BEGIN');
    // Created by the first open: make sure the table exists before locking it.
    assert.equal((await runCli(['store', 'migrate', '--store', db.url], { env: { PGPASSWORD: db.owner.password, OFFSETCTL_STORE: undefined } })).status, 0);
    await admin.query('LOCK TABLE snapshots IN ACCESS EXCLUSIVE MODE');
    const running = rewind(source.name, source.file, 0, db.url);
    await cutWaitingSession(db.name, db.owner.user, 'offsetctl\'s snapshot write to wait on the lock', 'INSERT INTO snapshots%');
    assert.equal((await w1.status(source.name)).connector.state, 'STOPPED', 'the snapshot is taken after the stop');
    await admin.query('COMMIT');
    const r = await running;
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /failed at step captureOffsets: the snapshot could not be stored, so rewindOffsets does not start: the team store did not take a write .*(terminat|connection)/i);
    assert.match(r.stderr, /Offsets had not been changed\. The connector is now RUNNING, exactly as before the run/);
    await w1.waitRunning(source.name);
    assert.deepEqual(await w1.offsets(source.name), before, 'offsets untouched: the change step never ran');
    const runs = JSON.parse((await runCli(['runs', '--connector', source.name, '-o', 'json', '--store', db.url], { env: { PGPASSWORD: db.owner.password } })).stdout) as Array<{ status: string; lastStep?: string }>;
    assert.equal(runs[0]?.status, 'failed');
    assert.notEqual(runs[0]?.lastStep, 'rewindOffsets');
  } finally {
    await admin.query('ROLLBACK').catch(() => undefined);
    await admin.end();
  }
});

test('a statement timeout while saving the snapshot: the change never starts and the connector is put back', async () => {
  const source = await w1.createSource(3);
  const before = await w1.offsets(source.name);
  const admin = await superSession(db.name);
  try {
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE snapshots IN ACCESS EXCLUSIVE MODE');
    const r = await rewind(source.name, source.file, 0, `${db.url}?statement_timeout=1500`);
    await admin.query('COMMIT');
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /the snapshot could not be stored, so rewindOffsets does not start: .*statement_timeout \(1500 ms\)/);
    assert.match(r.stderr, /Offsets had not been changed\. The connector is now RUNNING, exactly as before the run/);
    await w1.waitRunning(source.name);
    assert.deepEqual(await w1.offsets(source.name), before);
  } finally {
    await admin.query('ROLLBACK').catch(() => undefined);
    await admin.end();
  }
});

test('the connection lost during the change: recovery as with a local store (offsets and state as before)', async () => {
  const source = await w1.createSource(4);
  const before = await w1.offsets(source.name);
  const release = join(tempDir('offsetctl-release-'), 'go');
  const admin = await superSession(db.name);
  try {
    const running = rewind(source.name, source.file, 1, db.url, { OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'rewindOffsets', OFFSETCTL_TEST_RELEASE_FILE: release });
    await waitFor('the run to reach its change step', async () => {
      const r = await admin.query(`SELECT 1 FROM runs WHERE connector = $1 AND last_step = 'captureOffsets'`, [source.name]);
      return r.rows.length > 0;
    }, 120_000, 200);
    // From here every journal write of that run waits on the test's lock; its first one is cut off.
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE run_steps, run_events IN ACCESS EXCLUSIVE MODE');
    writeFileSync(release, '');
    await cutWaitingSession(db.name, db.owner.user, 'a journal write to wait on the lock');
    await admin.query('COMMIT');
    const r = await running;
    assert.equal(r.status, 1, r.stderr);
    await w1.waitRunning(source.name);
    assert.deepEqual(sortedOffsets(await w1.offsets(source.name)), sortedOffsets(before));
  } finally {
    writeFileSync(release, '');
    await admin.query('ROLLBACK').catch(() => undefined);
    await admin.end();
  }
});

test('PostgreSQL crashes (pg_ctl stop -m immediate) with two runs in flight and restarts: no snapshot lost, no lock held twice, each run in a documented state', async () => {
  // A server of this test's own: the shared one must not crash under the other tests.
  const own = await startPgServer();
  const url = `postgres://postgres@127.0.0.1:${own.port}/postgres`;
  const env = { OFFSETCTL_STORE: undefined, PGPASSWORD: own.adminPassword };
  try {
    assert.equal((await runCli(['store', 'migrate', '--store', url], { env })).status, 0);
    const [s1, s2] = [await w1.createSource(3), await w1.createSource(3)];
    const before1 = await w1.offsets(s1.name);
    const release = join(tempDir('offsetctl-release-'), 'go');
    // Run 1 has its snapshot and is about to change offsets; run 2 has just stopped its connector.
    const r1 = rewind(s1.name, s1.file, 0, url, { OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'rewindOffsets', OFFSETCTL_TEST_RELEASE_FILE: release }, own.adminPassword);
    const r2 = rewind(s2.name, s2.file, 0, url, { OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'captureOffsets', OFFSETCTL_TEST_RELEASE_FILE: release }, own.adminPassword);
    const admin = await superSession('postgres', own);
    let snapshotId: string;
    try {
      snapshotId = await waitFor('run 1 to hold its snapshot', async () => {
        const r = await admin.query(`SELECT id FROM snapshots WHERE connector = $1`, [s1.name]);
        return r.rows[0] ? String(r.rows[0].id) : undefined;
      }, 120_000, 200);
      await waitFor('run 2 to have stopped its connector', async () => (await w1.status(s2.name)).connector.state === 'STOPPED', 120_000, 200);
    } finally {
      await admin.end();
    }
    stopPgServer(own, 'immediate');
    writeFileSync(release, '');
    const [o1, o2] = await Promise.all([r1, r2]);
    // Both fail at their next write; neither can be told it succeeded.
    assert.notEqual(o1.status, 0, o1.stdout);
    assert.notEqual(o2.status, 0, o2.stdout);
    restartPgServer(own);
    const check = await superSession('postgres', own);
    try {
      assert.deepEqual((await check.query(`SELECT id FROM snapshots WHERE connector = $1`, [s1.name])).rows.map((r) => r.id), [snapshotId], 'the snapshot survived the crash');
      const locks = (await check.query(`SELECT connector, count(*)::int AS n FROM locks WHERE connector IN ($1, $2) GROUP BY connector`, [s1.name, s2.name])).rows;
      for (const l of locks) assert.equal(l.n, 1, 'one lock per connector');
    } finally {
      await check.end();
    }
    // Every run is in a documented state: succeeded/failed when its process recorded an end,
    // else interrupted once its lease has passed; interrupted ones are finished by rollback.
    const listed = await waitFor('no run left running', async () => {
      const r = await runCli(['runs', '-o', 'json', '--store', url], { env });
      const list = JSON.parse(r.stdout) as Array<{ id: string; connector: string; status: string }>;
      return list.every((x) => x.status !== 'running') ? list : undefined;
    }, 60_000, 500);
    for (const run of listed) assert.ok(['succeeded', 'failed', 'interrupted'].includes(run.status), `${run.id}: ${run.status}`);
    // Run 1 had its snapshot: rollback restores it. Run 2 died before its snapshot: resume finishes it.
    if ((await w1.status(s1.name)).connector.state !== 'RUNNING') {
      const rb = await runCli(['rollback', s1.name, '--yes', '--url', w1.url, '--store', url], { env });
      assert.equal(rb.status, 0, rb.stderr);
      assert.match(rb.stdout, /taking over run run-\S+ of postgres@/);
    }
    await w1.waitRunning(s1.name);
    assert.deepEqual(await w1.offsets(s1.name), before1, 'run 1 is undone');
    const run2 = listed.find((x) => x.connector === s2.name)!;
    assert.equal(run2.status, 'interrupted');
    const resumed = await runCli(['runs', 'resume', run2.id, '--yes', '--url', w1.url, '--store', url], { env });
    assert.equal(resumed.status, 0, resumed.stderr);
    await w1.waitRunning(s2.name);
    assert.deepEqual(sortedOffsets(await w1.offsets(s2.name)).map((o) => o.offset), [{ position: 0 }], 'run 2 is finished');
  } finally {
    stopPgServer(own, 'immediate');
  }
});
