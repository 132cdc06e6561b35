// Read-only cluster commands (connectors, offsets get) and the context commands (config ...).
// Options are registered eagerly; implementations load only when a command runs.
import { Option, type Command } from 'commander';
import { addConnectionOptions } from '../connection.js';
import { addKafkaOptions } from '../kafka-settings.js';
import * as load from '../load.js';

const actions = load.clusterActions;

export function register(program: Command): void {
  addConnectionOptions(
    program
      .command('connectors')
      .description('list connectors with their type, state and tasks')
      .addHelpText('after', '\nJSON output: an array of {"name", "type", "state", "tasks": [{"id", "state", ...}]}.'),
  ).action(async (opts) => (await actions()).showConnectors(opts));

  const offsets = program.command('offsets').description('read connector offsets');
  addConnectionOptions(
    offsets
      .command('get')
      .argument('<connector>', 'connector name')
      .description("show a connector's offsets as a table; --output json prints Kafka Connect's {\"offsets\": [...]}, which `rewind --offsets` accepts"),
  ).action(async (connector: string, opts) => (await actions()).showOffsets(connector, opts));

  const config = program
    .command('config')
    .description('named contexts: a cluster URL and references to its credentials')
    .addHelpText('after', '\nContexts live in ${XDG_CONFIG_HOME:-~/.config}/offsetctl/config.yaml (OFFSETCTL_CONFIG overrides the path).\nThey hold references to secrets (password-env, password-file, token-env, token-file), never secret values.');
  addKafkaOptions(config
    .command('set-context'))
    .argument('<name>', 'context name')
    .description('create or update a context (the first one created becomes current)')
    .option('--url <connect-url>', 'Kafka Connect REST URL')
    .option('--user <name>', 'Basic auth user')
    .option('--password-env <VAR>', 'environment variable that will hold the password')
    .option('--password-file <path>', 'file that holds the password')
    .option('--token-env <VAR>', 'environment variable that will hold a bearer token')
    .option('--token-file <path>', 'file that holds a bearer token')
    .option('--cert <pem>', 'client certificate (PEM file) for mTLS')
    .option('--key <pem>', 'client private key (PEM file) for mTLS')
    .option('--ca <pem>', 'CA certificate(s) (PEM file) to trust')
    .option('--insecure', 'skip TLS verification for this context')
    .option('--no-insecure', 'verify TLS certificates again')
    .option('--store <postgres-url>', 'team store for this context: postgres://USER@HOST:PORT/DATABASE (no password in it), or sqlite')
    .option('--store-password-env <VAR>', 'environment variable that will hold the team store\'s password (else PGPASSWORD or ~/.pgpass)')
    .option('--require-approval', 'every change through this context becomes a change request that someone else approves (stored as approval: required)')
    .option('--no-require-approval', 'changes through this context apply again after the usual confirmation')
    .addOption(new Option('--password <value>').hideHelp())
    .addOption(new Option('--token <value>').hideHelp())
    .addHelpText('after', '\nOnly references to secrets are stored (a variable name or a file path), never the secret itself.')
    .action(async (name: string, opts) => (await actions()).setContextCommand(name, opts));
  config
    .command('use-context')
    .argument('<name>', 'context name')
    .description('make a context the current one')
    .action(async (name: string) => (await actions()).useContextCommand(name));
  config
    .command('get-contexts')
    .description('list the contexts')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (opts: { output: 'text' | 'json' }) => (await actions()).getContextsCommand(opts));
  config
    .command('current-context')
    .description('print the current context name')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (opts: { output: 'text' | 'json' }) => (await actions()).currentContextCommand(opts));
  config
    .command('delete-context')
    .argument('<name>', 'context name')
    .description('remove a context')
    .action(async (name: string) => (await actions()).deleteContextCommand(name));
}
