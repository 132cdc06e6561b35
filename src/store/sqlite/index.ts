// The SQLite backend, the default store: one file in the state folder (offsetctl.db). Its door:
// the store (store.ts), the driver it runs on (driver.ts: node:sqlite or better-sqlite3).
export { openSqliteStore, SqliteStore, STORE_FILE } from './store.js';
export { openDatabase, sqliteDriver } from './driver.js';
