// The sandbox's CDC source (`offsetctl sandbox up --cdc-postgres`): a PostgreSQL server with
// logical decoding for Debezium, in a folder of its own (<sandbox>/cdc-postgres) on its own free
// loopback port, kept in cdc-postgres.json so the URL stays the same from one `up` to the next.
// Its superuser `postgres` logs in over loopback TCP without a password (`trust`: a sandbox on
// 127.0.0.1 only), so its libpq URL carries no secret and a connector needs none. `down` stops
// it; its data (tables, replication slots) stays until the folder is deleted.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isPortFree } from './ports.js';
import { reachableFolder, startPgServer, stopPgServer } from './postgres-server.js';

export interface CdcPostgres {
  /** libpq URL of the loopback superuser login (no password needed). */
  url: string;
  host: '127.0.0.1';
  port: number;
  user: 'postgres';
  database: 'postgres';
  /** The server's folder (data/, log). */
  dir: string;
}

/** What Debezium needs: logical decoding, and slots and senders for a few connectors at once. */
export const CDC_SETTINGS: Readonly<Record<string, string | number>> = {
  wal_level: 'logical',
  max_replication_slots: 10,
  max_wal_senders: 10,
};

function files(sandboxDir: string): { dir: string; state: string } {
  // As root the server runs as `postgres`, which may not reach <sandbox>: see reachableFolder.
  return { dir: reachableFolder(join(sandboxDir, 'cdc-postgres')), state: join(sandboxDir, 'cdc-postgres.json') };
}

function describe(sandboxDir: string, port: number): CdcPostgres {
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, host: '127.0.0.1', port, user: 'postgres', database: 'postgres', dir: files(sandboxDir).dir };
}

/** Its description and whether its postmaster runs; undefined when it was never started here. */
export function cdcPostgresStatus(sandboxDir: string): (CdcPostgres & { running: boolean }) | undefined {
  const f = files(sandboxDir);
  if (!existsSync(f.state)) return undefined;
  const { port } = JSON.parse(readFileSync(f.state, 'utf8')) as { port: number };
  return { ...describe(sandboxDir, port), running: postmasterRuns(join(f.dir, 'data')) };
}

function postmasterRuns(data: string): boolean {
  const pidFile = join(data, 'postmaster.pid');
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Starts it (creating the cluster the first time); a running one is reused. Its port is kept while free. */
export async function cdcPostgresUp(sandboxDir: string, progress: (line: string) => void = () => {}): Promise<CdcPostgres & { reused: boolean }> {
  const f = files(sandboxDir);
  const known = cdcPostgresStatus(sandboxDir);
  if (known?.running) return { ...known, reused: true };
  const port = known && (await isPortFree(known.port)) ? known.port : undefined;
  progress(`starting the CDC source PostgreSQL (wal_level=logical) in ${f.dir}`);
  const server = await startPgServer({ dir: f.dir, authHost: 'trust', settings: CDC_SETTINGS, ...(port ? { port } : {}) });
  writeFileSync(f.state, `${JSON.stringify({ port: server.port })}\n`);
  return { ...describe(sandboxDir, server.port), reused: false };
}

/** Stops it (a clean shutdown); true when it was running. */
export function cdcPostgresDown(sandboxDir: string): boolean {
  const status = cdcPostgresStatus(sandboxDir);
  if (!status?.running) return false;
  stopPgServer({ dir: status.dir }, 'fast');
  return true;
}
