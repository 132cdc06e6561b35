// The actions of `ui` (registered in ui.ts): the console server started for one person or as a
// service. Loaded only through their door (load.uiActions()); the console itself (src/web, another
// face) is entered through its own door, load.web().
import { readFile } from 'node:fs/promises';
import type { HttpSender } from '../../http/client.js';
import type { KafkaAccess } from '../../kafka/connection.js';
import type { ProfileOptions } from '../../ops/profiles/index.js';
import { type Connection, resolveConnection, resolveStateDir } from '../connection.js';
import { resolveKafkaAccess, KAFKA_FIELDS } from '../kafka-settings.js';
import { currentIO, fromCwd } from '../io.js';
import { OpsError } from '../../ops/errors.js';
import { DEFAULT_LISTEN, type UiOptions } from './ui.js';
import * as load from '../load.js';
import { openCommandStore, storeChoice } from '../store-choice.js';
import { cliActor } from '../actor.js';
import { testHooksFromEnv } from '../test-hooks.js';
import { configPath, loadConfig, parseContexts } from '../config-file.js';
import { parse } from '../config-yaml.js';
import { consoleRules } from '../console-governance.js';
import { identityCache } from '../identity-cache.js';
import { refuseIfGovernedElsewhere } from '../governance-check.js';
import { profileOptionsFor } from '../source-db.js';

export interface Served {
  label: string;
  stateDir: string;
  store: import('../../store/index.js').StoreChoice;
  contexts: import('../../web/index.js').ContextSource;
  service?: import('../../web/index.js').ServiceConfig;
  connections: () => Promise<Connection[]>;
}

export async function runUi(opts: UiOptions): Promise<void> {
  const served = opts.config ? await fromServiceConfig({ ...opts, config: opts.config }) : await fromConnection(opts);
  const service = served.service;
  const { parseListen, startConsole } = await load.web();
  const listen = parseListen(opts.listen ?? service?.listen ?? DEFAULT_LISTEN);
  const tlsCert = opts.tlsCert ?? service?.tls?.cert;
  const tlsKey = opts.tlsKey ?? service?.tls?.key;
  if (Boolean(tlsCert) !== Boolean(tlsKey)) throw new OpsError('E_USAGE', '--tls-cert and --tls-key go together: pass both', { field: tlsCert ? 'tls-key' : 'tls-cert' });
  const store = await openCommandStore(served.store);
  const me = cliActor();
  const beforeStep = testHooksFromEnv();
  const drainSeconds = secondsFromEnv('OFFSETCTL_UI_DRAIN_SECONDS', OpsError);
  const recoverySeconds = secondsFromEnv('OFFSETCTL_UI_RECOVERY_SECONDS', OpsError);
  const running = await startConsole({
    ...(beforeStep ? { beforeStep } : {}),
    ...(drainSeconds !== undefined ? { drainMs: drainSeconds * 1000 } : {}),
    ...(recoverySeconds !== undefined ? { recoveryIntervalMs: recoverySeconds * 1000 } : {}),
    store,
    listen,
    ...(tlsCert && tlsKey ? { tls: { cert: tlsCert, key: tlsKey } } : {}),
    secure: false,
    contexts: served.contexts,
    ...(service ? { service } : { localIdentity: { user: me.user, groups: [], via: 'login-link' as const } }),
  });
  // The team store is named (its URL carries no password); else the state folder.
  const where = /^postgres(?:ql)?:/i.test(store.location) ? `team store ${store.location}` : `state ${served.stateDir}`;
  if (service) {
    const how = service.signIn.kind === 'oidc' ? `OpenID Connect, ${service.signIn.oidc.issuer.href}` : `the proxy's ${service.signIn.proxy.userHeader} header from ${service.signIn.proxy.trustedText.join(', ')}`;
    const metrics = running.metricsUrl ? `Metrics at ${running.metricsUrl} (this machine only).\n` : '';
    currentIO().stdout.write(`offsetctl ui: serving ${served.label} (${where}) at ${running.url}\n`
      + `Sign in at ${running.loginUrl} (${how}).\n${metrics}Press Ctrl-C to stop.\n`);
  } else {
    currentIO().stdout.write(`offsetctl ui: serving ${served.label} (${where}) at ${running.url}\n`
      + `Open this URL once to sign in (its token works one time):\n  ${running.loginUrl}\nPress Ctrl-C to stop.\n`);
  }
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
  for (const conn of await served.connections()) await conn.http.close();
  await store.close();
}

