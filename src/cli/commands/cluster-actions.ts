// What the cluster and config commands do once parsed (loaded lazily by cluster.ts).
import { OpsError, refusedBeforeAnyChange } from '../../ops/errors.js';
import { getOffsets, listConnectors, type ConnectorSummary } from '../../ops/connect/index.js';
import type { OffsetEntry as ConnectorOffset, ConnectorOffsets } from '../../ops/offsets/index.js';
import { registerSecret } from '../../http/redact.js';
import { configPath, findContext, loadConfig, saveConfig, setContext, type ContextChanges } from '../config-file.js';
import { resolveConnection, type Connection, type ConnectionOptions } from '../connection.js';
import { renderTable } from '../render/table.js';
import { KAFKA_FIELDS, KAFKA_FILE_KEYS } from '../kafka-settings.js';
import { currentIO } from '../io.js';

export async function showConnectors(opts: ConnectionOptions): Promise<void> {
  await withConnection(opts, async (c) => {
    const connectors = await listConnectors(c.http, c.url);
    write(c.output === 'json' ? JSON.stringify(connectors, null, 2) : renderConnectors(connectors, c.urls.length > 1 ? `in the cluster of ${c.urls.join(', ')}` : `at ${c.url}`));
  });
}

export async function showOffsets(connector: string, opts: ConnectionOptions): Promise<void> {
  await withConnection(opts, async (c) => {
    const offsets = await getOffsets(c.http, c.url, connector);
    // JSON output is Kafka Connect's own shape, so it can be edited and given back to `rewind --offsets`.
    write(c.output === 'json' ? JSON.stringify({ offsets: offsets.offsets }, null, 2) : renderOffsets(connector, offsets));
  });
}

export async function setContextCommand(name: string, opts: Omit<ContextChanges, 'approval'> & { password?: string; token?: string; kafkaPassword?: string; requireApproval?: boolean }): Promise<void> {
  if (opts.kafkaPassword !== undefined) {
    registerSecret(opts.kafkaPassword);
    throw new OpsError('E_USAGE', '--kafka-password is not accepted: the config file stores references to secrets only; use --kafka-password-env VAR or --kafka-password-file PATH', { field: 'kafka-password' });
  }
  if (opts.password !== undefined || opts.token !== undefined) {
    registerSecret(opts.password ?? opts.token);
    const which = opts.password !== undefined ? '--password' : '--token';
    throw new OpsError('E_USAGE', `${which} is not accepted: the config file stores references to secrets only; use ${which}-env VAR or ${which}-file PATH`);
  }
  const path = configPath();
  const changes: ContextChanges = {};
  for (const key of ['url', 'user', 'passwordEnv', 'passwordFile', 'tokenEnv', 'tokenFile', 'cert', 'key', 'ca', 'insecure', 'store', 'storePasswordEnv', ...KAFKA_FIELDS] as const) {
    if (opts[key] !== undefined) (changes as Record<string, unknown>)[key] = opts[key];
  }
  if (opts.requireApproval !== undefined) changes.approval = opts.requireApproval ? 'required' : 'none';
  if (changes.url !== undefined) changes.url = checkUrls(changes.url);
  const { config, created } = setContext(await loadConfig(path), name, changes);
  const becameCurrent = config.currentContext === undefined;
  if (becameCurrent) config.currentContext = name;
  await saveConfig(config, path);
  write(`Context ${name} ${created ? 'created' : 'updated'} in ${path}${becameCurrent ? ' and made current' : ''}.`);
}

export async function useContextCommand(name: string): Promise<void> {
  const path = configPath();
  const config = await loadConfig(path);
  findContext(config, name, path);
  await saveConfig({ ...config, currentContext: name }, path);
  write(`Switched to context ${name}.`);
}

