// A throwaway PostgreSQL server in a folder of its own: `initdb`, `pg_ctl start` on a loopback
// port, `pg_ctl stop`. One module for every user of such a server: `.ci/run` and
// `scripts/test.mjs` (through scripts/pg-server.mjs), the tests that crash and restart one, and
// `offsetctl sandbox up --postgres`. The server binaries are Debian's (`postgresql`,
// /usr/lib/postgresql/<major>/bin) or whatever OFFSETCTL_PG_BIN names.
//
// initdb and the server refuse to run as root: as root (CI, the sandbox machines) every program
// runs as the `postgres` system user the Debian package creates, on a folder that user owns.
import { spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findFreePort } from './ports.js';

export interface PgServer {
  /** The folder holding data/, the log and the Unix socket. */
  readonly dir: string;
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The superuser (`postgres`) and its password: for setting up databases and users, never for offsetctl itself. */
  readonly adminUser: string;
  readonly adminPassword: string;
  /** postgres://postgres:<password>@127.0.0.1:<port>/postgres */
  readonly adminUrl: string;
  readonly logFile: string;
}

/** The folder holding initdb and pg_ctl, or undefined when PostgreSQL is not installed. */
export function findPgBin(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.OFFSETCTL_PG_BIN) return existsSync(join(env.OFFSETCTL_PG_BIN, 'initdb')) ? env.OFFSETCTL_PG_BIN : undefined;
  const base = '/usr/lib/postgresql';
  let majors: string[] = [];
  try {
    majors = readdirSync(base).filter((m) => /^\d+$/.test(m)).sort((a, b) => Number(b) - Number(a));
  } catch {
    majors = [];
  }
  for (const m of majors) if (existsSync(join(base, m, 'bin', 'initdb'))) return join(base, m, 'bin');
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  const found = which.status === 0 ? which.stdout.trim() : '';
  return found ? join(found, '..') : undefined;
}

const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/** uid and gid of the `postgres` system user (only needed as root). */
function postgresUser(): { uid: number; gid: number } {
  const r = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const g = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (r.status !== 0 || g.status !== 0) throw new Error('running as root, but there is no `postgres` system user to run the server as (install Debian\'s postgresql package: apt-get install postgresql)');
  return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
}

