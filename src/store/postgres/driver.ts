// node-postgres (`pg`), loaded only when a team store is opened: SQLite commands never parse it.
// A packed copy is used when one is handed in (src/store/bundled.ts: the CLI's build entry hands in
// the file scripts/build.mjs bundled); tsc's output and the tests load the packages themselves.
import { createRequire } from 'node:module';
import { bundledPg } from '../bundled.js';

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

/** pg's own module: its Pool, and the Client class a Pool makes connections with. */
interface PgPackage {
  Pool: PgModule['Pool'];
  Client: new (config: Record<string, unknown>) => PgConnecting;
  pgpass: PgPass;
}
interface PgConnecting {
  connect(callback?: (err?: Error) => void): Promise<void> | undefined;
  end(): Promise<void>;
}

let loaded: PgModule | undefined;

export function loadPg(): PgModule {
  if (loaded) return loaded;
  let pg: PgPackage | undefined;
  try {
    const bundled = bundledPg()?.();
    if (typeof bundled?.Pool === 'function' && typeof bundled.Client === 'function' && typeof bundled.pgpass === 'function') pg = bundled as PgPackage;
  } catch {
    // a provider that fails: the packages below
  }
  pg ??= { ...(requireCjs('pg') as Pick<PgPackage, 'Pool' | 'Client'>), pgpass: requireCjs('pgpass') as PgPass };
  return (loaded = { Pool: poolEndingFailedConnects(pg), pgpass: pg.pgpass });
}

/**
 * A Pool whose connections end their socket when the connect fails. pg leaves a connection
 * whose sign-in failed on the client's side (no password to give, a password function that
 * threw) open; the server then closes it only at its authentication_timeout (60 s by default),
 * and a CLI that refused with exit 2 waited that minute to exit. pg-pool takes the Client class
 * to use as its `Client` option.
 */
function poolEndingFailedConnects(pg: PgPackage): PgModule['Pool'] {
  const Base = pg.Client;
  class EndingClient extends Base {
    override connect(callback?: (err?: Error) => void): Promise<void> | undefined {
      if (callback) return super.connect((err) => { if (err) this.end().catch(() => undefined); callback(err); });
      return (super.connect() as Promise<void>).catch((err: unknown) => { this.end().catch(() => undefined); throw err; });
    }
  }
  const Pool = pg.Pool;
  return class extends Pool {
    constructor(config: Record<string, unknown>) {
      super({ Client: EndingClient, ...config });
    }
  };
}
