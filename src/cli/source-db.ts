// Where a Debezium source's database is read from: `--source-db postgres://USER@HOST:PORT/DB`, else
// the context's `source-db:` entry whose pattern matches the connector's name. The URL is read the
// way libpq reads it (the team store's rules: src/store/postgres/connection.ts) and the password
// comes from PGPASSWORD, else the .pgpass file (PGPASSFILE, else ~/.pgpass): never from the URL,
// the config file or the connector's own configuration (docs/connectors.md).
import type { Command } from 'commander';
import type { ProfileOptions, SourceDbSettings } from '../ops/profiles/index.js';
import { OpsError } from '../ops/errors.js';
import type { ConnectionContext } from './config-file.js';
import type { KafkaFlags } from './kafka-settings.js';
import { currentIO } from './io.js';
import * as load from './load.js';

export interface SourceDbOptions {
  sourceDb?: string;
  skipSourceCheck?: boolean;
}

export function withSourceDbFlags(cmd: Command): Command {
  return cmd
    .option('--source-db <url>', 'Debezium PostgreSQL sources: a read-only login to the source database, postgres://USER@HOST:PORT/DATABASE (password from ' +
      'PGPASSWORD or ~/.pgpass); its replication slot is read before any change (docs/connectors.md)')
    .option('--skip-source-check', 'change a Debezium source without reading its replication slot, accepting that rows may be skipped or the task fail ' +
      '(said in a warning)');
}

/** The profiles' options for one connector: its source database's settings (when named), and the risks accepted. */
export async function profileOptionsFor(
  opts: SourceDbOptions & { allowForward?: boolean }, context: ConnectionContext | undefined, connector: string,
): Promise<ProfileOptions> {
  const url = opts.sourceDb ?? contextSourceDb(context, connector);
  return {
    ...(url ? { sourceDb: await sourceDbSettings(url, opts.sourceDb ? '--source-db' : 'the context\'s source-db') } : {}),
    ...(opts.skipSourceCheck ? { skipSourceCheck: true } : {}),
    ...(opts.allowForward ? { allowForward: true } : {}),
    // Read only by a profile that needs the cluster (an Iceberg sink's control topic), so a bad
    // Kafka setting does not fail a change of any other connector.
    kafka: async () => (await load.kafkaSettings()).preflightKafkaSettings(opts as KafkaFlags, context),
  };
}

function contextSourceDb(context: ConnectionContext | undefined, connector: string): string | undefined {
  for (const [pattern, url] of Object.entries(context?.sourceDb ?? {})) if (new RegExp(pattern).test(connector)) return url;
  return undefined;
}

async function sourceDbSettings(url: string, where: string): Promise<SourceDbSettings> {
  const { pgSettings, loadPg } = await (await load.store()).postgresDriver();
  let settings: SourceDbSettings;
  try {
    settings = pgSettings(url, { env: currentIO().env });
  } catch (err) {
    // The team store's words, for this flag: no --store-password-env here (PGPASSWORD or .pgpass only).
    const text = (err as Error).message.replace(/--store(-password-env)?/g, where).replace(/, or name a variable that holds it with [^;]*$/, '');
    throw new OpsError('E_USAGE', text, { field: 'source-db' });
  }
  const password = currentIO().env.PGPASSWORD || await new Promise<string | undefined>((resolve) => {
    loadPg().pgpass({ host: settings.host, port: settings.port, database: settings.database, user: settings.user }, resolve);
  });
  return { ...settings, application_name: 'offsetctl-preflight', ...(password ? { password } : {}) };
}
