// The dry run's count of what a replay reads again, when the operator names a read-only login to
// the source database (--source-db, the same as the profiles'): SELECT count(*) of the table with
// the filter, in a read-only transaction with the login's statement timeout. Debezium runs the
// same condition with its own login; this only tells the operator how many rows that will be.
import type { PgSettings } from '../../store/index.js';
import { OpsError } from '../errors.js';
import * as load from '../load.js';

export async function countReplayRows(settings: PgSettings, table: string, filter: string | undefined): Promise<number> {
  const { loadPg } = await (await load.store()).postgresDriver();
  const { Pool } = loadPg();
  const pool = new Pool({
    host: settings.host, port: settings.port, user: settings.user, database: settings.database,
    ...(settings.password !== undefined ? { password: settings.password } : {}), ssl: settings.ssl, application_name: 'offsetctl-replay',
    max: 1, connectionTimeoutMillis: 10_000, statement_timeout: settings.statementTimeoutMs, options: '-c default_transaction_read_only=on',
  });
  pool.on('error', () => undefined);
  const [schema, name] = table.split('.') as [string, string];
  try {
    const sql = `SELECT count(*)::text AS n FROM "${schema}"."${name}"${filter ? ` WHERE ${filter}` : ''}`;
    const rows = (await pool.query<{ n: string }>(sql)).rows;
    return Number(rows[0]?.n ?? 0);
  } catch (err) {
    throw new OpsError('E_PREFLIGHT', `counting the rows of ${table}${filter ? ` where ${filter}` : ''} on ${settings.display} failed: `
      + `${(err as Error).message} (Debezium would run the same condition: fix --where); nothing was sent`, { field: 'where', cause: err });
  } finally {
    await pool.end().catch(() => undefined);
  }
}
