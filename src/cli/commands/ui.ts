// `offsetctl ui`: the web console. Two ways to run it:
// - one person's console: resolves the connection like every cluster command, starts the server
//   (src/web) and prints the URL with the one-time login token;
// - a service (`--config console.yaml`): the contexts it may reach (with the credentials, which
//   stay in this process), sign-in (OpenID Connect or an authenticating proxy) and roles come
//   from the file; the contexts are read with the CLI config file's own rules (references to
//   secrets only), the rest by src/web/auth/service-config.ts.
// Ctrl-C stops it after any running operation has put its connector back. Registration only: the
// action (and the console with it) is in ui-actions.ts, behind one door.
import type { Command } from 'commander';
import { addConnectionOptions, type ConnectionOptions } from '../connection.js';
import { addKafkaOptions, type KafkaFlags } from '../kafka-settings.js';
import * as load from '../load.js';

export interface UiOptions extends ConnectionOptions, KafkaFlags {
  listen?: string;
  tlsCert?: string;
  tlsKey?: string;
  config?: string;
}

export const DEFAULT_LISTEN = '127.0.0.1:7070';

export function register(program: Command): void {
  addKafkaOptions(addConnectionOptions(
    program
      .command('ui')
      .option('--listen <host:port>', `address to serve on (non-loopback needs --tls-cert and --tls-key; default ${DEFAULT_LISTEN})`)
      .option('--tls-cert <pem>', 'serve HTTPS with this certificate (PEM file)')
      .option('--tls-key <pem>', 'private key (PEM file) for --tls-cert')
      .option('--config <console.yaml>', 'run the console as a service for a team: contexts, sign-in (OpenID Connect or a proxy) and roles from this file (docs/ui.md)')
      .description('start the web console: connectors, offsets, preview and apply changes, runs, snapshots and the audit trail (prints a one-time login URL, or serves a team with --config)'),
  )).action(async (opts: UiOptions) => (await load.uiActions()).runUi(opts));
}
