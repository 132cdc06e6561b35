// The tests' PostgreSQL: the one throwaway server `scripts/test.mjs` (or `.ci/run`) started and
// named in OFFSETCTL_TEST_PG, shared by every test; a test file run on its own starts a private
// one (stopped when the process exits). Each test makes its own databases and users on it.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { serverFromEnv, startPgServer, stopPgServer, THROWAWAY_SETTINGS, type PgServer } from '../../src/sandbox/postgres-server.js';

const requireCjs = createRequire(import.meta.url);

interface AdminPool {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
}

let server: Promise<PgServer> | undefined;

export function testPgServer(): Promise<PgServer> {
  server ??= (async () => {
    const shared = serverFromEnv();
    if (shared) return shared;
    const own = await startPgServer({ settings: THROWAWAY_SETTINGS });
    process.once('exit', () => stopPgServer(own, 'immediate'));
    return own;
  })();
  return server;
}

interface LoginPool extends AdminPool {
  connect(): Promise<AdminPool & { release(): void }>;
}

/** Connections as one test login, to try what that operator may do in SQL. */
export async function loginPool(login: TestLogin, database: string): Promise<LoginPool> {
  const s = await testPgServer();
  const { Pool } = requireCjs('pg') as { Pool: new (c: Record<string, unknown>) => LoginPool & { on(e: string, f: () => void): void } };
  const pool = new Pool({ host: s.host, port: s.port, user: login.user, password: login.password, database, max: 2 });
  pool.on('error', () => undefined);
  return pool;
}

/** A connection as the superuser, for setting up (and breaking) things. */
export async function adminPool(database = 'postgres'): Promise<AdminPool> {
  const s = await testPgServer();
  const { Pool } = requireCjs('pg') as { Pool: new (c: Record<string, unknown>) => AdminPool & { on(e: string, f: () => void): void } };
  const pool = new Pool({ host: s.host, port: s.port, user: s.adminUser, password: s.adminPassword, database, max: 2 });
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Holds a lock named `name` on the tests' shared server until the returned function is called: a
 * test that changes the server itself (its TLS settings) takes it, so the same file run at once
 * by CI's Node legs waits for the other instead of swapping the certificate under it.
 */
export async function holdServerLock(name: string): Promise<() => Promise<void>> {
  const s = await testPgServer();
  const { Client } = requireCjs('pg') as { Client: new (c: Record<string, unknown>) => AdminPool & { connect(): Promise<void>; on(e: string, f: () => void): void } };
  const client = new Client({ host: s.host, port: s.port, user: s.adminUser, password: s.adminPassword, database: 'postgres' });
  client.on('error', () => undefined);
  await client.connect();
  // A session lock: released by pg_advisory_unlock, or by the server when this connection ends (a killed test).
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [`offsetctl-test:${name}`]);
  return async () => {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`offsetctl-test:${name}`]).catch(() => undefined);
    await client.end().catch(() => undefined);
  };
}

export interface TestLogin {
  user: string;
  password: string;
}

export interface TestDatabase {
  name: string;
  /** postgres://<owner>@127.0.0.1:<port>/<name>: no password in it, as offsetctl requires. */
  url: string;
  /** The URL for another login. */
  urlFor(login: TestLogin): string;
  owner: TestLogin;
  port: number;
}

const unique = (prefix: string): string => `${prefix}_${randomBytes(5).toString('hex')}`;

/** A new login with a password of its own. */
export async function newLogin(prefix = 'op', extra = ''): Promise<TestLogin> {
  const user = unique(prefix);
  const password = randomBytes(12).toString('base64url');
  const admin = await adminPool();
  try {
    await admin.query(`CREATE ROLE ${user} LOGIN PASSWORD '${password}' ${extra}`);
  } finally {
    await admin.end();
  }
  return { user, password };
}

/**
 * A new database owned by a NOLOGIN team role, and its first operator login, a member of that
 * role (docs/team.md): more operators come from addOperator.
 */
export async function newDatabase(prefix = 'offsetctl'): Promise<TestDatabase> {
  const s = await testPgServer();
  const name = unique(prefix);
  const admin = await adminPool();
  try {
    await admin.query(`CREATE ROLE ${name}_team NOLOGIN`);
    await admin.query(`CREATE DATABASE ${name} OWNER ${name}_team`);
  } finally {
    await admin.end();
  }
  const owner = await addOperator({ name }, 'alice');
  const urlFor = (login: TestLogin): string => `postgres://${login.user}@${s.host}:${s.port}/${name}`;
  return { name, url: urlFor(owner), urlFor, owner, port: s.port };
}

/** Another operator of that database's team. */
export async function addOperator(db: Pick<TestDatabase, 'name'>, prefix = 'bob'): Promise<TestLogin> {
  return newLogin(prefix, `IN ROLE ${db.name}_team`);
}

/** A database set up as docs/team.md's role block: an owner role, an operators role, an admin login (a member of the owner) that migrated it, and operators. */
export interface SplitDatabase {
  name: string;
  admin: TestLogin;
  operators: TestLogin[];
  url(login: TestLogin): string;
}

export async function newSplitDatabase(operatorCount = 1): Promise<SplitDatabase> {
  const s = await testPgServer();
  const name = unique('roles');
  const login = (): TestLogin => ({ user: `${name}_${randomBytes(3).toString('hex')}`, password: randomBytes(12).toString('base64url') });
  const admin = login();
  const operators = Array.from({ length: operatorCount }, login);
  const su = await adminPool();
  try {
    await su.query(`CREATE ROLE ${name}_owner NOLOGIN`);
    await su.query(`CREATE ROLE ${name}_operators NOLOGIN`);
    await su.query(`CREATE DATABASE ${name} OWNER ${name}_owner`);
    await su.query(`CREATE ROLE ${admin.user} LOGIN PASSWORD '${admin.password}' IN ROLE ${name}_owner`);
    for (const o of operators) await su.query(`CREATE ROLE ${o.user} LOGIN PASSWORD '${o.password}' IN ROLE ${name}_operators`);
  } finally {
    await su.end();
  }
  const inDb = await adminPool(name);
  try {
    await inDb.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${name}_owner GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${name}_operators`);
    await inDb.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${name}_owner GRANT USAGE, SELECT ON SEQUENCES TO ${name}_operators`);
  } finally {
    await inDb.end();
  }
  const url = (l: TestLogin): string => `postgres://${l.user}@${s.host}:${s.port}/${name}`;
  const { PostgresStore, pgSettings } = await import('../../src/store/postgres/index.js');
  const migrator = new PostgresStore(pgSettings(url(admin), { passwordEnv: 'P', env: { P: admin.password } }), {});
  try {
    await migrator.describe();
  } finally {
    await migrator.close();
  }
  return { name, admin, operators, url };
}