/** Runs a server program, as the `postgres` user when we are root. */
function runPg(bin: string, program: string, args: string[], allowFail = false): { status: number; output: string } {
  const exe = join(bin, program);
  const r = isRoot()
    ? spawnSync('runuser', ['-u', 'postgres', '--', exe, ...args], { encoding: 'utf8' })
    : spawnSync(exe, args, { encoding: 'utf8' });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`;
  if (r.status !== 0 && !allowFail) throw new Error(`${program} ${args.join(' ')} failed (exit ${r.status}): ${output.trim()}`);
  return { status: r.status ?? 1, output };
}

/**
 * As root the server runs as `postgres`, which must be able to reach its folder: a folder under
 * root's home (~/.cache/offsetctl/sandbox, mode 0700) or a private temporary folder is not
 * reachable, and initdb failed there with "Permission denied". Such a folder is swapped for one
 * under the system temp folder, named after it so the same sandbox finds the same server again.
 */
export function reachableFolder(dir: string): string {
  if (!isRoot()) return dir;
  // The nearest folder that exists decides: folders made below it get mode 0755.
  let parent = dirname(dir);
  while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
  const r = spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', parent]);
  if (r.status === 0) return dir;
  return join(tmpdir(), `offsetctl-pg-${createHash('sha256').update(dir).digest('hex').slice(0, 12)}`);
}

/** A folder the server's user owns (a new one under the system temp folder unless given). */
function serverFolder(dir?: string): string {
  const folder = dir ? reachableFolder(dir) : mkdtempSync(join(tmpdir(), 'offsetctl-pg-'));
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  if (isRoot()) {
    const { uid, gid } = postgresUser();
    chownSync(folder, uid, gid);
  }
  return folder;
}

function writeOwned(file: string, text: string, mode = 0o600): void {
  writeFileSync(file, text, { mode });
  chmodSync(file, mode);
  if (isRoot()) {
    const { uid, gid } = postgresUser();
    chownSync(file, uid, gid);
  }
}

/**
 * Settings for the tests' throwaway servers: PostgreSQL's "non-durable settings" (its manual,
 * "Non-Durable Settings"). Without fsync a commit is still written to the operating system before
 * it returns (synchronous_commit stays on), so a server killed or stopped `immediate` loses
 * nothing; only a crash of the machine could, and a throwaway server does not outlive one. The
 * tests that stop or kill a server to see what offsetctl does then start their own, durable one.
 */
export const THROWAWAY_SETTINGS: Readonly<Record<string, string>> = { fsync: 'off', full_page_writes: 'off' };

export interface StartOptions {
  /** Reuse or create this folder (the sandbox's); a new temporary one otherwise. */
  dir?: string;
  /** A fixed port (the sandbox's); a free one otherwise. */
  port?: number;
  /**
   * How TCP logins on loopback are checked when the cluster is created: passwords (default), or
   * `trust` for the sandbox's CDC source, whose superuser login needs no password.
   */
  authHost?: 'scram-sha-256' | 'trust';
  /** Server settings written to postgresql.conf when the cluster is created (e.g. wal_level=logical). */
  settings?: Readonly<Record<string, string | number>>;
}

/**
 * Starts a server, creating its cluster first when the folder has none. The superuser's password
 * is made here and kept in the folder (`admin-password`, readable by its owner only), so a
 * restart of the same folder (the sandbox's) keeps it.
 */
export async function startPgServer(options: StartOptions = {}): Promise<PgServer> {
  const bin = findPgBin();
  if (!bin) throw new Error('PostgreSQL is not installed (no initdb under /usr/lib/postgresql/*/bin; install it with `apt-get install postgresql`, or set OFFSETCTL_PG_BIN)');
  const dir = serverFolder(options.dir);
  const data = join(dir, 'data');
  const passwordFile = join(dir, 'admin-password');
  if (!existsSync(join(data, 'PG_VERSION'))) {
    const password = randomBytes(18).toString('base64url');
    writeOwned(passwordFile, password);
    // trust on the Unix socket (only the folder's owner can reach it), passwords on TCP.
    const authHost = `--auth-host=${options.authHost ?? 'scram-sha-256'}`;
    runPg(bin, 'initdb', ['-D', data, '-U', 'postgres', '--auth-local=trust', authHost, `--pwfile=${passwordFile}`, '-E', 'UTF8', '--no-instructions']);
    // In postgresql.conf, so a restart (pg_ctl start without options) keeps them.
    const settings = Object.entries(options.settings ?? {});
    if (settings.length > 0) appendFileSync(join(data, 'postgresql.conf'), `\n# offsetctl\n${settings.map(([k, v]) => `${k} = ${String(v)}\n`).join('')}`);
  }
  const adminPassword = readFileSync(passwordFile, 'utf8').trim();
  const port = options.port ?? (await findFreePort());
  const logFile = join(dir, 'log');
  // A cluster left running by a killed owner (the sandbox's after a reboot leaves none) is stopped first.
  runPg(bin, 'pg_ctl', ['-D', data, 'stop', '-m', 'fast', '-w'], true);
  runPg(bin, 'pg_ctl', ['-D', data, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, '-l', logFile, '-w', '-t', '60', 'start']);
  return { dir, host: '127.0.0.1', port, adminUser: 'postgres', adminPassword, adminUrl: `postgres://postgres:${encodeURIComponent(adminPassword)}@127.0.0.1:${port}/postgres`, logFile };
}

/**
 * Stops it: `fast` (a clean shutdown) or `immediate` (a crash: no shutdown checkpoint, recovery
 * replays the WAL at the next start; the fault tests' "the database died mid-run").
 */
export function stopPgServer(server: Pick<PgServer, 'dir'>, mode: 'fast' | 'immediate' = 'fast'): void {
  const bin = findPgBin();
  if (!bin) return;
  runPg(bin, 'pg_ctl', ['-D', join(server.dir, 'data'), 'stop', '-m', mode, '-w', '-t', '60'], true);
}

/** Starts a stopped server again on the same port (after stopPgServer). */
export function restartPgServer(server: PgServer): void {
  const bin = findPgBin();
  if (!bin) throw new Error('PostgreSQL is not installed');
  runPg(bin, 'pg_ctl', ['-D', join(server.dir, 'data'), '-o', `-p ${server.port} -k ${server.dir} -c listen_addresses=127.0.0.1`, '-l', server.logFile, '-w', '-t', '60', 'start']);
}

/** Writes a file the server can read (a TLS key and certificate of a test), owned by its user. */
export function writeServerFile(file: string, text: string, mode = 0o600): void {
  writeOwned(file, text, mode);
}

/** A folder the server's user owns, for files it must read (TLS keys). */
export function serverOwnedFolder(): string {
  return serverFolder();
}

/** How a server is handed to the processes that use it: OFFSETCTL_TEST_PG holds this as JSON. */
export function describeServer(server: PgServer): string {
  return JSON.stringify(server);
}

export function serverFromEnv(env: NodeJS.ProcessEnv = process.env): PgServer | undefined {
  const text = env.OFFSETCTL_TEST_PG;
  if (!text) return undefined;
  return JSON.parse(text) as PgServer;
}
