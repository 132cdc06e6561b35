// `offsetctl sandbox up|status|down|logs|demo`: a local Kafka broker and Connect workers.
import { Option, type Command } from 'commander';
import type { SandboxStatus } from '../../sandbox/index.js';
import { currentIO } from '../io.js';
import * as load from '../load.js';

interface DirOption {
  dir?: string;
}

const progress = (line: string): void => {
  currentIO().stderr.write(`${line}\n`);
};

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The plugins, the CDC source and the Iceberg catalog, one line each (nothing when there are none). */
function extrasText(status: Pick<SandboxStatus, 'plugins' | 'cdc' | 'iceberg'>): string {
  const names = status.plugins.map((p) => p.name).join(', ');
  return (status.plugins.length > 0 ? `  plugins    ${names} (plugin.path: ${status.plugins.map((p) => p.dir).join(',')})\n` : '') +
    (status.cdc ? `  cdc source ${status.cdc.url}  (PostgreSQL, wal_level=logical, no password on loopback)\n` : '') +
    (status.iceberg ? `  iceberg    REST catalog ${status.iceberg.catalog.uri}  warehouse ${status.iceberg.warehouse}\n` : '');
}

function positiveInt(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw Object.assign(new Error(`${name} must be a positive whole number, got "${value}"`), { code: 'E_USAGE' });
    return n;
  };
}

/** `--output yaml` is refused by name, not silently shown as text. */
function outputOption(): Option {
  return new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text');
}

