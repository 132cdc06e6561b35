// What only a shared store can get wrong: two operators (two database logins) on two hosts, two
// real processes racing, leases by the server's clock, takeover of a dead holder's run and the
// fence that keeps a holder who lost its lease from going on, migrations raced by processes
// starting at once, a newer schema refused, and `store import` twice.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { openSqliteStore, type NewRun } from '../../src/store/index.js';
import { PostgresStore, type PostgresStoreOptions } from '../../src/store/postgres/index.js';
import { pgSettings } from '../../src/store/postgres/connection.js';
import { PG_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { addOperator, adminPool, loginPool, newDatabase, type TestDatabase, type TestLogin } from '../support/postgres.js';

const run = (connector: string, operation: NewRun['operation'] = 'rewind'): NewRun => ({
  clusterUrl: 'http://127.0.0.1:8083', clusterKey: 'kafka:team', connector, operation,
  workflowFile: 'workflows/rewind-connector-offsets.arazzo.yaml', workflowId: 'rewind-connector-offsets', inputs: { connectorName: connector },
});

export function sharedStoreContract(): void {
  describe('Store contract, shared store: two operators on two hosts', () => {
    let db: TestDatabase;
    let bob: TestLogin;
    const stores: PostgresStore[] = [];
    const open = (login: TestLogin, host: string, options: PostgresStoreOptions = {}, pid = process.pid): PostgresStore => {
      const s = new PostgresStore(pgSettings(db.urlFor(login), { passwordEnv: 'P', env: { P: login.password } }), {
        owner: { pid, hostname: host }, actor: { via: 'cli', version: '9.9.9' }, ...options,
      });
      stores.push(s);
      return s;
    };
    const setUp = async (): Promise<void> => {
      db = await newDatabase('shared');
      bob = await addOperator(db);
    };

    test('a live lease is never taken over: the second operator is refused naming user@host, since when and the run', async () => {
      await setUp();
      const a = open(db.owner, 'host-a');
      const b = open(bob, 'host-b');
      const first = await a.beginRun(run('orders'));
      assert.equal(first.actor.dbUser, db.owner.user, 'the database login, from the server');
      assert.equal(first.actor.user, db.owner.user);
      assert.equal(first.actor.host, 'host-a');
      assert.equal(first.actor.version, '9.9.9');
      assert.ok(first.actor.osUser.length > 0);
      for (const attempt of [() => b.beginRun(run('orders')), () => b.beginRun(run('orders', 'rollback'), { takeOverStale: true }), () => b.takeOverRun(first.id)]) {
        await assert.rejects(attempt(), (err: Error & { code?: string }) => {
          assert.equal(err.code, 'E_LOCKED');
          assert.match(err.message, new RegExp(`${first.id} of ${db.owner.user}@host-a \\(pid ${process.pid} on host-a, since \\d{4}-\\d\\d-\\d\\dT`));
          assert.match(err.message, /busy/);
          return true;
        });
      }
      const lock = await b.lockOf('kafka:team', 'orders');
      assert.equal(lock?.alive, true);
      assert.equal(lock?.actor.dbUser, db.owner.user);
      assert.deepEqual((await b.listLocks()).map((l) => l.runId), [first.id]);
      // Everyone sees everything: bob reads alice's run.
      assert.equal((await b.getRun(first.id)).displayStatus, 'running');
      await a.finishRun(first.id, { status: 'succeeded' });
      const second = await b.beginRun(run('orders'));
      assert.equal(second.actor.dbUser, bob.user);
    });

    test('the lease is renewed while the holder lives, and lapses by the server\'s clock when it stops', async () => {
      await setUp();
      const a = open(db.owner, 'host-a', { leaseSeconds: 1 });
      const b = open(bob, 'host-b', { leaseSeconds: 1 });
      const held = await a.beginRun(run('renewed'));
      const lock = (await b.lockOf('kafka:team', 'renewed'))!;
      assert.equal(Date.parse(lock.expiresAt!) - Date.parse(lock.acquiredAt), 1000, 'expires_at = acquired_at + lease, both from now()');
      await sleep(2500);
      assert.equal((await b.lockOf('kafka:team', 'renewed'))?.alive, true, 'renewed past its first second');
      await assert.rejects(b.takeOverRun(held.id), /busy/);
      // The holder dies (its renewals stop): once the lease has passed, its run is interrupted for everyone.
      await a.close();
      await sleep(1500);
      assert.equal((await b.lockOf('kafka:team', 'renewed'))?.alive, false);
      assert.equal((await b.getRun(held.id)).displayStatus, 'interrupted');
      await assert.rejects(b.beginRun(run('renewed')), /stale lock: run .* died before finishing/);
    });

    test('a dead holder\'s run is taken over from another host, which says whose it was; the old holder is fenced off', async () => {
      await setUp();
      const a = open(db.owner, 'host-a', { leaseSeconds: 1 }, 4242);
      const dead = await a.beginRun(run('taken'));
      await a.close(); // no more renewals: "A is killed"
      await sleep(1500);
      const b = open(bob, 'host-b');
      const resumed = await b.takeOverRun(dead.id);
      assert.equal(resumed.hostname, 'host-b');
      assert.equal(resumed.resumedBy?.dbUser, bob.user);
      assert.equal(resumed.takenOverFrom?.dbUser, db.owner.user);
      assert.equal(resumed.takenOverFrom?.host, 'host-a');
      assert.equal(resumed.actor.dbUser, db.owner.user, 'who started it stays recorded');
      assert.equal((await b.lockOf('kafka:team', 'taken'))?.alive, true);
      // A comes back (it was only paused): it may not write as the holder nor release bob's lock.
      const aAgain = open(db.owner, 'host-a', {}, 4242);
      await assert.rejects(aAgain.updateRunContext(dead.id, { offsetsMayHaveChanged: true }), /no longer this process's: its lease ran out and .*@host-b \(pid \d+ on host-b\) took it over/);
      await assert.rejects(aAgain.finishRun(dead.id, { status: 'succeeded' }), /no longer this process's/);
      assert.equal((await b.lockOf('kafka:team', 'taken'))?.runId, dead.id);
      assert.equal((await b.getRun(dead.id)).status, 'running');
      await b.updateRunContext(dead.id, { offsetsMayHaveChanged: true });
      await b.finishRun(dead.id, { status: 'succeeded' });
      assert.equal((await b.getRun(dead.id)).status, 'succeeded');
    });

    test('a rollback supersedes a dead holder\'s run and records whose it was', async () => {
      await setUp();
      const a = open(db.owner, 'host-a', { leaseSeconds: 1 });
      const dead = await a.beginRun(run('superseded'));
      await a.close();
      await sleep(1500);
      const b = open(bob, 'host-b');
      const rollback = await b.beginRun(run('superseded', 'rollback'), { takeOverStale: true });
      const old = await b.getRun(dead.id);
      assert.equal(old.status, 'abandoned');
      assert.match(old.message ?? '', new RegExp(`interrupted \\(${db.owner.user}@host-a, .* lease expired at .*\\); superseded by run ${rollback.id} of ${bob.user}@host-b`));
    });

    test('two processes on two hosts start a run on one connector at the same moment: exactly one gets it', async () => {
      await setUp();
      const child = fileURLToPath(new URL('./race-child.js', import.meta.url));
      const at = Date.now() + 1500;
      const procs = [[db.owner, 'host-a'], [bob, 'host-b']].map(([login, host]) => spawn(process.execPath, [child], {
        env: { ...process.env, STORE_URL: db.urlFor(login as TestLogin), STORE_PASSWORD: (login as TestLogin).password, CONNECTOR: 'raced', HOST: host as string, AT: String(at) },
        stdio: ['pipe', 'pipe', 'inherit'],
      }));
      const results = await Promise.all(procs.map((p) => new Promise<{ ok: boolean; code?: string; message?: string }>((resolve, reject) => {
        let out = '';
        p.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!) as { ok: boolean });
        });
        p.once('exit', (code) => reject(new Error(`race child exited ${code} before answering`)));
      })));
      for (const p of procs) p.stdin!.end();
      await Promise.all(procs.map((p) => new Promise((resolve) => p.once('exit', resolve))));
      assert.equal(results.filter((r) => r.ok).length, 1, JSON.stringify(results));
      const refused = results.find((r) => !r.ok)!;
      assert.equal(refused.code, 'E_LOCKED');
      assert.match(refused.message!, /busy: run run-\S+ of \S+@host-[ab] \(pid \d+/);
    });

    test('operators starting at once on a new database migrate it once; a newer schema is refused with an upgrade hint', async () => {
      await setUp();
      const all = Array.from({ length: 6 }, (_, i) => open(i % 2 ? bob : db.owner, `host-${i}`));
      await Promise.all(all.map((s) => s.ready()));
      const admin = await adminPool(db.name);
      try {
        const rows = (await admin.query('SELECT version, applied_by, offsetctl FROM offsetctl_schema ORDER BY version')).rows;
        assert.deepEqual(rows.map((r) => r.version), PG_MIGRATIONS.map((_, i) => i + 1));
        assert.equal(rows[0]!.offsetctl, '9.9.9');
        // The tables belong to the team's role, so bob can write whoever migrated.
        const owner = (await admin.query(`SELECT tableowner FROM pg_tables WHERE tablename = 'runs'`)).rows[0]!.tableowner;
        assert.equal(owner, `${db.name}_team`);
        assert.equal((await all[1]!.describe()).schemaVersion, PG_MIGRATIONS.length);
        await admin.query(`INSERT INTO offsetctl_schema (version, offsetctl) VALUES (${PG_MIGRATIONS.length + 1}, '99.0.0')`);
      } finally {
        await admin.end();
      }
      const older = open(bob, 'host-old');
      await assert.rejects(older.ready(), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'E_STORE_SCHEMA');
        assert.match(err.message, new RegExp(`schema version ${PG_MIGRATIONS.length + 1}, written by a newer offsetctl; this one knows up to ${PG_MIGRATIONS.length}: upgrade offsetctl`));
        return true;
      });
      await assert.rejects(older.listRuns(), /upgrade offsetctl/);
    });

    test('the audit trail is append-only on the server: no operator (not even the owner role) may change, delete or truncate it; the server names the login that wrote each entry', async () => {
      await setUp();
      const a = open(db.owner, 'host-a');
      const b = open(bob, 'host-b');
      const mine = await a.recordAudit({ actor: { user: 'alice@example.com', via: 'oidc', issuer: 'http://127.0.0.1:9/', subject: 'a-1' }, action: 'rewind', outcome: 'started', connector: 'orders' });
      await b.recordAudit({ actor: { user: 'bob@laptop', via: 'cli', osUser: 'bob', host: 'laptop' }, action: 'reset', outcome: 'refused', connector: 'billing' });
      assert.deepEqual((await b.listAudit()).map((e) => e.actor.user), ['bob@laptop', 'alice@example.com'], 'each operator sees the other\'s entries');
      for (const login of [bob, db.owner]) {
        const pool = await loginPool(login, db.name);
        try {
          for (const statement of [`UPDATE audit SET user_name = 'mallory' WHERE id = '${mine.id}'`, `DELETE FROM audit WHERE id = '${mine.id}'`, 'TRUNCATE audit']) {
            await assert.rejects(pool.query(statement), (err: Error & { code?: string }) => err.code === '42501', `${login.user}: ${statement}`);
          }
          // A member of the owner role acting as it (as migrations do) is refused as well.
          const asOwner = await pool.connect();
          try {
            await asOwner.query(`SET ROLE ${db.name}_team`);
            await assert.rejects(asOwner.query(`DELETE FROM audit WHERE id = '${mine.id}'`), (err: Error & { code?: string }) => err.code === '42501');
            await asOwner.query(`GRANT UPDATE, DELETE ON audit TO ${db.name}_team`);
            await assert.rejects(asOwner.query(`DELETE FROM audit WHERE id = '${mine.id}'`), /append-only/, 'granted back, the trigger still refuses');
          } finally {
            asOwner.release();
          }
        } finally {
          await pool.end();
        }
      }
      const admin = await adminPool(db.name);
      try {
        const rows = (await admin.query('SELECT user_name, db_user FROM audit ORDER BY seq')).rows;
        assert.deepEqual(rows, [{ user_name: 'alice@example.com', db_user: db.owner.user }, { user_name: 'bob@laptop', db_user: bob.user }]);
      } finally {
        await admin.end();
      }
      assert.equal((await a.listAudit()).length, 2, 'nothing was changed');
    });

    test('store import copies local runs, journals, snapshots and the audit trail; a second import adds nothing', async () => {
      await setUp();
      const local = openSqliteStore(mkdtempSync(join(tmpdir(), 'offsetctl-import-')));
      const r1 = await local.beginRun(run('imported'));
      await local.recordStep(r1.id, { workflowId: 'w', stepId: 'stopConnector', status: 'passed', outputs: { x: 1 }, finishedAt: new Date().toISOString() });
      await local.recordEvents(r1.id, [{ at: new Date().toISOString(), type: 'step.started', stepId: 'stopConnector', detail: { a: 1 } }]);
      const snap = await local.saveSnapshot({ runId: r1.id, clusterUrl: 'http://127.0.0.1:8083', clusterKey: 'kafka:team', connector: 'imported', connectorType: 'source', stateBefore: 'RUNNING', offsets: [{ partition: { f: 1 }, offset: { p: 2 } }] });
      await local.finishRun(r1.id, { status: 'succeeded', connectorState: 'RUNNING' });
      const diff = [{ change: 'changed' as const, partition: { f: 1 }, from: { p: 9 }, to: { p: 2 } }];
      const started = await local.recordAudit({ actor: { user: 'ops@laptop', via: 'cli', osUser: 'ops', host: 'laptop' }, action: 'rewind', outcome: 'started', connector: 'imported', runId: r1.id, diff, counts: { changed: 1 } }, new Date('2026-01-01T10:00:00Z'));
      const ended = await local.recordAudit({ actor: { user: 'ops@laptop', via: 'cli' }, action: 'rewind', outcome: 'succeeded', connector: 'imported', runId: r1.id, snapshotId: snap.id }, new Date('2026-01-01T10:00:00Z'));
      // A batch whose second member never started: it has no run, only the batch knows it (issue 30, point 7).
      const batch = await local.saveBatch({ id: 'batch-20260101-100000-b0a7', clusterUrl: 'http://127.0.0.1:8083', clusterKey: 'kafka:team', operation: 'rewind', resumeAfter: 'auto',
        members: [{ connector: 'imported', offsets: [{ partition: { f: 1 }, offset: { p: 2 } }] }, { connector: 'never-started', offsets: [{ partition: { f: 2 }, offset: { p: 3 } }] }] });
      const team = open(db.owner, 'host-a');
      assert.deepEqual(await team.importFrom(local), { runs: 1, snapshots: 1, audit: 2, batches: 1, skippedRuns: 0, skippedSnapshots: 0, skippedAudit: 0, skippedBatches: 0 });
      assert.deepEqual(await team.importFrom(local), { runs: 0, snapshots: 0, audit: 0, batches: 0, skippedRuns: 1, skippedSnapshots: 1, skippedAudit: 2, skippedBatches: 1 });
      assert.deepEqual(await open(bob, 'host-b').getBatch(batch.id), batch, 'the batch comes with every member, the one that never started too');
      assert.deepEqual(await open(bob, 'host-b').listAudit(), [ended, started], 'the audit comes whole, times and order kept');
      const copied = await open(bob, 'host-b').getRun(r1.id);
      assert.equal(copied.status, 'succeeded');
      assert.equal(copied.startedAt, r1.startedAt);
      assert.deepEqual((await team.stepsOf(r1.id)).map((s) => [s.seq, s.stepId, s.outputs]), [[1, 'stopConnector', { x: 1 }]]);
      assert.equal((await team.eventsOf(r1.id)).length, 1);
      assert.deepEqual((await team.getSnapshot(snap.id)).offsets, snap.offsets);
      assert.equal((await team.listRuns()).length, 1);
      await local.close();
    });

    test('runs and snapshots opened many in one second all get distinct ids', async () => {
      await setUp();
      const a = open(db.owner, 'host-a');
      const now = new Date('2026-01-01T00:00:00Z');
      const ids = new Set<string>();
      await Promise.all(Array.from({ length: 4 }, async (_v, w) => {
        for (let i = 0; i < 250; i++) {
          ids.add((await a.beginRun(run(`ids-${w}-${i}`), { now })).id);
          ids.add((await a.saveSnapshot({ clusterUrl: 'http://127.0.0.1:8083', connector: `ids-${w}-${i}`, connectorType: 'source', stateBefore: 'RUNNING', offsets: [] }, now)).id);
        }
      }));
      assert.equal(ids.size, 2000);
    });

    test('close every store', async () => {
      for (const s of stores) await s.close();
    });
  });
}
