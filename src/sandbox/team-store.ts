// The sandbox's team store (`offsetctl sandbox up --postgres`): a throwaway PostgreSQL server in
// <sandbox>/postgres on a free loopback port, set up as docs/team.md describes a real one — a
// NOLOGIN role `offsetctl_team` owning the database `offsetctl`, and two operator logins, alice
// and bob, members of it — so a newcomer can try two operators on one machine. Their passwords are
// made here and written only to <sandbox>/team-store.pgpass (mode 0600, libpq's .pgpass format):
// `export PGPASSFILE=<that file>` and every offsetctl command finds them.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { findPgBin, reachableFolder, startPgServer, stopPgServer, type PgServer } from './postgres-server.js';

export interface TeamStore {
  port: number;
  /** postgres://alice@127.0.0.1:<port>/offsetctl and bob's. */
  urls: { alice: string; bob: string };
  pgpass: string;
  dir: string;
}

const OPERATORS = ['alice', 'bob'] as const;

function files(sandboxDir: string): { dir: string; state: string; pgpass: string } {
  // The server's folder is <sandbox>/postgres unless the server's user cannot reach it (as root:
  // see reachableFolder); the folder in use is kept in team-store.json.
  return { dir: reachableFolder(join(sandboxDir, 'postgres')), state: join(sandboxDir, 'team-store.json'), pgpass: join(sandboxDir, 'team-store.pgpass') };
}

function describe(sandboxDir: string, port: number): TeamStore {
  const f = files(sandboxDir);
  const url = (user: string): string => `postgres://${user}@127.0.0.1:${port}/offsetctl`;
  return { port, urls: { alice: url('alice'), bob: url('bob') }, pgpass: f.pgpass, dir: f.dir };
}

/** Runs SQL as the superuser over the server's own Unix socket (trust: only its owner reaches it). */
function psql(server: PgServer, sql: string): void {
  const bin = findPgBin()!;
  const args = ['-h', server.dir, '-p', String(server.port), '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-q', '-c', sql];
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const r = root ? spawnSync('runuser', ['-u', 'postgres', '--', join(bin, 'psql'), ...args], { encoding: 'utf8' }) : spawnSync(join(bin, 'psql'), args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`psql failed: ${(r.stderr || r.stdout).trim()}`);
}

/** Starts it (creating the cluster, database and logins the first time); a running one is reused. */
export async function teamStoreUp(sandboxDir: string, port?: number): Promise<TeamStore & { reused: boolean }> {
  const f = files(sandboxDir);
  const known = teamStoreStatus(sandboxDir);
  if (known?.running) return { ...known, reused: true };
  const fresh = !existsSync(join(f.dir, 'data', 'PG_VERSION'));
  const server = await startPgServer({ dir: f.dir, ...(port ? { port } : { port: known?.port }) });
  if (fresh) {
    const passwords = Object.fromEntries(OPERATORS.map((u) => [u, randomBytes(15).toString('base64url')])) as Record<(typeof OPERATORS)[number], string>;
    psql(server, 'CREATE ROLE offsetctl_team NOLOGIN');
    psql(server, 'CREATE DATABASE offsetctl OWNER offsetctl_team');
    for (const u of OPERATORS) psql(server, `CREATE ROLE ${u} LOGIN PASSWORD '${passwords[u]}' IN ROLE offsetctl_team`);
    writeFileSync(f.pgpass, OPERATORS.map((u) => `127.0.0.1:*:offsetctl:${u}:${passwords[u]}\n`).join(''), { mode: 0o600 });
  }
  writeFileSync(f.state, `${JSON.stringify({ port: server.port })}\n`);
  return { ...describe(sandboxDir, server.port), reused: false };
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
export async function teamStoreOfUp(sandboxDir: string, ask: { start: boolean; port?: number }): Promise<TeamStore | undefined> {
  if (ask.start) return teamStoreUp(sandboxDir, ask.port);
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