export function register(program: Command): void {
  const sandbox = program
    .command('sandbox')
    .description('a local Kafka broker and Kafka Connect workers (jars from Maven Central) for tests and demos');

  sandbox
    .command('up')
    .description('start one broker and N distributed Connect workers on 127.0.0.1 (reuses a running sandbox, adding the clusters asked for)')
    .option('--workers <n>', 'number of Connect workers (of each Connect cluster on the broker)', positiveInt('--workers'), 2)
    .option('--clusters <n>', 'Connect clusters on the broker: 1, or 2 for a second cluster (own group.id and internal topics) to move connectors to', positiveInt('--clusters'))
    .option('--lanes <n>', 'test lanes: 1, or up to 4 for a Connect cluster per lane after the first (lane-2 …; own group.id and internal topics)',
      positiveInt('--lanes'))
    .option('--other-kafka', 'also a second, single-node Kafka cluster with a one-worker Connect cluster of its own (MirrorMaker 2 tests)')
    .option('--dir <dir>', 'sandbox folder (default $OFFSETCTL_SANDBOX_DIR or ~/.cache/offsetctl/sandbox)')
    .option('--broker-port <port>', 'fixed broker port instead of a free one', positiveInt('--broker-port'))
    .option('--connect-port <port>', 'fixed REST port of the first worker (the next workers use the following ports)', positiveInt('--connect-port'))
    .option('--kafka-version <version>', 'Kafka release to run, 3.6.0 or newer (default: the newest, 4.4.0); each version\'s jars are downloaded once')
    .option('--postgres', 'also start a team store: PostgreSQL with two operator logins, alice and bob (docs/sandbox.md)')
    .option('--postgres-port <port>', 'fixed port for the team store instead of a free one', positiveInt('--postgres-port'))
    .option('--plugin <name>', 'load a real Connect plugin on every worker (repeatable): debezium-postgres, debezium-jdbc-sink, iceberg-sink '
      + '(with an Iceberg REST catalog), or Maven coordinates group:artifact:version[:type[:classifier]]; fetched once into <dir>/plugins', collect, [])
    .option('--cdc-postgres', 'also a CDC source: PostgreSQL with wal_level=logical, superuser login without password on loopback (docs/sandbox.md)')
    .addOption(outputOption())
    .action(async (opts: DirOption & { workers: number; clusters?: number; lanes?: number; otherKafka?: boolean; brokerPort?: number; connectPort?: number;
      output: string; kafkaVersion?: string; postgres?: boolean; postgresPort?: number; plugin: string[]; cdcPostgres?: boolean }, command: Command) => {
      const { sandboxUp, resolveSandboxDir, sandboxCommand } = await load.sandbox();
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
      const { teamStoreOfUp } = await load.sandbox();
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
    });

  sandbox
    .command('status')
    .description('is the sandbox running, and where')
    .option('--dir <dir>', 'sandbox folder')
    .addOption(outputOption())
    .action(async (opts: DirOption & { output: string }) => {
      const { sandboxStatus, sandboxCommand, resolveSandboxDir } = await load.sandbox();
      // The folder from this command's environment (OFFSETCTL_SANDBOX_DIR, XDG_CACHE_HOME), not the process's (io.ts).
      const status = await sandboxStatus({ dir: resolveSandboxDir(opts.dir, currentIO().env) });
      const team = (await load.sandbox()).teamStoreStatus(status.dir);
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
    });

  sandbox
    .command('down')
    .description('stop the processes the sandbox started and wait until their ports are closed')
    .option('--dir <dir>', 'sandbox folder')
    .option('--cluster <name>', 'stop only an added cluster: second, lane-2 …, or other (with its Kafka broker)')
    .action(async (opts: DirOption & { cluster?: string }) => {
      const { sandboxDown, resolveSandboxDir } = await load.sandbox();
      const { teamStoreDown } = await load.sandbox();
      // Stopping one added Connect cluster leaves the team store running, like the rest.
      if (!opts.cluster && teamStoreDown(resolveSandboxDir(opts.dir))) progress('team store (PostgreSQL) stopped');
      const result = await sandboxDown({ progress, ...(opts.dir ? { dir: opts.dir } : {}), ...(opts.cluster ? { cluster: opts.cluster } : {}) });
      if (result.stopped.length === 0) currentIO().stdout.write(`sandbox not running (${result.dir})\n`);
      else currentIO().stdout.write(`sandbox stopped in ${(result.durationMs / 1000).toFixed(1)} s (${result.stopped.join(', ')}${result.killed.length ? `; killed after the grace period: ${result.killed.join(', ')}` : ''})\n`);
    });

  sandbox
    .command('logs')
    .description('show the end of the broker and worker logs')
    .argument('[process]', 'broker, worker-1, worker-2, ..., second-worker-1, lane-2-worker-1, other-broker, other-worker-1 (default: all)')
    .option('--dir <dir>', 'sandbox folder')
    .option('-n, --lines <n>', 'lines per log', positiveInt('--lines'), 50)
    .option('-f, --follow', 'keep printing new lines until interrupted')
    .action(async (role: string | undefined, opts: DirOption & { lines: number; follow?: boolean }) => {
      const { sandboxLogs } = await load.sandbox();
      await sandboxLogs({ lines: opts.lines, follow: opts.follow === true, ...(role ? { role } : {}), ...(opts.dir ? { dir: opts.dir } : {}) });
    });

  sandbox
    .command('demo')
    .description('start the sandbox, pipe a file through FileStreamSource -> topic -> FileStreamSink, rewind the source and show the replay')
    .option('--dir <dir>', 'sandbox folder')
    .option('--cdc', 'instead: a Debezium table replayed (`offsetctl replay`), on a sandbox up with --plugin debezium-postgres --cdc-postgres')
    .action(async (opts: DirOption & { cdc?: boolean }) => {
      if (opts.cdc) {
        const { runCdcDemo } = await load.sandbox();
        await runCdcDemo({ write: (text) => currentIO().stdout.write(text), ...(opts.dir ? { dir: opts.dir } : {}) });
        return;
      }
      const { runSandboxDemo } = await load.sandbox();
      await runSandboxDemo({ write: (text) => currentIO().stdout.write(text), progress, ...(opts.dir ? { dir: opts.dir } : {}) });
    });
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
