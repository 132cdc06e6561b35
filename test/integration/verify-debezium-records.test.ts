// Verify by data, the records themselves (issue 34): `resume --verify` of a Debezium PostgreSQL
// source reads its table's topic from the end offsets it had at resume and reports the first new
// record (topic, partition, offset, record time, seconds after the topic's end was marked, before the resume) while rows keep
// arriving in a live table. The failing case: a source whose publication leaves the captured table
// out runs, rows arrive in the table, nothing reaches Kafka and the slot does not move — said as
// "rows arrive in the source … but nothing is delivered" with the figures (pg_stat_user_tables,
// the WAL beyond confirmed_flush_lsn), exit 1; an idle source says "no new rows in the source".
// Plugins sandbox, real Debezium and PostgreSQL; skipped without them (OFFSETCTL_REQUIRE_PLUGINS=1 fails).
// Real parts: the plugins sandbox (Kafka, Connect, Debezium/JDBC/Iceberg, a CDC PostgreSQL), a SQLite store file, spawns the CLI.
import * as assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { runCli } from '../support/cli.js';
import { ConnectRest, tempDir, waitFor } from '../support/connect.js';
import { cdcDatabase, debeziumConfig, type Cdc } from '../support/debezium.js';
import { cdcPool, requirePlugins, type PluginSandbox } from '../support/plugin-sandbox.js';

/** A database with an orders table and a Debezium source on it (its slot, publication and topics named after the database). */
async function debeziumSource(t: TestContext, sandbox: PluginSandbox, extra: Record<string, string>, setup: (id: string) => string[] = () => []): Promise<{
  id: string; rest: ConnectRest; name: string; sourceDb: string;
}> {
  const rest = new ConnectRest(sandbox.connect[0]!);
  let name = '';
  const db = await cdcDatabase(t, sandbox, 'vfyrec', (id) => [
    'CREATE TABLE orders (id serial PRIMARY KEY, note text)', `INSERT INTO orders (note) SELECT 'order ' || g FROM generate_series(1, 5) g`, ...setup(id),
  ], { cleanup: () => rest.deleteConnector(name) });
  name = db.name;
  await rest.createConnector(name, debeziumConfig(sandbox.cdc!, db.id, extra));
  return { id: db.id, rest, name, sourceDb: db.sourceDb };
}

/**
 * Inserts a row every 300 ms until stopped: a live table. Its own session, closed at the stop: a
 * session's table statistics reach pg_stat_user_tables when it goes idle (at most once a second,
 * else within 10 s) or ends, and a later idle watch must not count these rows as new.
 */
