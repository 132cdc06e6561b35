// The sandbox's team store (`offsetctl sandbox up --postgres`): a throwaway PostgreSQL server in
// <sandbox>/postgres on a free loopback port, set up as docs/team.md describes a real one — a
// NOLOGIN role `offsetctl_owner` owning the database `offsetctl` and its tables, an admin login
// `offsetctl_admin` (a member: migrations, policy), and a NOLOGIN role `offsetctl_operators`
// whose members alice and bob read and write through the owner's default privileges but can
// neither edit the audit trail nor disable its guards — so a newcomer can try two operators on
// one machine. Passwords are made here and written only to <sandbox>/team-store.pgpass (mode
// 0600, libpq's .pgpass format): `export PGPASSFILE=<that file>` and every command finds them.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { findPgBin, reachableFolder, startPgServer, stopPgServer, type PgServer } from './postgres-server.js';

export interface TeamStore {
  port: number;
  /** postgres://alice@127.0.0.1:<port>/offsetctl and bob's (operators), and the admin login's. */
  urls: { alice: string; bob: string; admin: string };
  pgpass: string;
  dir: string;
}

const OPERATORS = ['alice', 'bob'] as const;
const ADMIN = 'offsetctl_admin';

function files(sandboxDir: string): { dir: string; state: string; pgpass: string } {
  // The server's folder is <sandbox>/postgres unless the server's user cannot reach it (as root:
  // see reachableFolder); the folder in use is kept in team-store.json.
  return { dir: reachableFolder(join(sandboxDir, 'postgres')), state: join(sandboxDir, 'team-store.json'), pgpass: join(sandboxDir, 'team-store.pgpass') };
}

function describe(sandboxDir: string, port: number): TeamStore {
  const f = files(sandboxDir);
  const url = (user: string): string => `postgres://${user}@127.0.0.1:${port}/offsetctl`;
  return { port, urls: { alice: url('alice'), bob: url('bob'), admin: url(ADMIN) }, pgpass: f.pgpass, dir: f.dir };
}

/** Runs SQL as the superuser over the server's own Unix socket (trust: only its owner reaches it). */
function psql(server: PgServer, sql: string, database = 'postgres'): void {
  const bin = findPgBin()!;
  const args = ['-h', server.dir, '-p', String(server.port), '-U', 'postgres', '-d', database, '-v', 'ON_ERROR_STOP=1', '-q', '-c', sql];
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const r = root ? spawnSync('runuser', ['-u', 'postgres', '--', join(bin, 'psql'), ...args], { encoding: 'utf8' }) : spawnSync(join(bin, 'psql'), args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`psql failed: ${(r.stderr || r.stdout).trim()}`);
}

/**
 * The role setup docs/team.md gives a DBA, as the superuser: an owner role (owns the database
 * and, through the admin login's migrations, every table), an operators role that gets its rights
 * from the owner's default privileges, the admin login and the operators' logins.
 */
function createRoles(server: PgServer, passwords: Record<string, string>): void {
  psql(server, 'CREATE ROLE offsetctl_owner NOLOGIN');
  psql(server, 'CREATE ROLE offsetctl_operators NOLOGIN');
  psql(server, 'CREATE DATABASE offsetctl OWNER offsetctl_owner');
  psql(server, `CREATE ROLE ${ADMIN} LOGIN PASSWORD '${passwords[ADMIN]}' IN ROLE offsetctl_owner`);
  for (const u of OPERATORS) psql(server, `CREATE ROLE ${u} LOGIN PASSWORD '${passwords[u]}' IN ROLE offsetctl_operators`);
  psql(server, 'ALTER DEFAULT PRIVILEGES FOR ROLE offsetctl_owner GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO offsetctl_operators', 'offsetctl');
  psql(server, 'ALTER DEFAULT PRIVILEGES FOR ROLE offsetctl_owner GRANT USAGE, SELECT ON SEQUENCES TO offsetctl_operators', 'offsetctl');
}

/**
 * Starts it (creating the cluster, database and logins the first time); a running one is reused.
 * `migrate` brings the schema up to date as the admin login (operators may not create tables):
 * the CLI hands in the store's migration, which this layer does not import.
 */
export async function teamStoreUp(sandboxDir: string, port?: number, migrate?: (adminUrl: string, pgpass: string) => Promise<void>): Promise<TeamStore & { reused: boolean }> {
  const f = files(sandboxDir);
  const known = teamStoreStatus(sandboxDir);
  if (known?.running) {
    await migrate?.(known.urls.admin, known.pgpass);
    return { ...known, reused: true };
  }
  const fresh = !existsSync(join(f.dir, 'data', 'PG_VERSION'));
  const server = await startPgServer({ dir: f.dir, ...(port ? { port } : { port: known?.port }) });
  if (fresh) {
    const logins = [...OPERATORS, ADMIN];
    const passwords = Object.fromEntries(logins.map((u) => [u, randomBytes(15).toString('base64url')]));
    createRoles(server, passwords);
    writeFileSync(f.pgpass, logins.map((u) => `127.0.0.1:*:offsetctl:${u}:${passwords[u]}\n`).join(''), { mode: 0o600 });
  }
  writeFileSync(f.state, `${JSON.stringify({ port: server.port })}\n`);
  const team = describe(sandboxDir, server.port);
  await migrate?.(team.urls.admin, team.pgpass);
  return { ...team, reused: false };
}

export function teamStoreStatus(sandboxDir: string): (TeamStore & { running: boolean }) | undefined {
  const f = files(sandboxDir);
  if (!existsSync(f.state)) return undefined;
  const { port } = JSON.parse(readFileSync(f.state, 'utf8')) as { port: number };
  const pid = join(f.dir, 'data', 'postmaster.pid');
  let running = false;
  if (existsSync(pid)) {
    const first = Number(readFileSync(pid, 'utf8').split('\n')[0]);
    try {
      process.kill(first, 0);
      running = true;
    } catch (err) {
      running = (err as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  return { ...describe(sandboxDir, port), running };
}

/**
 * The team store a `sandbox up` reports: started (or reused) when asked for (`--postgres`), else
 * the one an earlier `up --postgres` left running, so every `up` (adding a cluster, say) says where
 * it is; undefined when there is none, or it is stopped (not offered as a place to connect).
 */
export async function teamStoreOfUp(
  sandboxDir: string, ask: { start: boolean; port?: number; migrate?: (adminUrl: string, pgpass: string) => Promise<void> },
): Promise<TeamStore | undefined> {
  if (ask.start) return teamStoreUp(sandboxDir, ask.port, ask.migrate);
  const known = teamStoreStatus(sandboxDir);
  return known?.running ? known : undefined;
}

/** Stops it; `forget` also deletes its data and passwords. */
export function teamStoreDown(sandboxDir: string, forget = false): boolean {
  const f = files(sandboxDir);
  const status = teamStoreStatus(sandboxDir);
  if (!status) return false;
  if (status.running) stopPgServer({ dir: f.dir }, 'fast');
  if (forget) {
    rmSync(f.dir, { recursive: true, force: true });
    rmSync(f.pgpass, { force: true });
    rmSync(f.state, { force: true });
  }
  return status.running;
}
