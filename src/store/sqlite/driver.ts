// The SQLite driver behind the store. Node's built-in `node:sqlite` where the running Node has it
// without a flag (22.13+; nothing to compile, nothing to install), better-sqlite3 otherwise (Node
// 20, an optionalDependency built at install time). Both are synchronous, so a row is on disk when
// a call returns. The store sees only the small better-sqlite3-like surface below.
// OFFSETCTL_SQLITE=node:sqlite|better-sqlite3 forces one (benchmarks, tests of both drivers).
import { createRequire } from 'node:module';

export type SqlValue = string | number | bigint | null | Uint8Array;

export interface SqliteStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** A function run in one transaction; `.immediate()` takes the write lock at BEGIN. */
export interface SqliteTransaction<A extends unknown[], R> {
  (...args: A): R;
  immediate(...args: A): R;
}

export interface SqliteDatabase {
  readonly driver: SqliteDriverName;
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  /** `pragma('user_version', { simple: true })` gives the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): SqliteTransaction<A, R>;
  close(): void;
}

export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3';

interface NodeSqliteModule {
  DatabaseSync: new (file: string) => {
    prepare(sql: string): { run(...p: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint }; get(...p: SqlValue[]): unknown; all(...p: SqlValue[]): unknown[] };
    exec(sql: string): void;
    close(): void;
  };
}

let nodeSqlite: NodeSqliteModule | null | undefined;

/**
 * `node:sqlite` when it loads without a flag. Node 22/23 print an ExperimentalWarning when it is
 * first loaded; that line is for people trying the module, not for offsetctl's users.
 */
function loadNodeSqlite(): NodeSqliteModule | null {
  if (nodeSqlite !== undefined) return nodeSqlite;
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String((warning as Error)?.message ?? warning).includes('SQLite')) return;
    (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    const mod = getBuiltin?.('node:sqlite') as NodeSqliteModule | undefined;
    nodeSqlite = mod && typeof mod.DatabaseSync === 'function' ? mod : null;
  } catch {
    nodeSqlite = null;
  } finally {
    process.emitWarning = emit;
  }
  return nodeSqlite;
}

/** Which driver `openDatabase` uses in this process. */
export function sqliteDriver(env: NodeJS.ProcessEnv = process.env): SqliteDriverName {
  const forced = env.OFFSETCTL_SQLITE;
  if (forced === 'better-sqlite3') return 'better-sqlite3';
  if (forced === 'node:sqlite') {
    if (!loadNodeSqlite()) throw new Error(`OFFSETCTL_SQLITE=node:sqlite, but Node ${process.version} has no node:sqlite without a flag (22.13+ has)`);
    return 'node:sqlite';
  }
  return loadNodeSqlite() ? 'node:sqlite' : 'better-sqlite3';
}

export function openDatabase(file: string): SqliteDatabase {
  const driver = sqliteDriver();
  if (driver === 'node:sqlite') return new NodeSqliteDatabase(new (loadNodeSqlite() as NodeSqliteModule).DatabaseSync(file));
  return openBetterSqlite(file);
}

function openBetterSqlite(file: string): SqliteDatabase {
  let Database: new (file: string) => Omit<SqliteDatabase, 'driver'>;
  try {
    Database = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  } catch (err) {
    throw unavailable(err);
  }
  let db: Omit<SqliteDatabase, 'driver'>;
  try {
    db = new Database(file);
  } catch (err) {
    // Installed without its native build (install scripts not allowed, no compiler) or built for another Node.
    if (/bindings file|NODE_MODULE_VERSION|better_sqlite3\.node/.test((err as Error).message)) throw unavailable(err);
    throw err;
  }
  // better-sqlite3 already has exactly this surface. Its prepare() compiles the SQL every time:
  // statements are kept per SQL text, as node:sqlite's wrapper below does (the store prepares
  // the same few statements for every journal write).
  const prepared = new Map<string, SqliteStatement>();
  const prepare = db.prepare.bind(db);
  return Object.assign(db, {
    driver: 'better-sqlite3' as const,
    prepare(sql: string): SqliteStatement {
      let stmt = prepared.get(sql);
      if (stmt === undefined) prepared.set(sql, (stmt = prepare(sql)));
      return stmt;
    },
  }) as SqliteDatabase;
}

function unavailable(err: unknown): Error {
  return new Error(`Node ${process.version} has no built-in node:sqlite (22.13+ has) and better-sqlite3 could not be loaded (${(err as Error).message.split('\n')[0]}); use Node 22.13 or later, or install offsetctl with its install scripts allowed (npm install -g offsetctl --allow-scripts=better-sqlite3) so better-sqlite3 is built`, { cause: err });
}

/** better-sqlite3 binds `undefined` as NULL in practice for our calls; node:sqlite refuses it. */
function bind(params: unknown[]): SqlValue[] {
  return params.map((p) => (p === undefined ? null : typeof p === 'boolean' ? Number(p) : (p as SqlValue)));
}

class NodeSqliteDatabase implements SqliteDatabase {
  readonly driver = 'node:sqlite' as const;
  readonly #db: InstanceType<NodeSqliteModule['DatabaseSync']>;
  // Prepared once per SQL text, as the store prepares the same few statements over and over.
  readonly #statements = new Map<string, SqliteStatement>();
  #depth = 0;

  constructor(db: InstanceType<NodeSqliteModule['DatabaseSync']>) {
    this.#db = db;
  }

  prepare(sql: string): SqliteStatement {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      const raw = this.#db.prepare(sql);
      stmt = {
        run: (...p) => raw.run(...bind(p)),
        get: (...p) => raw.get(...bind(p)),
        all: (...p) => raw.all(...bind(p)),
      };
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  exec(sql: string): void {
    this.#db.exec(sql);
  }

  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const rows = this.#db.prepare(`PRAGMA ${source}`).all() as Array<Record<string, unknown>>;
    if (!options.simple) return rows;
    const first = rows[0];
    return first === undefined ? undefined : Object.values(first)[0];
  }

  transaction<A extends unknown[], R>(fn: (...args: A) => R): SqliteTransaction<A, R> {
    const run = (begin: string, args: A): R => {
      // Nested calls become savepoints, as in better-sqlite3.
      const nested = this.#depth > 0;
      const name = `t${this.#depth}`;
      this.#db.exec(nested ? `SAVEPOINT ${name}` : begin);
      this.#depth += 1;
      try {
        const result = fn(...args);
        this.#db.exec(nested ? `RELEASE ${name}` : 'COMMIT');
        return result;
      } catch (err) {
        try {
          this.#db.exec(nested ? `ROLLBACK TO ${name}; RELEASE ${name}` : 'ROLLBACK');
        } catch {
          // SQLite may already have rolled back (e.g. SQLITE_FULL); the first error is the one to report.
        }
        throw err;
      } finally {
        this.#depth -= 1;
      }
    };
    return Object.assign((...args: A) => run('BEGIN', args), { immediate: (...args: A) => run('BEGIN IMMEDIATE', args) });
  }

  close(): void {
    this.#statements.clear();
    this.#db.close();
  }
}