function liveWriter(cdc: Cdc, database: string): { stop: () => Promise<number> } {
  const pool = cdcPool(cdc, database);
  let running = true;
  let rows = 0;
  const loop = (async () => {
    while (running) {
      await pool.query(`INSERT INTO orders (note) VALUES ('live')`);
      rows++;
      await new Promise((r) => setTimeout(r, 300));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      await pool.end();
      return rows;
    },
  };
}

test('resume --verify on a Debezium source with rows arriving reports the first new record on its table\'s topic', { timeout: 400_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  const { id, rest, name, sourceDb } = await debeziumSource(t, sandbox, { 'snapshot.mode': 'initial' });
  await waitFor(`${name} RUNNING with a task and an offset`, async () => {
    const s = await rest.status(name);
    return s.connector.state === 'RUNNING' && s.tasks[0]?.state === 'RUNNING' && (await rest.offsets(name)).offsets.length > 0;
  }, 120_000);
  const url = sandbox.connect[0]!;
  const env = { OFFSETCTL_BOOTSTRAP: sandbox.bootstrap };
  const stop = await runCli(['--url', url, 'stop', name, '--source-db', sourceDb], { env });
  assert.equal(stop.status, 0, stop.stderr);
  const writer = liveWriter(sandbox.cdc as Cdc, id);
  let resume;
  try {
    resume = await runCli(['--url', url, 'resume', name, '--source-db', sourceDb, '--verify', '90s'], { env });
  } finally {
    await writer.stop();
  }
  assert.equal(resume.status, 0, `${resume.stdout}\n${resume.stderr}`);
  const topic = `${id}.public.orders`;
  assert.match(resume.stdout, new RegExp(`new records: watching ${topic} from their end offsets`));
  const first = new RegExp(`first new record: ${topic} partition 0 offset (\\d+) \\(record time (\\S+)\\), `
    + 'read (\\d+\\.\\d) s after its topics\' ends were marked');
  const m = first.exec(resume.stdout);
  assert.ok(m, resume.stdout);
  // The snapshot wrote 5 records (and the rows written while stopped came before the resume's mark, or after it):
  // the first new record is past the 5 of the snapshot, and its time is a real time of this run.
  assert.ok(Number(m[1]) >= 5, `offset ${m[1]}`);
  assert.ok(Math.abs(Date.parse(m[2]!) - Date.now()) < 300_000, `record time ${m[2]}`);
  assert.match(resume.stdout, new RegExp(String.raw`verify: passed — .* moves: RUNNING \(tasks 0:RUNNING\), offsets of 1`
    + String.raw` partition\(s\) moved within [\d.]+ s, 1 topic\(s\) with new records`));

  // Resumed with nothing written while it runs: the idle source is said as such.
  assert.equal((await runCli(['--url', url, 'stop', name, '--source-db', sourceDb], { env })).status, 0);
  const idle = await runCli(['--url', url, 'resume', name, '--source-db', sourceDb, '--verify', '8s'], { env });
  assert.equal(idle.status, 1, `${idle.stdout}\n${idle.stderr}`);
  assert.match(idle.stderr, new RegExp(`verify: failed — nothing moved in 8 s: .*; no new rows in the source: its`
    + String.raw` captured tables had no insert, update or delete during the watch \(idle\)`));
  assert.match(idle.stdout, /captured tables: 0 row change\(s\) during the watch \(pg_stat_user_tables\)/);
});

test('resume --verify: rows arrive in the table but its publication leaves it out — "nothing is delivered", with figures, exit 1',
  { timeout: 400_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  // The publication (made by hand, not by Debezium) covers another table only: orders' changes never leave PostgreSQL.
  const { id, rest, name, sourceDb } = await debeziumSource(t, sandbox,
    { 'snapshot.mode': 'no_data', 'publication.autocreate.mode': 'disabled' },
    (db) => ['CREATE TABLE other (id int PRIMARY KEY)', `CREATE PUBLICATION ${db} FOR TABLE other`]);
  const cdc = sandbox.cdc as Cdc;
  const admin = cdcPool(cdc, 'postgres');
  t.after(() => admin.end());
  await waitFor(`${name} RUNNING with its slot active`, async () => {
    const s = await rest.status(name);
    const slot = await admin.query('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1 AND active', [id]);
    return s.connector.state === 'RUNNING' && s.tasks[0]?.state === 'RUNNING' && slot.rows.length > 0;
  }, 120_000);
  const url = sandbox.connect[0]!;
  const env = { OFFSETCTL_BOOTSTRAP: sandbox.bootstrap };
  assert.equal((await runCli(['--url', url, 'stop', name, '--source-db', sourceDb], { env })).status, 0);
  const writer = liveWriter(sandbox.cdc as Cdc, id);
  let resume;
  let rows = 0;
  try {
    resume = await runCli(['--url', url, 'resume', name, '--source-db', sourceDb, '--verify', '15s'], { env });
  } finally {
    rows = await writer.stop();
  }
  assert.ok(rows > 10, `${rows} rows written during the watch`);
  assert.equal(resume.status, 1, `${resume.stdout}\n${resume.stderr}`);
  assert.match(resume.stderr, new RegExp(String.raw`verify: failed — nothing moved in 15 s: .*; rows arrive in the source \((\d+) row`
    + String.raw` change\(s\) to its captured tables during the watch\) but nothing is delivered`));
  const lsn = '[0-9A-F]+/[0-9A-F]+ \\(\\d+\\)';
  assert.match(resume.stdout, new RegExp(`pg_current_wal_lsn ${lsn}, slot ${id} confirmed_flush_lsn ${lsn} `
    + '\\(\\d+ bytes of WAL beyond it, from the whole cluster\\)'));
  assert.doesNotMatch(resume.stdout, /first new record/);
});

test('reset --verify --rollback-on-failure of an idle Debezium source (snapshot.mode=no_data): nothing to read, so not rolled back',
  { timeout: 400_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  const { id, rest, name, sourceDb } = await debeziumSource(t, sandbox, { 'snapshot.mode': 'no_data' });
  const url = sandbox.connect[0]!;
  const cdc = sandbox.cdc as Cdc;
  await waitFor(`${name} RUNNING with a task`, async () => {
    const s = await rest.status(name);
    return s.connector.state === 'RUNNING' && s.tasks[0]?.state === 'RUNNING';
  }, 120_000);
  // One row through a session of its own, closed (its counters published), until the connector has a streaming offset.
  await waitFor(`${name} with an offset`, async () => {
    const once = cdcPool(cdc, id);
    await once.query(`INSERT INTO orders (note) VALUES ('one')`);
    await once.end();
    await new Promise((r) => setTimeout(r, 3000));
    return (await rest.offsets(name)).offsets.length > 0;
  }, 120_000);
  await new Promise((r) => setTimeout(r, 2000));
  const env = { OFFSETCTL_BOOTSTRAP: sandbox.bootstrap };
  const stateDir = tempDir('vfyrec-state');
  const reset = await runCli(['--url', url, '--state-dir', stateDir, 'reset', name, '--yes', '--source-db', sourceDb, '--verify', '10s',
    '--rollback-on-failure'], { env });
  assert.equal(reset.status, 1, `${reset.stdout}\n${reset.stderr}`);
  assert.match(reset.stdout, /reset of .* done; the connector is RUNNING/);
  assert.match(reset.stderr, /verify: failed — nothing moved in 10 s: .*; no new rows in the source: .*\(idle\)\. Not rolled back: /);
  assert.match(reset.stderr, /with nothing new to read, a connector that works does not move either\. /);
  assert.match(reset.stderr, /The reset stays as it is; undo it with `offsetctl rollback .* --snapshot \S+`/);
  const runs = await runCli(['--url', url, '--state-dir', stateDir, 'runs', '--connector', name, '-o', 'json']);
  assert.deepEqual((JSON.parse(runs.stdout) as Array<{ operation: string; status: string }>).map((x) => `${x.operation}:${x.status}`), ['reset:succeeded']);
});
