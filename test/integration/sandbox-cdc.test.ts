// `sandbox up --cdc-postgres`'s server on its own (no Kafka needed): a PostgreSQL with logical
// decoding whose superuser logs in over loopback without a password, reused while it runs (same
// port), stopped by cdcPostgresDown, and started again on the same port with its data.
// Real parts: the plugins sandbox (Kafka, Connect, Debezium/JDBC/Iceberg, a CDC PostgreSQL), a loopback HTTP server, spawns the CLI.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cdcPostgresDown, cdcPostgresStatus, cdcPostgresUp } from '../../src/sandbox/cdc-postgres.js';
import { findPgBin } from '../../src/sandbox/postgres-server.js';
import { runCli } from '../support/cli.js';
import { uniqueName } from '../support/connect.js';

const requireCjs = createRequire(import.meta.url);

interface PgClient {
  connect(): Promise<void>;
  query(text: string): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
}

async function sql(url: string, text: string): Promise<Array<Record<string, unknown>>> {
  const { Client } = requireCjs('pg') as { Client: new (c: { connectionString: string }) => PgClient };
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    return (await db.query(text)).rows;
  } finally {
    await db.end();
  }
}

test('the CDC source: logical decoding, a superuser login without password on loopback, reused, stopped, restarted with its data',
  { skip: !findPgBin() && 'PostgreSQL is not installed', timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-cdc-'));
  t.after(() => {
    cdcPostgresDown(dir);
    const status = cdcPostgresStatus(dir);
    if (status) rmSync(status.dir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });
  const first = await cdcPostgresUp(dir);
  assert.equal(first.reused, false);
  assert.equal(first.url, `postgres://postgres@127.0.0.1:${first.port}/postgres`);
  const names = "'wal_level', 'max_replication_slots', 'max_wal_senders'";
  const settings = await sql(first.url, `SELECT name, setting FROM pg_settings WHERE name IN (${names}) ORDER BY name`);
  assert.deepEqual(settings.map((r) => `${String(r['name'])}=${String(r['setting'])}`),
    ['max_replication_slots=10', 'max_wal_senders=10', 'wal_level=logical']);
  assert.equal((await sql(first.url, 'SELECT rolsuper FROM pg_roles WHERE rolname = current_user'))[0]?.['rolsuper'], true);
  // What Debezium does first: a logical slot with pgoutput.
  await sql(first.url, "SELECT pg_create_logical_replication_slot('cdc_test', 'pgoutput')");
  await sql(first.url, 'CREATE TABLE kept (id int)');

  const again = await cdcPostgresUp(dir);
  assert.equal(again.reused, true);
  assert.equal(again.port, first.port);

  assert.equal(cdcPostgresDown(dir), true);
  assert.equal(cdcPostgresStatus(dir)?.running, false);
  assert.equal(cdcPostgresDown(dir), false, 'a stopped one is not stopped twice');

  const restarted = await cdcPostgresUp(dir);
  assert.equal(restarted.reused, false);
  assert.equal(restarted.port, first.port, 'the port is kept while free');
  assert.deepEqual((await sql(restarted.url, "SELECT slot_name FROM pg_replication_slots")).map((r) => r['slot_name']), ['cdc_test']);
  assert.equal((await sql(restarted.url, "SELECT to_regclass('kept') IS NOT NULL AS kept"))[0]?.['kept'], true);
  await sql(restarted.url, "SELECT pg_drop_replication_slot('cdc_test')");
});

test('--cdc-postgres without PostgreSQL\'s server programs is refused before anything starts (exit 2)', async () => {
  const dir = join(tmpdir(), uniqueName('offsetctl-cdc-refusal'));
  const cli = await runCli(['sandbox', 'up', '--dir', dir, '--cdc-postgres'], { env: { OFFSETCTL_PG_BIN: join(dir, 'no-such-folder') } });
  assert.equal(cli.status, 2, cli.stderr);
  assert.match(cli.stderr, /E_SANDBOX_PREREQ.*--cdc-postgres needs PostgreSQL's server programs \(initdb, pg_ctl\).*apt-get install postgresql/);
  assert.equal(existsSync(dir), false, 'nothing was created');
});
