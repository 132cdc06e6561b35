// A Debezium PostgreSQL source's setting for the plugin tests: a database of the test's own on the
// sandbox's CDC PostgreSQL, the connector's config (slot, publication and topic prefix named after
// the database), and the clean-up that must leave nothing behind — the sandbox's CDC PostgreSQL
// lives across runs, and a replication slot left there counts against max_replication_slots
// (ten leaked slots once made every later Debezium source fail "Creation of replication slot
// failed").
import type { TestContext } from 'node:test';
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
