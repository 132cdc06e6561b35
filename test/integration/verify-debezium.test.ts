// Verify by data after resume for a Debezium PostgreSQL source (issue 34), on the plugins sandbox:
// `resume --verify --source-db` passes only when the slot is active for the new task and its
// confirmed_flush_lsn moves; resumed with nothing to read, nothing moves and the watch says so,
// exit 1. Skipped without the plugin
// and the CDC PostgreSQL; OFFSETCTL_REQUIRE_PLUGINS=1 makes that a failure.
// Real parts: the plugins sandbox (Kafka, Connect, Debezium/JDBC/Iceberg, a CDC PostgreSQL), spawns the CLI.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../support/cli.js';
import { ConnectRest, waitFor } from '../support/connect.js';
import { cdcDatabase, debeziumConfig } from '../support/debezium.js';
import { requirePlugins } from '../support/plugin-sandbox.js';

test('resume --verify on a Debezium source: the slot active again and confirmed_flush_lsn moving pass', { timeout: 400_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  const url = sandbox.connect[0]!;
  const rest = new ConnectRest(url);
  let name = '';
  const db = await cdcDatabase(t, sandbox, 'vfy', ['CREATE TABLE orders (id int PRIMARY KEY, note text)', `INSERT INTO orders SELECT g, 'order ' || g FROM generate_series(1, 5) g`], {
    cleanup: () => rest.deleteConnector(name),
  });
  name = db.name;
  const { id, pool } = db;
  await rest.createConnector(name, debeziumConfig(sandbox.cdc!, id, { 'snapshot.mode': 'initial' }));
  await waitFor(`${name} RUNNING with a task and an offset`, async () => {
    const s = await rest.status(name);
    return s.connector.state === 'RUNNING' && s.tasks[0]?.state === 'RUNNING' && (await rest.offsets(name)).offsets.length > 0;
  }, 120_000);
  const { sourceDb } = db;
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
