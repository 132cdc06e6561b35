// node-postgres (`pg`), loaded only when a team store is opened: SQLite commands never parse it.
// The CLI's build bundles it into one CommonJS file beside its chunks (scripts/build.mjs);
// tsc's output and the tests load the package itself.
import { createRequire } from 'node:module';

const requireCjs = createRequire(import.meta.url);

/** The part of pg's API the store uses. */
export interface PgQueryResult<R> {
  rows: R[];
  rowCount: number | null;
}
export interface PgClient {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PgQueryResult<R>>;
  release(err?: Error | boolean): void;
  on(event: 'error', listener: (err: Error) => void): unknown;
  off(event: 'error', listener: (err: Error) => void): unknown;
}
export interface PgPool {
  connect(): Promise<PgClient>;
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PgQueryResult<R>>;
  end(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): unknown;
}
/** The pgpass package: the password for a connection from PGPASSFILE or ~/.pgpass (undefined: no line matches). */
export type PgPass = (connection: { host: string; port: number; database: string; user: string }, callback: (password: string | undefined) => void) => void;

export interface PgModule {
  Pool: new (config: Record<string, unknown>) => PgPool;
  pgpass: PgPass;
}

let loaded: PgModule | undefined;

export function loadPg(): PgModule {
  if (loaded) return loaded;
  try {
    const bundled = requireCjs('./pg-bundle.cjs') as Partial<PgModule>;
    if (typeof bundled.Pool === 'function' && typeof bundled.pgpass === 'function') return (loaded = bundled as PgModule);
  } catch {
    // not the bundle: the packages below
  }
  return (loaded = { Pool: (requireCjs('pg') as PgModule).Pool, pgpass: requireCjs('pgpass') as PgPass });
}
