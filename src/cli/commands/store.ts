// `offsetctl store migrate|status|import`: the store itself — which one a command uses, its schema,
// who holds which lock, and copying an operator's local history into the team store.
import { Option, type Command } from 'commander';
import * as load from '../load.js';

const STORE_HELP = `
The store: --store postgres://USER@HOST:PORT/DATABASE (or OFFSETCTL_STORE, or the context's store)
names a team store shared by every operator; without one, the state folder's SQLite file.
The password never goes into the URL: --store-password-env VAR, PGPASSWORD, or ~/.pgpass.`;

function storeOptions(cmd: Command): Command {
  return cmd
    .option('--store <postgres-url>', 'the team store: postgres://USER@HOST:PORT/DATABASE (env OFFSETCTL_STORE, or the context\'s store)')
    .option('--store-password-env <VAR>', 'read the team store\'s password from this environment variable (else PGPASSWORD, else ~/.pgpass)')
    .option('--context <name>', 'use the store of this context')
    .option('--state-dir <dir>', 'the state folder (the SQLite store, when no team store is named)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .addHelpText('after', STORE_HELP);
}

export function register(program: Command): void {
  const store = program.command('store').description('the store of runs, snapshots and locks: status, schema migrations, importing local history into a team store');
  storeOptions(store.command('status'))
    .description('which store, its schema version, and who holds which lock (JSON: {"backend", "location", "schemaVersion", "knownSchemaVersion", "dbUser", "locks": [...]})')
    .action(async (_o: unknown, cmd: Command) => (await load.storeActions()).storeStatus(cmd.optsWithGlobals()));
  storeOptions(store.command('migrate'))
    .description('bring the team store\'s tables up to this offsetctl\'s schema (under an advisory lock: operators starting at once never race)')
    .action(async (_o: unknown, cmd: Command) => (await load.storeActions()).storeMigrate(cmd.optsWithGlobals()));
  storeOptions(store.command('import'))
    .option('--from <state-dir>', 'the state folder whose SQLite history to copy (default: this operator\'s, as --state-dir)')
    .description('copy an operator\'s local runs (with their journal) and snapshots into the team store, ids kept; a second import adds nothing')
    .action(async (_o: unknown, cmd: Command) => (await load.storeActions()).storeImport(cmd.optsWithGlobals()));
}
