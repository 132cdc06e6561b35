// A Debezium PostgreSQL source's other half: its replication slot, read from the source database
// through a login the operator names (`--source-db`, a context's `source-db:`), never through the
// connector's own credentials. Read only: the session is read-only and asks nothing but
// pg_replication_slots (readable by any role), pg_current_wal_lsn(), pg_control_system() and,
// after a resume, pg_stat_user_tables.
// node-postgres is loaded on first use, as the team store does (src/store/postgres/driver.ts).
import type { PgPool, PgSettings } from '../../store/index.js';
import { OpsError } from '../errors.js';
import { parseLsn, type Lsn } from './lsn.js';
import * as load from '../load.js';

/** The face's connection settings: the URL read the way libpq reads it, the password from PGPASSWORD or .pgpass (never from a connector's config). */
export type SourceDbSettings = PgSettings;

export interface SlotRow {
  name: string;
  restartLsn?: Lsn;
  confirmedFlushLsn?: Lsn;
  /** reserved, extended, unreserved, lost (PostgreSQL 13+). */
  walStatus?: string;
  /** Bytes of WAL that can still be written before the slot is lost (null: no max_slot_wal_keep_size). */
  safeWalSize?: bigint;
  active: boolean;
  activePid?: number;
  plugin?: string;
  database?: string;
}

export interface SourceDbFacts {
  /** The URL without a password, for every message. */
  display: string;
  database: string;
  walLsn: Lsn;
  /** pg_control_system().system_identifier: which PostgreSQL cluster this is (undefined: the login may not read it). */
  systemId?: string;
  slot?: SlotRow;
}

interface Row { [key: string]: unknown }

/** Reads the slot `slotName` and the server's WAL position; an unreachable database or a refused login is E_PREFLIGHT (exit 2). */
export async function readSourceDb(settings: SourceDbSettings, slotName: string): Promise<SourceDbFacts> {
  return withSourceDb(settings, async (pool) => {
    const server = (await pool.query<Row>('SELECT pg_current_wal_lsn()::text AS wal, current_database() AS db')).rows[0] ?? {};
    const slots = (await pool.query<Row>(
      `SELECT slot_name, restart_lsn::text AS restart_lsn, confirmed_flush_lsn::text AS confirmed_flush_lsn, wal_status,
              safe_wal_size::text AS safe_wal_size, active, active_pid, plugin, database
         FROM pg_replication_slots WHERE slot_name = $1`, [slotName])).rows;
    // Only superusers and pg_monitor may read it by default: without it the identity is not checked (said by the caller).
    const systemId = await pool.query<Row>('SELECT system_identifier::text AS id FROM ' +
      'pg_control_system()').then((r) => String(r.rows[0]?.id ?? ''), () => '');
    const walLsn = parseLsn(server.wal);
    if (walLsn === undefined) throw new OpsError('E_PREFLIGHT', `${settings.display}: pg_current_wal_lsn() answered ${String(server.wal)}: is it a ` +
      `standby?`, { field: 'source-db' });
    return {
      display: settings.display, database: String(server.db), walLsn, ...(systemId ? { systemId } : {}),
      ...(slots[0] ? { slot: slotOf(slots[0]) } : {}),
    };
  });
}

/**
 * Rows inserted, updated or deleted so far in the tables a Debezium source captures (its
 * table.include.list, regular expressions on schema.table; every user table without one), from
 * pg_stat_user_tables: counters of the whole database, readable by any role. Compared before and
 * after a watch, they tell a source with no new rows from one whose rows are not delivered (the
 * WAL cannot: it is the whole cluster's, written by every database and by checkpoints).
 */
export async function capturedRowChanges(settings: SourceDbSettings, includeList: string[]): Promise<bigint> {
  return withSourceDb(settings, async (pool) => {
    const r = await pool.query<Row>(
      `SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::text AS n FROM pg_stat_user_tables
        WHERE cardinality($1::text[]) = 0 OR schemaname || '.' || relname ~ ANY (SELECT '^(' || p || ')$' FROM unnest($1::text[]) p)`, [includeList]);
    return BigInt(String(r.rows[0]?.n ?? '0'));
  });
}

/** One read-only session for `read`; an unreachable database or a refused login is E_PREFLIGHT (exit 2). */
async function withSourceDb<T>(settings: SourceDbSettings, read: (pool: PgPool) => Promise<T>): Promise<T> {
  const { loadPg } = await (await load.store()).postgresDriver();
  const { Pool } = loadPg();
  const pool = new Pool({
    host: settings.host, port: settings.port, user: settings.user, database: settings.database,
    password: settings.password ?? (() => Promise.reject(new OpsError('E_PREFLIGHT', `${settings.display} asks ${settings.user} for a password and none ` +
      `was found: set PGPASSWORD, or add a line for ${settings.host}:${settings.port}:${settings.database}:${settings.user} to the .pgpass file ` +
      `(PGPASSFILE, else ~/.pgpass, mode 0600)`, { field: 'source-db' }))),
    ssl: settings.ssl, application_name: 'offsetctl-preflight', max: 1, connectionTimeoutMillis: 10_000,
    statement_timeout: settings.statementTimeoutMs, query_timeout: settings.statementTimeoutMs + 5_000,
    options: '-c default_transaction_read_only=on',
  });
  pool.on('error', () => undefined);
  try {
    return await read(pool);
  } catch (err) {
    throw sourceDbError(err, settings);
  } finally {
    await pool.end().catch(() => undefined);
  }
}

function slotOf(r: Row): SlotRow {
  const restartLsn = parseLsn(r.restart_lsn);
  const confirmedFlushLsn = parseLsn(r.confirmed_flush_lsn);
  return {
    name: String(r.slot_name), active: r.active === true,
    ...(restartLsn !== undefined ? { restartLsn } : {}), ...(confirmedFlushLsn !== undefined ? { confirmedFlushLsn } : {}),
    ...(typeof r.wal_status === 'string' ? { walStatus: r.wal_status } : {}),
    ...(typeof r.safe_wal_size === 'string' && /^-?\d+$/.test(r.safe_wal_size) ? { safeWalSize: BigInt(r.safe_wal_size) } : {}),
    ...(r.active_pid !== null && r.active_pid !== undefined ? { activePid: Number(r.active_pid) } : {}),
    ...(typeof r.plugin === 'string' ? { plugin: r.plugin } : {}), ...(typeof r.database === 'string' ? { database: r.database } : {}),
  };
}

/** The driver's errors as a refusal: what failed, where (never a password), and what to do. */
function sourceDbError(err: unknown, settings: SourceDbSettings): OpsError {
  if (err instanceof OpsError) return err;
  const e = err as Error & { code?: string };
  const code = e.code ?? '';
  let hint: string;
  if (code === '28P01' || code === '28000') hint = 'the server refused the login: check the user in --source-db, and its password in PGPASSWORD or the ' +
    '.pgpass file';
  else if (code === '3D000') hint = 'the database does not exist: fix the database in --source-db';
  else if (/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|timeout/i.test(`${code} ${e.message}`)) hint = 'the server cannot be reached: is the host and ' +
    'port in --source-db right?';
  else hint = 'the source database refused the read';
  return new OpsError('E_PREFLIGHT', `cannot read the replication slot on ${settings.display}: ${e.message} (${hint}); nothing was ` +
    `changed`, { field: 'source-db', cause: err });
}
