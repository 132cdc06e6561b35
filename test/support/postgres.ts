// The tests' PostgreSQL: the one throwaway server `scripts/test.mjs` (or `.ci/run`) started and
// named in OFFSETCTL_TEST_PG, shared by every test; a test file run on its own starts a private
// one (stopped when the process exits). Each test makes its own databases and users on it.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { serverFromEnv, startPgServer, stopPgServer, type PgServer } from '../../src/sandbox/postgres-server.js';

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
    const own = await startPgServer();
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
