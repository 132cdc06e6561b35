// The team store's door: open a PostgreSQL store from its URL. Loaded only when a postgres://
// store is chosen (src/store/open.ts imports this file lazily), so the driver costs SQLite
// commands nothing.
import { pgSettings, type StoreUrlOptions } from './connection.js';
import { PostgresStore, type PostgresStoreOptions } from './pg-store.js';

export { PostgresStore, type MigrationReport, type PostgresStoreOptions } from './pg-store.js';
export { isPostgresUrl, pgSettings, redactUrl, type PgSettings } from './connection.js';
export type { PgPool } from './driver.js';

/** Connects and brings the schema up to date (unless `migrate: false`); rejects with E_STORE/E_STORE_SCHEMA/E_STORE_USAGE. */
export async function openPostgresStore(url: string, options: PostgresStoreOptions & StoreUrlOptions = {}): Promise<PostgresStore> {
  const store = new PostgresStore(pgSettings(url, options), options);
  try {
    await store.ready();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
/** node-postgres, loaded on first use (ops' connector profiles read a Debezium source's replication slot with it). */
export { loadPg, type PgPass } from './driver.js';