export async function getContextsCommand(opts: { output?: 'text' | 'json' }): Promise<void> {
  const config = await loadConfig(configPath());
  const names = Object.keys(config.contexts).sort();
  if (opts.output === 'json') {
    const list = names.map((name) => {
      const ctx = config.contexts[name];
      return {
        name,
        current: name === config.currentContext,
        url: ctx?.url,
        auth: ctx?.auth,
        ...(ctx?.user === undefined ? {} : { user: ctx.user }),
        ...(ctx?.passwordEnv === undefined ? {} : { 'password-env': ctx.passwordEnv }),
        ...(ctx?.passwordFile === undefined ? {} : { 'password-file': ctx.passwordFile }),
        ...(ctx?.tokenEnv === undefined ? {} : { 'token-env': ctx.tokenEnv }),
        ...(ctx?.tokenFile === undefined ? {} : { 'token-file': ctx.tokenFile }),
        ...(ctx?.cert === undefined ? {} : { cert: ctx.cert }),
        ...(ctx?.key === undefined ? {} : { key: ctx.key }),
        ...(ctx?.ca === undefined ? {} : { ca: ctx.ca }),
        ...(ctx?.insecure === undefined ? {} : { insecure: ctx.insecure }),
        ...(ctx?.store === undefined ? {} : { store: ctx.store }),
        ...(ctx?.approval === undefined ? {} : { approval: ctx.approval }),
        ...Object.fromEntries(Object.entries(KAFKA_FILE_KEYS).filter(([, f]) => ctx?.[f] !== undefined).map(([k, f]) => [k, ctx?.[f]])),
      };
    });
    write(JSON.stringify(list, null, 2));
    return;
  }
  if (names.length === 0) {
    write('No contexts yet: create one with `offsetctl config set-context <name> --url <connect-url>`.');
    return;
  }
  const rows = names.map((name) => {
    const ctx = config.contexts[name];
    const auth = ctx?.auth === 'basic' ? `basic (${ctx.user})` : ctx?.auth ?? 'none';
    const tls = [ctx?.ca ? 'ca' : '', ctx?.cert ? 'client-cert' : '', ctx?.insecure ? 'INSECURE' : ''].filter(Boolean).join(',');
    // Which store the context writes to: its team store's URL (never a password), else the state folder's file.
    const store = ctx?.store === undefined || ctx.store === 'sqlite' ? 'local' : ctx.store;
    return [name === config.currentContext ? '*' : '', name, ctx?.url ?? '', auth, tls, store, ctx?.approval ?? ''];
  });
  write(renderTable(['CURRENT', 'NAME', 'URL', 'AUTH', 'TLS', 'STORE', 'APPROVAL'], rows));
}

export async function currentContextCommand(opts: { output?: 'text' | 'json' } = {}): Promise<void> {
  const path = configPath();
  const config = await loadConfig(path);
  if (!config.currentContext) throw new OpsError('E_CONFIG', `no current context in ${path}; select one with \`offsetctl config use-context <name>\``);
  write(opts.output === 'json' ? JSON.stringify({ currentContext: config.currentContext, configFile: path }, null, 2) : config.currentContext);
}

export async function deleteContextCommand(name: string): Promise<void> {
  const path = configPath();
  const config = await loadConfig(path);
  findContext(config, name, path);
  const contexts = { ...config.contexts };
  delete contexts[name];
  const next = { contexts, ...(config.currentContext === name || config.currentContext === undefined ? {} : { currentContext: config.currentContext }) };
  await saveConfig(next, path);
  write(`Context ${name} deleted${config.currentContext === name ? '; there is no current context now' : ''}.`);
}

async function withConnection(opts: ConnectionOptions, run: (c: Connection) => Promise<void>): Promise<void> {
  // One or two requests, then exit: Node's http module, not undici (see node-client.ts).
  const c = await resolveConnection(opts);
  try {
    // These commands only read: an error answer from Connect (a 500, a 401) changed nothing, so it
    // is a refusal (exit 2) as when planning, not a failed operation (exit 1).
    await refusedBeforeAnyChange(run)(c);
  } finally {
    // Keep-alive sockets would hold the process open for seconds after the answer.
    await c.http.close();
  }
}

/**
 * A context's URL: one worker, or several of one cluster separated by commas (as `--url w1,w2`
 * takes them); each is checked, and the list is stored without the spaces around its commas.
 */
