// A Debezium source whose replication slot was lost while it was STOPPED (issue 34): the WAL it
// needed passed max_slot_wal_keep_size. Kafka Connect then reads RUNNING with no task while the task
// retries for 30 minutes; offsetctl's `resume` refuses, naming the way out. Real Debezium on the
// plugins sandbox's workers, against a PostgreSQL of this test's own with a 1 MB
// max_slot_wal_keep_size, so the slot is really lost (wal_status lost) by writing WAL, not faked.
// Real parts: the plugins sandbox (Kafka, Connect, Debezium/JDBC/Iceberg, a CDC PostgreSQL), spawns the CLI.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { startPgServer, stopPgServer } from '../../src/sandbox/index.js';
import { runCli } from '../support/cli.js';
import { ConnectRest, uniqueName, waitFor } from '../support/connect.js';
import { cdcPool, requirePlugins } from '../support/plugin-sandbox.js';

test('resume of a Debezium source whose slot was lost while it was stopped is refused, with the way out', { timeout: 600_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres']);
  if (!sandbox) return;
  const server = await startPgServer({ authHost: 'trust', settings: { wal_level: 'logical', max_replication_slots: 4, max_wal_senders: 4, max_slot_wal_keep_size: '1MB', wal_keep_size: 0 } });
  t.after(() => stopPgServer(server, 'immediate'));
  const cdc = { url: '', host: server.host, port: server.port, user: 'postgres' };
  const pool = cdcPool(cdc, 'postgres');
  t.after(() => pool.end());
  await pool.query('CREATE TABLE orders (id int PRIMARY KEY, note text)');
  await pool.query(`INSERT INTO orders SELECT g, 'order ' || g FROM generate_series(1, 10) g`);
  const url = sandbox.connect[0]!;
  const rest = new ConnectRest(url);
  const name = uniqueName('dbz-lost');
  const slot = name.replace(/-/g, '_');
  await rest.createConnector(name, {
    'connector.class': 'io.debezium.connector.postgresql.PostgresConnector', 'tasks.max': '1', 'database.hostname': server.host,
    'database.port': String(server.port), 'database.user': 'postgres', 'database.dbname': 'postgres', 'topic.prefix': slot,
    'slot.name': slot, 'publication.name': slot, 'plugin.name': 'pgoutput', 'table.include.list': 'public.orders',
  });
  t.after(() => rest.deleteConnector(name).catch(() => undefined));
  await rest.waitForRunning(name, 1, 120_000);
  await waitFor(`${name}'s first offset`, async () => (await rest.offsets(name)).offsets.length > 0);
  const sourceDb = `postgres://postgres@${server.host}:${server.port}/postgres`;

  const stop = await runCli(['--url', url, 'stop', name, '--source-db', sourceDb]);
  assert.equal(stop.status, 0, stop.stderr);
  assert.match(stop.stdout, /safe_wal_size \d+ bytes/);
  assert.match(stop.stderr, /after .* more of WAL .* the slot is lost \(wal_status lost\)/);
  await waitFor('slot released', async () => (await pool.query('SELECT active FROM pg_replication_slots WHERE slot_name = $1', [slot])).rows[0]?.active === false);

  // Write WAL past max_slot_wal_keep_size; a checkpoint then removes what the slot needed.
  await waitFor('the slot lost', async () => {
    await pool.query(`INSERT INTO orders SELECT g, repeat('x', 2000) FROM generate_series((SELECT max(id) + 1 FROM orders), (SELECT max(id) + 2000 FROM orders)) g`);
    await pool.query('SELECT pg_switch_wal()');
    await pool.query('CHECKPOINT');
    return (await pool.query('SELECT wal_status FROM pg_replication_slots WHERE slot_name = $1', [slot])).rows[0]?.wal_status === 'lost';
  }, 120_000, 100);

  const resume = await runCli(['--url', url, 'resume', name, '--source-db', sourceDb]);
  assert.equal(resume.status, 2, resume.stderr);
  assert.match(resume.stderr, /is lost \(wal_status lost.*RUNNING with no task.*The way out: drop the slot \(SELECT pg_drop_replication_slot\('dbz_lost_/);
  assert.equal((await rest.status(name)).connector.state, 'STOPPED');

  // Resumed anyway (the risk accepted): RUNNING with no task is not counted as running.
  const anyway = await runCli(['--url', url, 'resume', name, '--skip-source-check', '--timeout-s', '20']);
  assert.equal(anyway.status, 1, `${anyway.stdout}${anyway.stderr}`);
  assert.match(anyway.stderr, /did not reach RUNNING within 20 s \(last seen: RUNNING\)|did not start: task 0 is FAILED/);
  assert.doesNotMatch(anyway.stdout, /STOPPED → RUNNING/);
});
