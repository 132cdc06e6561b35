// `offsetctl ui`: the web console. Resolves the connection like every cluster command, starts
// the server (src/web) and prints the URL with the one-time login token. Ctrl-C stops it after
// any running operation has put its connector back.
import type { Command } from 'commander';
import type { HttpSender } from '../../http/client.js';
import type { KafkaAccess } from '../../kafka/connection.js';
import { addConnectionOptions, type Connection, type ConnectionOptions } from '../connection.js';
import { addKafkaOptions, type KafkaFlags } from '../kafka-settings.js';

interface UiOptions extends ConnectionOptions, KafkaFlags {
  listen: string;
  tlsCert?: string;
  tlsKey?: string;
}

export function register(program: Command): void {
  addKafkaOptions(addConnectionOptions(
    program
      .command('ui')
      .option('--listen <host:port>', 'address to serve on (non-loopback needs --tls-cert and --tls-key)', '127.0.0.1:7070')
      .option('--tls-cert <pem>', 'serve HTTPS with this certificate (PEM file)')
      .option('--tls-key <pem>', 'private key (PEM file) for --tls-cert')
      .description('start the web console: connectors, offsets, preview and apply changes, runs and snapshots (prints a one-time login URL)'),
  )).action(async (opts: UiOptions) => runUi(opts));
}

async function runUi(opts: UiOptions): Promise<void> {
  const { resolveConnection } = await import('../connection.js');
  const { OpsError } = await import('../../ops/errors.js');
  const { parseListen, startConsole } = await import('../../web/server.js');
  const { openStore } = await import('../../store/index.js');
  const { configPath, loadConfig } = await import('../config-file.js');
  const listen = parseListen(opts.listen);
  if (Boolean(opts.tlsCert) !== Boolean(opts.tlsKey)) throw new OpsError('E_USAGE', '--tls-cert and --tls-key go together: pass both', { field: opts.tlsCert ? 'tls-key' : 'tls-cert' });
  const initial = await resolveConnection(opts, process.env, { pooled: true });
  const { resolveKafkaAccess, KAFKA_FIELDS } = await import('../kafka-settings.js');
  // Kafka access (log positions, sink positions) as `rewind` resolves it: --bootstrap and the
  // --kafka-* flags, else OFFSETCTL_BOOTSTRAP, else the context's. The flags and the variable go
  // with the starting connection only; a context switched to in the console brings its own.
  // Secrets are read on the server when a page needs Kafka and never reach the browser.
  const initialKafka = resolveKafkaAccess(opts, initial.context);
  const { OFFSETCTL_BOOTSTRAP: _b, ...envOfContexts } = process.env;
  const kafkaOf = (conn: Connection): KafkaAccess => resolveKafkaAccess({}, conn.context, envOfContexts);
  // Other contexts are resolved on first use and kept; their credentials stay on the server.
  const others = new Map<string, Promise<Connection>>();
  const { url: _u, context: _c, ...withKafka } = opts;
  const rest = Object.fromEntries(Object.entries(withKafka).filter(([k]) => !(KAFKA_FIELDS as readonly string[]).includes(k) && k !== 'kafkaPassword'));
  const store = openStore(initial.stateDir);
  const running = await startConsole({
    store,
    listen,
    ...(opts.tlsCert && opts.tlsKey ? { tls: { cert: opts.tlsCert, key: opts.tlsKey } } : {}),
    secure: false,
    contexts: {
      initialLabel: initial.contextName ? `${initial.contextName} (${initial.url})` : initial.url,
      names: async () => Object.keys((await loadConfig(configPath())).contexts).filter((n) => n !== initial.contextName).sort(),
      resolve: async (name: string): Promise<{ url: string; http: HttpSender; kafka: KafkaAccess }> => {
        if (name === '') return { url: initial.url, http: initial.http, kafka: initialKafka };
        let conn = others.get(name);
        if (!conn) {
          conn = resolveConnection({ ...rest, context: name }, process.env, { pooled: true });
          others.set(name, conn);
          conn.catch(() => others.delete(name));
        }
        const resolved = await conn;
        return { url: resolved.url, http: resolved.http, kafka: kafkaOf(resolved) };
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
