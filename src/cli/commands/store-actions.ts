// The `store` commands' work: open the chosen store, say what it is, migrate it, import into it.
// (Node's own modules are imported statically: the Node 20 build runs through V8's code cache,
// where a dynamic import() of a built-in has no loader.)
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { OpsError } from '../../ops/errors.js';
import type { LockRecord } from '../../store/index.js';
import type { StoreFlags } from '../store-choice.js';
import { stdout } from './say.js';
import { historyStoreChoice } from '../history-store.js';
import { openCommandStore } from '../store-choice.js';
import { STORE_FILE, actorName, describeActor, isTeamStore } from '../../store/index.js';
import { renderTable } from '../render/table.js';
import { resolveStateDir } from '../connection.js';

interface StoreCommandOptions extends StoreFlags {
  output?: string;
  from?: string;
}

export async function storeStatus(opts: StoreCommandOptions): Promise<void> {
  // Opened without migrating: status reports an old schema instead of changing it.
  const store = await openCommandStore(await historyStoreChoice(opts), { migrate: false });
  try {
    const about = await store.describe();
    const locks = about.schemaVersion < about.knownSchemaVersion ? [] : await store.listLocks();
    if (opts.output === 'json') return void stdout(`${JSON.stringify({ ...about, locks }, null, 2)}\n`);
    const lines = [
      `store     ${about.backend === 'postgres' ? 'team store (PostgreSQL)' : 'SQLite file'} ${about.location}`,
      ...(about.serverVersion ? [`server    PostgreSQL ${about.serverVersion}`] : []),
      ...(about.dbUser ? [`login     ${about.dbUser}`] : []),
      ...(about.tls ? [`tls       ${about.tls === 'none' ? 'none (add sslmode=verify-full&sslrootcert=… to the URL to encrypt and check the server)' : about.tls}`] : []),
      `schema    version ${about.schemaVersion} (this offsetctl knows up to ${about.knownSchemaVersion})${about.schemaVersion < about.knownSchemaVersion ? ': run `offsetctl store migrate`' : ''}`,
    ];
    if (locks.length === 0) lines.push('locks     none: no run holds a connector');
    else {
      lines.push(`locks     ${locks.length}`);
      lines.push(renderTable(['CONNECTOR', 'CLUSTER', 'RUN', 'HELD BY', 'SINCE', 'LEASE', 'STATE'],
        locks.map((l: LockRecord) => [l.connector, l.clusterKey, l.runId, actorName(l.actor), l.acquiredAt, l.expiresAt ?? '', l.alive ? 'live' : 'holder gone (interrupted)'])));
      for (const l of locks) lines.push(`  ${l.runId}: ${describeActor(l.actor)}`);
    }
    stdout(`${lines.join('\n')}\n`);
  } finally {
    await store.close();
  }
}

export async function storeMigrate(opts: StoreCommandOptions): Promise<void> {
  const store = await openCommandStore(await historyStoreChoice(opts));
  try {
    const about = await store.describe();
    const report = (store as { migration?: { from: number; to: number } }).migration;
    const from = report?.from ?? about.schemaVersion;
    if (opts.output === 'json') return void stdout(`${JSON.stringify({ backend: about.backend, location: about.location, from, to: about.schemaVersion }, null, 2)}\n`);
    stdout(from === about.schemaVersion
      ? `${about.location}: schema already at version ${about.schemaVersion}; nothing to do\n`
      : `${about.location}: schema migrated from version ${from} to ${about.schemaVersion}\n`);
  } finally {
    await store.close();
  }
}

export async function storeImport(opts: StoreCommandOptions): Promise<void> {
  const choice = await historyStoreChoice(opts);
  if (!isTeamStore(choice)) throw new OpsError('E_USAGE', 'store import copies local history into a team store: name it with --store postgres://USER@HOST/DATABASE (or OFFSETCTL_STORE, or a context\'s store)', { field: 'store' });
  const fromDir = resolveStateDir(opts.from ?? opts.stateDir);
  if (!existsSync(join(fromDir, STORE_FILE))) throw new OpsError('E_USAGE', `--from: ${fromDir} holds no offsetctl store (${STORE_FILE}); give the state folder to import`, { field: 'from' });
  const source = await openCommandStore({ stateDir: fromDir });
  const target = await openCommandStore(choice);
  try {
    const counts = await target.importFrom(source);
    if (opts.output === 'json') return void stdout(`${JSON.stringify({ from: source.location, to: target.location, ...counts }, null, 2)}\n`);
    const entries = (n: number): string => `${n} audit entr${n === 1 ? 'y' : 'ies'}`;
    const skipped = counts.skippedRuns + counts.skippedSnapshots + counts.skippedAudit + counts.skippedBatches;
    const there = skipped > 0
      ? `; ${counts.skippedRuns} run(s), ${counts.skippedSnapshots} snapshot(s), ${counts.skippedBatches} batch(es) and ${entries(counts.skippedAudit)} were already there`
      : '';
    stdout(`imported ${counts.runs} run(s), ${counts.snapshots} snapshot(s), ${counts.batches} batch(es) and ${entries(counts.audit)} `
      + `from ${source.location} into ${target.location}${there}\n`);
  } finally {
    await source.close();
    await target.close();
  }
}
