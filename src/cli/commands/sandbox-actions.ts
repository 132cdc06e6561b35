// The actions of `sandbox up|status|down|logs|demo` (registered in sandbox.ts). Loaded only through
// their door (load.sandboxActions()), so the sandbox (src/sandbox) is imported statically here; the
// store loads only for a team store (`up --postgres`).
import type { Command } from 'commander';
import {
  resolveSandboxDir, runCdcDemo, runSandboxDemo, sandboxCommand, sandboxDown, sandboxLogs, sandboxStatus, sandboxUp, teamStoreDown, teamStoreOfUp,
  teamStoreStatus, type SandboxStatus,
} from '../../sandbox/index.js';
import { currentIO } from '../io.js';
import * as load from '../load.js';
import type { DirOption, UpOptions } from './sandbox.js';

const progress = (line: string): void => {
  currentIO().stderr.write(`${line}\n`);
};

/** The plugins, the CDC source and the Iceberg catalog, one line each (nothing when there are none). */
function extrasText(status: Pick<SandboxStatus, 'plugins' | 'cdc' | 'iceberg'>): string {
  const names = status.plugins.map((p) => p.name).join(', ');
  return (status.plugins.length > 0 ? `  plugins    ${names} (plugin.path: ${status.plugins.map((p) => p.dir).join(',')})\n` : '') +
    (status.cdc ? `  cdc source ${status.cdc.url}  (PostgreSQL, wal_level=logical, no password on loopback)\n` : '') +
    (status.iceberg ? `  iceberg    REST catalog ${status.iceberg.catalog.uri}  warehouse ${status.iceberg.warehouse}\n` : '');
}

/** `sandbox up`: started or reused, clusters added, a team store when asked for. */
export async function up(opts: UpOptions, command: Command): Promise<void> {
  const result = await sandboxUp({
    // A default --workers must not count as asked for: it decides the size of an added cluster only when given.
    ...(command.getOptionValueSource('workers') === 'default' ? {} : { workers: opts.workers }),
    ...(opts.clusters !== undefined ? { clusters: opts.clusters } : {}),
    ...(opts.lanes !== undefined ? { lanes: opts.lanes } : {}),
    ...(opts.otherKafka ? { otherKafka: true } : {}),
    ...(opts.kafkaVersion ? { kafkaVersion: opts.kafkaVersion } : {}),
    progress,
    ...(opts.dir ? { dir: opts.dir } : {}),
    ...(opts.brokerPort ? { brokerPort: opts.brokerPort } : {}),
    ...(opts.connectPort ? { connectPort: opts.connectPort } : {}),
    ...(opts.plugin.length > 0 ? { plugins: opts.plugin } : {}),
    ...(opts.cdcPostgres ? { cdcPostgres: true } : {}),
  });
  // A team store started before (`up --postgres`) and still running is part of the sandbox: said
  // again by every `up` (adding a cluster, say), not only the one that started it.
  const start = opts.postgres === true || opts.postgresPort !== undefined;
  const team = await teamStoreOfUp(resolveSandboxDir(opts.dir), { start, ...(opts.postgresPort ? { port: opts.postgresPort } : {}), migrate: migrateTeamStore });
  if (opts.output === 'json') {
    currentIO().stdout.write(`${JSON.stringify({ ...result, ...(team ? { teamStore: { urls: team.urls, pgpass: team.pgpass } } : {}) })}\n`);
    return;
  }
  const verb = result.reused ? 'already running' : `up in ${(result.durationMs / 1000).toFixed(1)} s`;
  currentIO().stdout.write(`sandbox ${verb} (Kafka ${result.kafkaVersion ?? '?'}, ${result.dir})\n` +
    `  bootstrap  ${result.bootstrap}\n` +
    result.connect.map((url, i) => `  worker-${i + 1}   ${url}\n`).join('') +
    result.clusters.filter((c) => c.name !== 'main').map((c) => `  cluster ${c.name}: ${c.connect.join(', ')} (Kafka ${c.bootstrap})\n`).join('') +
    (team ? `  team store ${team.urls.alice}  (and ${team.urls.bob})\n             passwords: export PGPASSFILE=${team.pgpass}\n` : '') +
    extrasText(result) +
    `stop it with \`${sandboxCommand('down', result.dir)}\`\n`);
}

