// `offsetctl ui`: the web console. Resolves the connection like every cluster command, starts
// the server (src/web) and prints the URL with the one-time login token. Ctrl-C stops it after
// any running operation has put its connector back.
import type { Command } from 'commander';
import type { HttpSender } from '../../http/client.js';
import { addConnectionOptions, type Connection, type ConnectionOptions } from '../connection.js';

interface UiOptions extends ConnectionOptions {
  listen: string;
  tlsCert?: string;
  tlsKey?: string;
}

export function register(program: Command): void {
  addConnectionOptions(
    program
      .command('ui')
      .option('--listen <host:port>', 'address to serve on (non-loopback needs --tls-cert and --tls-key)', '127.0.0.1:7070')
      .option('--tls-cert <pem>', 'serve HTTPS with this certificate (PEM file)')
      .option('--tls-key <pem>', 'private key (PEM file) for --tls-cert')
      .description('start the web console: connectors, offsets, preview and apply changes, runs and snapshots (prints a one-time login URL)'),
  ).action(async (opts: UiOptions) => runUi(opts));
}

async function runUi(opts: UiOptions): Promise<void> {
  const { resolveConnection } = await import('../connection.js');
  const { OpsError } = await import('../../ops/errors.js');
  const { parseListen, startConsole } = await import('../../web/server.js');
  const { openStore } = await import('../../store/index.js');
  const { configPath, loadConfig } = await import('../config-file.js');
  const listen = parseListen(opts.listen);
  if (Boolean(opts.tlsCert) !== Boolean(opts.tlsKey)) throw new OpsError('E_USAGE', '--tls-cert and --tls-key go together: pass both', { field: opts.tlsCert ? 'tls-key' : 'tls-cert' });
  const initial = await resolveConnection(opts);
  // Other contexts are resolved on first use and kept; their credentials stay on the server.
  const others = new Map<string, Promise<Connection>>();
  const { url: _u, context: _c, ...rest } = opts;
  const store = openStore(initial.stateDir);
  const running = await startConsole({
    store,
    listen,
    ...(opts.tlsCert && opts.tlsKey ? { tls: { cert: opts.tlsCert, key: opts.tlsKey } } : {}),
    secure: false,
    contexts: {
      initialLabel: initial.contextName ? `${initial.contextName} (${initial.url})` : initial.url,
      names: async () => Object.keys((await loadConfig(configPath())).contexts).filter((n) => n !== initial.contextName).sort(),
      resolve: async (name: string): Promise<{ url: string; http: HttpSender }> => {
        if (name === '') return initial;
        let conn = others.get(name);
        if (!conn) {
          conn = resolveConnection({ ...rest, context: name });
          others.set(name, conn);
          conn.catch(() => others.delete(name));
        }
        return conn;
      },
    },
  });
  process.stdout.write(`offsetctl ui: serving ${initial.url} (state ${initial.stateDir}) at ${running.url}\nOpen this URL once to sign in (its token works one time):\n  ${running.loginUrl}\nPress Ctrl-C to stop.\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await running.close();
  for (const conn of [initial, ...(await Promise.allSettled(others.values())).flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))]) await conn.http.close();
  await store.close();
}
