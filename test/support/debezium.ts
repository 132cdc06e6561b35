// A Debezium PostgreSQL source's setting for the plugin tests: a database of the test's own on the
// sandbox's CDC PostgreSQL, the connector's config (slot, publication and topic prefix named after
// the database), and the clean-up that must leave nothing behind — the sandbox's CDC PostgreSQL
// lives across runs, and a replication slot left there counts against max_replication_slots
// (ten leaked slots once made every later Debezium source fail "Creation of replication slot
// failed").
import type { TestContext } from 'node:test';
import { readEvents, startPgServer, stopPgServer } from '../../src/sandbox/index.js';
import { ConnectRest } from './connect.js';
import { uniqueName, waitFor } from './connect.js';
import { deleteTopics } from './positions-kafka.js';
import { cdcPool, type PluginSandbox } from './plugin-sandbox.js';

export const DEBEZIUM_POSTGRES = 'io.debezium.connector.postgresql.PostgresConnector';

export type Cdc = NonNullable<PluginSandbox['cdc']>;

export interface CdcDatabase {
  /** The database's name, also the slot's, the publication's and the topic prefix. */
  id: string;
  /** The connector's name (the id with dashes). */
  name: string;
  pool: ReturnType<typeof cdcPool>;
  admin: ReturnType<typeof cdcPool>;
  /** The read-only login offsetctl is given (`--source-db`). */
  sourceDb: string;
  sql: (text: string) => Promise<Array<Record<string, unknown>>>;
}

/**
 * A database `<prefix>_…` with `setup` run in it (its tables), dropped after the test together
 * with the slot of its name (whoever still holds it ended first) and, given `topics(id)`, those
 * Kafka topics. Register the connector's delete with t.after before calling this only if it must
 * run after the drop; hooks run in the order they were added.
 */
export async function cdcDatabase(t: TestContext, sandbox: PluginSandbox, prefix: string, setup: string[] | ((id: string) => string[]), options: { topics?: (id: string) => string[]; cleanup?: () => Promise<unknown> } = {}): Promise<CdcDatabase> {
  const cdc = sandbox.cdc!;
  const id = uniqueName(prefix).replace(/-/g, '_');
  const admin = cdcPool(cdc, 'postgres');
  await admin.query(`CREATE DATABASE ${id}`);
  const pool = cdcPool(cdc, id);
  for (const statement of typeof setup === 'function' ? setup(id) : setup) await pool.query(statement);
  t.after(async () => {
    // The connector goes first (its task holds the slot), then the slot, the database and the topics.
    await options.cleanup?.().catch(() => undefined);
    await dropSlot(admin, id);
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${id} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    if (options.topics) await deleteTopics(sandbox.bootstrap, options.topics(id));
  });
  return { id, name: id.replace(/_/g, '-'), pool, admin, sourceDb: `postgres://${cdc.user}@${cdc.host}:${cdc.port}/${id}`, sql: async (text) => (await pool.query(text)).rows };
}

/** The Debezium PostgreSQL source's config for database `id` (pgoutput; slot, publication and prefix named `id`). */
export function debeziumConfig(cdc: Pick<Cdc, 'host' | 'port' | 'user'>, id: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'connector.class': DEBEZIUM_POSTGRES, 'tasks.max': '1', 'database.hostname': cdc.host, 'database.port': String(cdc.port), 'database.user': cdc.user,
    'database.dbname': id, 'topic.prefix': id, 'slot.name': id, 'publication.name': id, 'plugin.name': 'pgoutput',
    'table.include.list': 'public.orders', ...extra,
  };
}

/** Waits up to 20 s for the slot's holder to let go, ends it if it does not, then drops the slot. */
export async function dropSlot(admin: ReturnType<typeof cdcPool>, slot: string): Promise<void> {
  const active = async (): Promise<boolean> => (await admin.query('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1 AND active', [slot])).rows.length > 0;
  await waitFor(`slot ${slot} released`, async () => !(await active()), 20_000).catch(() => undefined);
  await admin.query('SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = $1 AND active', [slot]).catch(() => undefined);
  await waitFor(`slot ${slot} let go`, async () => !(await active()), 20_000).catch(() => undefined);
  await admin.query('SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1', [slot]).catch(() => undefined);
}

/**
 * Every change event on a Debezium table topic (JSON without schemas) from its start, as
 * `[op, id]` of the row; read until no record came for `quietMs`; tombstones left out; a topic not
 * there yet reads as none. The sandbox's CDC demo reads them the same way (readEvents).
 */
export async function changeEvents(bootstrap: string, topic: string, quietMs = 3000): Promise<Array<[string, number]>> {
  return readEvents(bootstrap, topic, quietMs).catch(() => []);
}

export interface LossySource {
  name: string;
  slot: string;
  url: string;
  rest: ConnectRest;
  pool: ReturnType<typeof cdcPool>;
  /** --source-db for it: the server's loopback superuser, no password. */
  sourceDb: string;
}

/**
 * A PostgreSQL of the test's own that loses a replication slot after 1 MB of WAL
 * (max_slot_wal_keep_size), with public.orders (ids 1..10), and a Debezium source `<prefix>-…` on
 * it, RUNNING with a task and its first offset; the server is stopped after the test.
 */
export async function sourceOnLossyPostgres(t: TestContext, sandbox: PluginSandbox, prefix: string): Promise<LossySource> {
  const server = await startPgServer({ authHost: 'trust', settings: { wal_level: 'logical', max_replication_slots: 4, max_wal_senders: 4, max_slot_wal_keep_size: '1MB', wal_keep_size: 0 } });
  t.after(() => stopPgServer(server, 'immediate'));
  const cdc = { url: '', host: server.host, port: server.port, user: 'postgres' };
  const pool = cdcPool(cdc, 'postgres');
  t.after(() => pool.end());
  await pool.query('CREATE TABLE orders (id int PRIMARY KEY, note text)');
  await pool.query(`INSERT INTO orders SELECT g, 'order ' || g FROM generate_series(1, 10) g`);
  const url = sandbox.connect[0]!;
  const rest = new ConnectRest(url);
  const name = uniqueName(prefix);
  const slot = name.replace(/-/g, '_');
  await rest.createConnector(name, debeziumConfig(cdc, slot, { 'database.dbname': 'postgres' }));
  t.after(() => rest.deleteConnector(name).catch(() => undefined));
  await rest.waitForRunning(name, 1, 120_000);
  await waitFor(`${name}'s first offset`, async () => (await rest.offsets(name)).offsets.length > 0);
  return { name, slot, url, rest, pool, sourceDb: `postgres://postgres@${server.host}:${server.port}/postgres` };
}

/** Writes WAL past max_slot_wal_keep_size and checkpoints until the (released) slot is lost. */
export async function loseSlot(pool: ReturnType<typeof cdcPool>, slot: string): Promise<void> {
  await waitFor('slot released', async () => (await pool.query('SELECT active FROM pg_replication_slots WHERE slot_name = $1', [slot])).rows[0]?.active === false);
  await waitFor('the slot lost', async () => {
    await pool.query(`INSERT INTO orders SELECT g, repeat('x', 2000) FROM generate_series((SELECT max(id) + 1 FROM orders), (SELECT max(id) + 2000 FROM orders)) g`);
    await pool.query('SELECT pg_switch_wal()');
    await pool.query('CHECKPOINT');
    return (await pool.query('SELECT wal_status FROM pg_replication_slots WHERE slot_name = $1', [slot])).rows[0]?.wal_status === 'lost';
  }, 120_000, 100);
}