/** OFFSETCTL_UI_DRAIN_SECONDS / OFFSETCTL_UI_RECOVERY_SECONDS: whole seconds from 1 to 3600, or unset. */
export function secondsFromEnv(name: string, OpsError: typeof import('../../ops/errors.js').OpsError): number | undefined {
  const value = currentIO().env[name];
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 3600) throw new OpsError('E_USAGE', `${name}=${value}: expected whole seconds from 1 to 3600`, { field: name });
  return n;
}

/** One person's console: the connection of the command line, and the config file's other contexts. */
export async function fromConnection(opts: UiOptions): Promise<Served> {
  const initial = await resolveConnection(opts, currentIO().env, { pooled: true });
  // Kafka access (log positions, sink positions) as `rewind` resolves it: --bootstrap and the
  // --kafka-* flags, else OFFSETCTL_BOOTSTRAP, else the context's. The flags and the variable go
  // with the starting connection only; a context switched to in the console brings its own.
  // Secrets are read on the server when a page needs Kafka and never reach the browser.
  const initialKafka = resolveKafkaAccess(opts, initial.context);
  // A console is a face that changes things: with no team store but a bootstrap, a cluster a team
  // store governs (the marker in Kafka, governance-check.ts) is refused before it serves.
  await refuseIfGovernedElsewhere(initial, opts);
  const { OFFSETCTL_BOOTSTRAP: _b, ...envOfContexts } = currentIO().env;
  const kafkaOf = (conn: Connection): KafkaAccess => resolveKafkaAccess({}, conn.context, envOfContexts);
  // Other contexts are resolved on first use and kept; their credentials stay on the server.
  const others = new Map<string, Promise<Connection>>();
  const { url: _u, context: _c, ...withKafka } = opts;
  const rest = Object.fromEntries(Object.entries(withKafka).filter(([k]) => !(KAFKA_FIELDS as readonly string[]).includes(k) && k !== 'kafkaPassword'));
  return {
    label: initial.url,
    stateDir: initial.stateDir,
    store: initial.store,
    contexts: {
      initialLabel: initial.contextName ? `${initial.contextName} (${initial.url})` : initial.url,
      ...(initial.contextName ? { initialPath: initial.contextName } : {}),
      names: async () => Object.keys((await loadConfig(configPath())).contexts).filter((n) => n !== initial.contextName).sort(),
      resolve: async (name: string): Promise<{ url: string; http: HttpSender; kafka: KafkaAccess; approval?: 'required'; production?: true; profile: ProfileOf }> => {
        if (name === '') return { url: initial.url, http: initial.http, kafka: initialKafka, ...approvalOf(initial), profile: profileOf(initial) };
        let conn = others.get(name);
        if (!conn) {
          conn = resolveConnection({ ...rest, context: name }, currentIO().env, { pooled: true });
          others.set(name, conn);
          conn.catch(() => others.delete(name));
        }
        const resolved = await conn;
        return { url: resolved.url, http: resolved.http, kafka: kafkaOf(resolved), ...approvalOf(resolved), profile: profileOf(resolved) };
      },
    },
    connections: async () => [initial, ...(await Promise.allSettled(others.values())).flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))],
  };
}

/**
 * A service: every context of the file is resolved at start (a missing secret stops the start
 * with its message, not the first user's page), and only those contexts can be reached.
 */