/** `sandbox status`: is the sandbox running, and where. */
export async function status(opts: DirOption & { output: string }): Promise<void> {
  // The folder from this command's environment (OFFSETCTL_SANDBOX_DIR, XDG_CACHE_HOME), not the process's (io.ts).
  const status = await sandboxStatus({ dir: resolveSandboxDir(opts.dir, currentIO().env) });
  const team = teamStoreStatus(status.dir);
  if (opts.output === 'json') {
    // The team store as the text shows it: null when the sandbox has none.
    const teamStore = team ? { running: team.running, urls: team.urls, pgpass: team.pgpass } : null;
    currentIO().stdout.write(`${JSON.stringify({
      running: status.running, connect: status.connect, bootstrap: status.bootstrap, clusters: status.clusters, dir: status.dir,
      kafkaVersion: status.kafkaVersion ?? null,
      plugins: status.plugins, ...(status.cdc ? { cdc: status.cdc } : {}), ...(status.iceberg ? { iceberg: status.iceberg } : {}), teamStore,
    })}\n`);
    return;
  }
  if (status.processes.length === 0) {
    currentIO().stdout.write(`sandbox not running (${status.dir}); start it with \`${sandboxCommand('up', status.dir)}\`\n`);
    return;
  }
  currentIO().stdout.write(`sandbox ${status.running ? 'running' : 'NOT fully running'} (Kafka ${status.kafkaVersion ?? '?'}, ${status.dir})\n`);
  for (const p of status.processes) {
    const health = p.health === undefined ? '' : `  /health ${p.health || 'no answer'}`;
    currentIO().stdout.write(`  ${p.role.padEnd(16)} pid ${p.pid} ${p.alive ? 'alive' : 'GONE '}${p.url ? `  ${p.url}` : ''}${health}\n`);
  }
  currentIO().stdout.write(extrasText(status));
  if (team) currentIO().stdout.write(`  team store ${team.running ? 'running' : 'STOPPED'}  ${team.urls.alice} (PGPASSFILE=${team.pgpass})\n`);
  if (!status.running) currentIO().stdout.write(`run \`${sandboxCommand('up', status.dir)}\` to restart it, \`${sandboxCommand('logs', status.dir)}\` to see why\n`);
}

/** `sandbox down`: the processes stopped (and the team store, unless one cluster only). */
export async function down(opts: DirOption & { cluster?: string }): Promise<void> {
  // Stopping one added Connect cluster leaves the team store running, like the rest.
  if (!opts.cluster && teamStoreDown(resolveSandboxDir(opts.dir))) progress('team store (PostgreSQL) stopped');
  const result = await sandboxDown({ progress, ...(opts.dir ? { dir: opts.dir } : {}), ...(opts.cluster ? { cluster: opts.cluster } : {}) });
  if (result.stopped.length === 0) currentIO().stdout.write(`sandbox not running (${result.dir})\n`);
  else currentIO().stdout.write(`sandbox stopped in ${(result.durationMs / 1000).toFixed(1)} s (${result.stopped.join(', ')}${result.killed.length ? `; killed after the grace period: ${result.killed.join(', ')}` : ''})\n`);
}

/** `sandbox logs`: the end of the logs, or follow them. */
export async function logs(role: string | undefined, opts: DirOption & { lines: number; follow?: boolean }): Promise<void> {
  await sandboxLogs({ lines: opts.lines, follow: opts.follow === true, ...(role ? { role } : {}), ...(opts.dir ? { dir: opts.dir } : {}) });
}

/** `sandbox demo`: the file pipeline rewound, or (--cdc) a Debezium table replayed. */
export async function demo(opts: DirOption & { cdc?: boolean }): Promise<void> {
  if (opts.cdc) {
    await runCdcDemo({ write: (text) => currentIO().stdout.write(text), ...(opts.dir ? { dir: opts.dir } : {}) });
    return;
  }
  await runSandboxDemo({ write: (text) => currentIO().stdout.write(text), progress, ...(opts.dir ? { dir: opts.dir } : {}) });
}

/** The sandbox team store's schema, migrated as its admin login (operators may not create tables). */
async function migrateTeamStore(adminUrl: string, pgpass: string): Promise<void> {
  const { openChosenStore } = await load.store();
  // The admin's password is in the sandbox's pgpass file, read the way libpq reads one; the
  // operator's own PGPASSWORD must not be tried for it. Both are put back afterwards.
  const saved = { file: process.env['PGPASSFILE'], password: process.env['PGPASSWORD'] };
  process.env['PGPASSFILE'] = pgpass;
  delete process.env['PGPASSWORD'];
  try {
    await (await openChosenStore({ store: adminUrl, stateDir: '' })).close();
  } finally {
    if (saved.file === undefined) delete process.env['PGPASSFILE'];
    else process.env['PGPASSFILE'] = saved.file;
    if (saved.password !== undefined) process.env['PGPASSWORD'] = saved.password;
  }
}