function checkUrls(raw: string): string {
  const urls = raw.split(',').map((u) => u.trim()).filter((u) => u !== '');
  if (urls.length === 0) throw new OpsError('E_USAGE', '--url is empty: give a Kafka Connect URL such as http://localhost:8083, or several separated by commas', { field: 'url' });
  urls.forEach((url, i) => { checkUrl(url, urls.length > 1 ? ` (${ordinal(i + 1)} of ${urls.length})` : ''); });
  return urls.join(',');
}

function checkUrl(url: string, which: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new OpsError('E_USAGE', `--url ${JSON.stringify(url)}${which}: expected an http:// or https:// URL such as http://localhost:8083`, { field: 'url' });
  }
  if (parsed.username || parsed.password) {
    registerSecret(decodeURIComponent(parsed.password));
    throw new OpsError('E_USAGE', '--url: credentials in the URL are not accepted; use --user with --password-env or --password-file', { field: 'url' });
  }
}

function ordinal(n: number): string {
  return `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`;
}

function renderConnectors(connectors: ConnectorSummary[], where: string): string {
  if (connectors.length === 0) return `No connectors ${where}.`;
  const rows = connectors.map((c) => [c.name, c.type, c.state, c.tasks.length === 0 ? '-' : c.tasks.map((t) => `${t.id}:${t.state}`).join(' ')]);
  const lines = [renderTable(['NAME', 'TYPE', 'STATE', 'TASKS'], rows)];
  // A failure is only useful with its cause: show the first line of each trace.
  for (const c of connectors) {
    if (c.trace) lines.push(`${c.name} ${c.state}: ${firstLine(c.trace)}`);
    for (const t of c.tasks) if (t.trace) lines.push(`${c.name} task ${t.id} ${t.state}: ${firstLine(t.trace)}`);
  }
  return lines.join('\n');
}

/** One column per partition key and per offset key, rows sorted by partition (numbers numerically). */
function renderOffsets(connector: string, { offsets }: ConnectorOffsets): string {
  if (offsets.length === 0) return `Connector ${connector} has no offsets yet.`;
  // Connect's JSON puts kafka_partition before kafka_topic; operators read topic first.
  const partitionKeys = keysOf(offsets.map((o) => o.partition)).sort((a, b) => (SINK_ORDER[a] ?? 2) - (SINK_ORDER[b] ?? 2));
  const offsetKeys = keysOf(offsets.map((o) => o.offset ?? {}));
  const headers = [...partitionKeys, ...offsetKeys.map((k) => (partitionKeys.includes(k) ? `offset.${k}` : k))];
  const sorted = offsets.slice().sort((a, b) => comparePartitions(a, b, partitionKeys));
  const rows = sorted.map((o: ConnectorOffset) => [
    ...partitionKeys.map((k) => cell(o.partition[k], k in o.partition)),
    ...offsetKeys.map((k) => (o.offset === null ? 'null' : cell(o.offset[k], k in o.offset))),
  ]);
  const numeric = (k: string, list: Array<Record<string, unknown> | null>) => list.every((v) => v === null || typeof v[k] === 'number' || !(k in v));
  const align = [
    ...partitionKeys.map((k) => (numeric(k, offsets.map((o) => o.partition)) ? 'right' : 'left')),
    ...offsetKeys.map((k) => (numeric(k, offsets.map((o) => o.offset)) ? 'right' : 'left')),
  ] as const;
  return `${renderTable(headers, rows, align)}\n${offsets.length} partition${offsets.length === 1 ? '' : 's'}.`;
}

const SINK_ORDER: Record<string, number> = { kafka_topic: 0, kafka_partition: 1 };

function keysOf(maps: Array<Record<string, unknown>>): string[] {
  const keys = new Set<string>();
  for (const m of maps) for (const k of Object.keys(m)) keys.add(k);
  return [...keys];
}

function comparePartitions(a: ConnectorOffset, b: ConnectorOffset, keys: string[]): number {
  for (const k of keys) {
    const x = a.partition[k];
    const y = b.partition[k];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

function cell(value: unknown, present: boolean): string {
  if (!present) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function firstLine(text: string): string {
  const nl = text.indexOf('\n');
  return nl < 0 ? text : text.slice(0, nl);
}

function write(text: string): void {
  currentIO().stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}
