// A rewind of a Debezium source whose task cannot come back (issue 34): its replication slot was
// lost while it was STOPPED (the WAL passed max_slot_wal_keep_size), so once resumed Kafka Connect
// reads the connector RUNNING with no task while the task retries. The rewind's own resume and
// wait must not call that running: the run fails (exit 1), is put back, and says so — never
// "done; the connector is RUNNING". Real Debezium on the plugins sandbox, a PostgreSQL of this test's own.
// Real parts: the plugins sandbox (Kafka, Connect, Debezium/JDBC/Iceberg, a CDC PostgreSQL), spawns the CLI.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startPgServer, stopPgServer } from '../../src/sandbox/index.js';
import { runCli } from '../support/cli.js';
import { ConnectRest, tempDir, uniqueName, waitFor } from '../support/connect.js';
import { cdcPool, requirePlugins } from '../support/plugin-sandbox.js';

test('a rewind of a Debezium source whose task never comes back (slot lost) is not reported RUNNING: exit 1, put back', { timeout: 900_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres']);
  if (!sandbox) return;
  const server = await startPgServer({ authHost: 'trust', settings: { wal_level: 'logical', max_replication_slots: 4, max_wal_senders: 4, max_slot_wal_keep_size: '1MB', wal_keep_size: 0 } });
  t.after(() => stopPgServer(server, 'immediate'));
  const pool = cdcPool({ url: '', host: server.host, port: server.port, user: 'postgres' }, 'postgres');
  t.after(() => pool.end());
  await pool.query('CREATE TABLE orders (id int PRIMARY KEY, note text)');
  await pool.query(`INSERT INTO orders SELECT g, 'order ' || g FROM generate_series(1, 10) g`);
  const url = sandbox.connect[0]!;
  const rest = new ConnectRest(url);
  const name = uniqueName('dbz-notask');
  const slot = name.replace(/-/g, '_');
  await rest.createConnector(name, {
    'connector.class': 'io.debezium.connector.postgresql.PostgresConnector', 'tasks.max': '1', 'database.hostname': server.host,
    'database.port': String(server.port), 'database.user': 'postgres', 'database.dbname': 'postgres', 'topic.prefix': slot,
    'slot.name': slot, 'publication.name': slot, 'plugin.name': 'pgoutput', 'table.include.list': 'public.orders',
  });
  t.after(() => rest.deleteConnector(name).catch(() => undefined));
  await rest.waitForRunning(name, 1, 120_000);
  const offset = await waitFor(`${name}'s first offset`, async () => (await rest.offsets(name)).offsets[0]);

  // Stopped, then the slot lost: WAL written past max_slot_wal_keep_size, a checkpoint removes it.
  await rest.stop(name);
  await waitFor('slot released', async () => (await pool.query('SELECT active FROM pg_replication_slots WHERE slot_name = $1', [slot])).rows[0]?.active === false);
  await waitFor('the slot lost', async () => {
    await pool.query(`INSERT INTO orders SELECT g, repeat('x', 2000) FROM generate_series((SELECT max(id) + 1 FROM orders), (SELECT max(id) + 2000 FROM orders)) g`);
    await pool.query('SELECT pg_switch_wal()');
    await pool.query('CHECKPOINT');
    return (await pool.query('SELECT wal_status FROM pg_replication_slots WHERE slot_name = $1', [slot])).rows[0]?.wal_status === 'lost';
  }, 120_000, 100);

  // The rewind (to its own offset, the risk accepted) resumes it: its task never comes back. Its
  // record time one microsecond earlier, so the target differs from the committed offset (the same
  // offset is "nothing to change": nothing is stopped or resumed), and the position is the same.
  const target = { ...offset, offset: { ...offset.offset, ts_usec: Number(offset.offset?.['ts_usec'] ?? 1) - 1 } };
  const file = join(tempDir('dbz-notask'), 'offsets.json');
  writeFileSync(file, JSON.stringify({ offsets: [target] }));
  const rewind = await runCli(['--url', url, 'rewind', name, '--offsets', file, '--skip-source-check', '--resume', '--yes'], { timeoutMs: 600_000 });
  const said = `${rewind.stdout}${rewind.stderr}`;
  t.diagnostic(said.split('\n').filter((l) => /error|done/.test(l)).join(' '));
  assert.doesNotMatch(said, /rewind of .* done; the connector is RUNNING/);
  assert.equal(rewind.status, 1, said);
  assert.match(said, /rewind of .* failed at step waitForRunning/);
  assert.match(said, /RUNNING with no task|no task/);
});
