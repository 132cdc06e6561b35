// Verify by data after resume for a Debezium PostgreSQL source (issue 34), on the plugins sandbox:
// `resume --verify --source-db` passes only when the slot is active for the new task and its
// confirmed_flush_lsn moves; resumed with nothing to read, nothing moves and the watch says so,
// exit 1. Skipped without the plugin
// and the CDC PostgreSQL; OFFSETCTL_REQUIRE_PLUGINS=1 makes that a failure.
// Real parts: the plugins sandbox (Kafka, Connect, Debezium/JDBC/Iceberg, a CDC PostgreSQL), spawns the CLI.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../support/cli.js';
import { ConnectRest, uniqueName, waitFor } from '../support/connect.js';
import { cdcPool, requirePlugins } from '../support/plugin-sandbox.js';

test('resume --verify on a Debezium source: the slot active again and confirmed_flush_lsn moving pass', { timeout: 400_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  const cdc = sandbox.cdc!;
  const id = uniqueName('vfy').replace(/-/g, '_');
  const admin = cdcPool(cdc, 'postgres');
  await admin.query(`CREATE DATABASE ${id}`);
  const pool = cdcPool(cdc, id);
  await pool.query('CREATE TABLE orders (id int PRIMARY KEY, note text)');
  await pool.query(`INSERT INTO orders SELECT g, 'order ' || g FROM generate_series(1, 5) g`);
  const url = sandbox.connect[0]!;
  const rest = new ConnectRest(url);
  const name = id.replace(/_/g, '-');
  await rest.createConnector(name, {
    'connector.class': 'io.debezium.connector.postgresql.PostgresConnector', 'tasks.max': '1', 'database.hostname': cdc.host,
    'database.port': String(cdc.port), 'database.user': cdc.user, 'database.dbname': id, 'topic.prefix': id, 'slot.name': id,
    'publication.name': id, 'plugin.name': 'pgoutput', 'table.include.list': 'public.orders', 'snapshot.mode': 'initial',
  });
  t.after(async () => {
    await rest.deleteConnector(name).catch(() => undefined);
    const active = async (): Promise<boolean> =>
      (await admin.query('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1 AND active', [id])).rows.length > 0;
    await waitFor(`slot ${id} released`, async () => !(await active()), 60_000).catch(() => undefined);
    await admin.query('SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1', [id]).catch(() => undefined);
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${id} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  });
  await waitFor(`${name} RUNNING with a task and an offset`, async () => {
    const s = await rest.status(name);
    return s.connector.state === 'RUNNING' && s.tasks[0]?.state === 'RUNNING' && (await rest.offsets(name)).offsets.length > 0;
  }, 120_000);
  const sourceDb = `postgres://${cdc.user}@${cdc.host}:${cdc.port}/${id}`;
  const stop = await runCli(['--url', url, 'stop', name, '--source-db', sourceDb]);
  assert.equal(stop.status, 0, stop.stderr);
  await pool.query(`INSERT INTO orders SELECT g, 'order ' || g FROM generate_series(6, 10) g`);
  const resume = await runCli(['--url', url, 'resume', name, '--source-db', sourceDb, '--verify', '60s']);
  assert.equal(resume.status, 0, `${resume.stdout}\n${resume.stderr}`);
  const lsn = '[0-9A-F]+/[0-9A-F]+ \\(\\d+\\)';
  assert.match(resume.stdout, new RegExp(`slot ${id} is active \\(pid \\d+\\); confirmed_flush_lsn ${lsn} → ${lsn}`));
  assert.match(resume.stdout, /verify: passed — .* moves: RUNNING \(tasks 0:RUNNING\), offsets of 1 partition\(s\) moved/);

  // Nothing written while it runs: nothing to confirm, so nothing moves — said, exit 1.
  const again = await runCli(['--url', url, 'stop', name, '--source-db', sourceDb]);
  assert.equal(again.status, 0, again.stderr);
  const idle = await runCli(['--url', url, 'resume', name, '--source-db', sourceDb, '--verify', '8s']);
  assert.equal(idle.status, 1, `${idle.stdout}\n${idle.stderr}`);
  assert.match(idle.stderr, /verify: failed — nothing moved in 8 s: .* RUNNING \(tasks 0:RUNNING\) and its offsets are still what the change wrote/);
});