export async function fromServiceConfig(opts: UiOptions & { config: string }): Promise<Served> {
  // The file decides what the service reaches: flags that name a cluster would add one beside it.
  for (const flag of ['url', 'context', 'bootstrap', 'user', 'tokenEnv', 'tokenFile', 'passwordEnv', 'passwordFile'] as const) {
    if (opts[flag] !== undefined) throw new OpsError('E_USAGE', `--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} cannot be combined with --config: the console's contexts and their credentials come from ${opts.config}`, { field: flag });
  }
  const path = fromCwd(opts.config);
  let raw: unknown;
  try {
    raw = parse(await readFile(path, 'utf8'));
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new OpsError('E_CONFIG', code ? `--config ${path}: cannot read it (${code})` : `--config ${path}: not valid YAML (${(err as Error).message.split('\n')[0]})`, { field: 'config' });
  }
  const doc = (raw ?? {}) as Record<string, unknown>;
  const contextsRaw = typeof doc === 'object' && !Array.isArray(doc) ? doc.contexts : undefined;
  const contexts = contextsRaw === undefined ? {} : parseContexts(contextsRaw, path);
  const names = Object.keys(contexts);
  const { parseServiceConfig } = await load.web();
  const service = parseServiceConfig(raw, path, names);
  const stateDir = opts.stateDir ? resolveStateDir(opts.stateDir) : service.stateDir ?? resolveStateDir(undefined);
  const config = { config: { contexts }, path };
  const connections = new Map<string, Connection>();
  for (const name of names) {
    connections.set(name, await resolveConnection({ context: name, stateDir, ...(opts.timeout !== undefined ? { timeout: opts.timeout } : {}) }, currentIO().env, { pooled: true, config }));
  }
  const initialName = service.defaultContext ?? names[0]!;
  const kafka = new Map([...connections].map(([name, conn]) => [name, resolveKafkaAccess({}, conn.context, currentIO().env)]));
  const initial = connections.get(initialName)!;
  // --store, else OFFSETCTL_STORE, else the file's store: (the order a context's store: follows).
  const store = storeChoice(opts, { ...(service.store ? { store: service.store } : {}), ...(service.storePasswordEnv ? { storePasswordEnv: service.storePasswordEnv } : {}) }, stateDir);
  // Contexts found by identity (console-governance.ts): one cluster's contexts share its store and rules.
  const ruled = await consoleRules([...connections].map(([name, conn]) => ({ name, url: conn.url, http: conn.http, context: conn.context! })), store.store, identityCache(stateDir));
  for (const name of ruled.unreachable) currentIO().stderr.write(`warning: context ${name}: ${connections.get(name)!.url} did not say which cluster it is: the rules of contexts reaching the same cluster could not be applied to it\n`);
  for (const name of ruled.approval) connections.get(name)!.approval = 'required';
  for (const conn of connections.values()) await refuseIfGovernedElsewhere({ ...conn, store }, {});
  return {
    label: names.map((n) => `${n} (${connections.get(n)!.url})`).join(', '),
    stateDir,
    store,
    service,
    contexts: {
      initialLabel: `${initialName} (${initial.url})`,
      initialName,
      names: async () => names.filter((n) => n !== initialName),
      resolve: async (name: string) => {
        const conn = connections.get(name || initialName);
        if (!conn) throw new OpsError('E_CONFIG', `context ${JSON.stringify(name)} is not in ${path}`, { field: 'context' });
        return { url: conn.url, http: conn.http, kafka: kafka.get(name || initialName)!, ...approvalOf(conn), profile: profileOf(conn) };
      },
    },
    connections: async () => [...connections.values()],
  };
}

export type ProfileOf = (connector: string) => Promise<ProfileOptions>;

/**
 * The profiles' options for a connector of this context, as the CLI reads them without flags: the
 * context's `source-db:` entry whose pattern matches the connector (the password from this
 * process's PGPASSWORD or .pgpass, never from the file or the connector), its Kafka settings.
 */
export function profileOf(conn: Connection): ProfileOf {
  return async (connector) => profileOptionsFor({}, conn.context, connector);
}

/**
 * A context with `approval: required`: the console turns its changes into change requests, as the
 * CLI does. With `production: true` the console's header says so.
 */
export function approvalOf(conn: Connection): { approval?: 'required'; production?: true } {
  return { ...(conn.approval === 'required' ? { approval: 'required' } : {}), ...(conn.context?.production === true ? { production: true } : {}) };
}
