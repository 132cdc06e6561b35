// How every cluster command finds Kafka Connect and authenticates: flags, environment, contexts.
// URL precedence: --url, then --context (an explicit flag), then OFFSETCTL_URL, then the current
// context. A context supplies credentials when it is selected with --context, or when it is the
// current context and the URL is its own: credentials never go to a URL they were not set up for.
// Secrets come from environment variables or files only, and each one read is registered for
// redaction before anything can print it.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { Option, type Command } from 'commander';
import type { HttpAuth, HttpClient, HttpSender, HttpTls } from '../http/client.js';
import type { FailoverClient } from '../http/failover.js';
import type { NodeHttpClient } from '../http/node-client.js';
import type { ForwardRetryClient } from '../http/forward-retry.js';
import { registerBasicCredential, registerSecret } from '../http/redact.js';
import { OpsError } from '../ops/errors.js';
import type { ConnectionContext, OffsetctlConfig } from './config-file.js';
import type { StoreChoice } from '../store/index.js';
import { type ConnectSender, currentIO, fromCwd, type SenderOptions } from './io.js';
import * as load from './load.js';

export type OutputFormat = 'text' | 'json';

/** Commander's parsed values for the options added by addConnectionOptions. */
export interface ConnectionOptions extends Partial<Omit<ConnectionContext, 'auth' | 'sourceDb'>> {
  context?: string;
  stateDir?: string;
  output?: string;
  timeout?: string | number;
  /** Hidden options, present only to refuse them with an explanation. */
  password?: string;
  token?: string;
}

export interface Connection {
  /** Base URL of the Kafka Connect REST API, without a trailing slash (the first of several). */
  url: string;
  /** Every worker URL given (`--url w1,w2`); requests fail over from one to the next on connection errors. */
  urls: string[];
  http: HttpClient | NodeHttpClient | FailoverClient | ForwardRetryClient;
  contextName?: string;
  /** The context whose credentials apply (see above); its Kafka fields feed kafka-settings.ts. */
  context?: ConnectionContext;
  stateDir: string;
  /** Which store the command uses (the team store when one is named; store-choice.ts). */
  store: StoreChoice;
  output: OutputFormat;
  /** The worker that answered last (with several URLs, the one failed over to), for what a face prints. */
  answeringWorker: () => string;
  /** `required` when the context that applies, or any context that governs this URL's cluster, requires approval. */
  approval?: 'required';
  /** The contexts that govern this URL's cluster (governing-context.ts), when another than the one selected does. */
  governedBy?: string[];
}

const SECRET_HELP = `
Connection: --url, else --context, else OFFSETCTL_URL, else the current context
(offsetctl config use-context). Secrets are never accepted as literal option values
(no --password <x>): they would be kept in shell history and shown by ps. Give them as
--password-env VAR / --password-file PATH (or OFFSETCTL_PASSWORD), --token-env VAR / --token-file PATH.`;

/**
 * Adds the connection, state and output options to a command.
 *
 * @example addConnectionOptions(program.command('connectors')).action(async (opts) => { const c = await resolveConnection(opts); })
 */
export function addConnectionOptions(cmd: Command): Command {
  return cmd
    .option('--url <connect-url>', 'Kafka Connect REST URL; several workers of one cluster comma-separated, tried in order on connection errors (env OFFSETCTL_URL)')
    .option('--context <name>', 'named context from the config file (see offsetctl config get-contexts)')
    .option('--state-dir <dir>', 'folder for snapshots and the run journal (env OFFSETCTL_STATE_DIR; default ${XDG_STATE_HOME:-~/.local/state}/offsetctl)')
    .option('--store <postgres-url>', 'team store shared by every operator: postgres://USER@HOST:PORT/DATABASE, no password in it (env OFFSETCTL_STORE, or the context\'s store; default: the state folder\'s SQLite file)')
    .option('--store-password-env <VAR>', 'read the team store\'s password from this environment variable (else PGPASSWORD, else ~/.pgpass)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']))
    .option('--user <name>', 'Basic auth user; the password comes from --password-env, --password-file or OFFSETCTL_PASSWORD')
    .option('--password-env <VAR>', 'read the Basic auth password from this environment variable')
    .option('--password-file <path>', 'read the Basic auth password from this file (a trailing newline is ignored)')
    .option('--token-env <VAR>', 'read a bearer token from this environment variable')
    .option('--token-file <path>', 'read a bearer token from this file')
    .option('--cert <pem>', 'client certificate (PEM file) for mTLS')
    .option('--key <pem>', 'client private key (PEM file) for mTLS')
    .option('--ca <pem>', 'CA certificate(s) (PEM file) to trust for https')
    .option('--insecure', 'skip TLS certificate verification (only when you accept the risk)')
    .option('--timeout <ms>', 'per-request timeout in milliseconds (default 120000)')
    .addOption(new Option('--password <value>').hideHelp())
    .addOption(new Option('--token <value>').hideHelp())
    .addHelpText('after', SECRET_HELP);
}

/**
 * The standard HTTP sender: a command line sends a few dozen requests at most and exits, so it uses Node's
 * own http module with keep-alive (src/http/node-client.ts), much cheaper to load than undici:
 * ~80 ms of a rewind's CPU (BENCHMARKS.md, figure 5). `pooled` is for a process that lives and
 * sends many requests at once (the web console): undici's pool.
 */
export async function standardSender({ pooled, ...options }: SenderOptions): Promise<ConnectSender> {
  return pooled ? new (await load.httpClient()).HttpClient(options) : new (await load.httpNodeClient()).NodeHttpClient(options);
}

/**
 * resolveConnection, or, where the caller knows the cluster from its record (`runs resume`, the
 * undo of a move), that URL when no URL is configured anywhere (E_CONFIG without --url/--context).
 */
export async function resolveConnectionOr(opts: ConnectionOptions, fallbackUrl: string | undefined): Promise<Connection> {
  try {
    return await resolveConnection(opts);
  } catch (err) {
    if ((err as { code?: string }).code !== 'E_CONFIG' || !fallbackUrl || opts.url || opts.context) throw err;
    return resolveConnection({ ...opts, url: fallbackUrl });
  }
}

/**
 * Resolves the URL, credentials, TLS material, state folder and output format of a command.
 * Throws `E_CONFIG` when no URL is given anywhere or a secret reference cannot be read.
 */
export async function resolveConnection(opts: ConnectionOptions, env: NodeJS.ProcessEnv = currentIO().env, how: { pooled?: boolean; config?: { config: OffsetctlConfig; path: string } } = {}): Promise<Connection> {
  refuseLiteralSecrets(opts);
  const output = opts.output ?? 'text';
  if (output !== 'text' && output !== 'json') throw new OpsError('E_USAGE', `--output: must be text or json (got ${JSON.stringify(output)})`, { field: 'output' });

  // Loaded here rather than at the top so that registering commands stays cheap (`--help`).
  const { configPath, findContext, loadConfig } = await load.configFile();
  // The web console's service config brings its own contexts (`offsetctl ui --config`).
  const path = how.config?.path ?? configPath(env);
  const readConfig = async (): Promise<OffsetctlConfig> => how.config?.config ?? loadConfig(path);
  let ctx: ConnectionContext | undefined;
  let contextName: string | undefined;
  let rawUrl: string | undefined;
  if (opts.context) {
    ctx = findContext(await readConfig(), opts.context, path);
    contextName = opts.context;
    rawUrl = opts.url || ctx.url;
  } else {
    const config = await readConfig();
    const explicitUrl = opts.url || env.OFFSETCTL_URL;
    const name = config.currentContext;
    // A dangling current-context matters only when it is what names the cluster.
    const current = name === undefined ? undefined : explicitUrl ? config.contexts[name] : findContext(config, name, path);
    rawUrl = explicitUrl || current?.url;
    // The current context's credentials go only to its own URL (also when that URL is given
    // again by flag or environment, as `runs resume` does with the run's recorded cluster).
    if (current && rawUrl && sameUrl(rawUrl, current.url)) {
      ctx = current;
      contextName = config.currentContext;
    }
  }
  if (!rawUrl) {
    throw new OpsError('E_CONFIG', 'no Kafka Connect URL: pass --url <connect-url>, set OFFSETCTL_URL, or create a context with `offsetctl config set-context <name> --url <connect-url>` and select it with `offsetctl config use-context <name>`', { field: 'url' });
  }
  // Several workers of one cluster: `--url http://w1:8083,http://w2:8083` (also in a context's url).
  const urls = rawUrl.split(',').map((u) => u.trim()).filter((u) => u !== '').map((u) => validateUrl(u, contextName));
  const url = urls[0] ?? validateUrl(rawUrl, contextName);
  const auth = await resolveAuth(opts, ctx, env);
  const tls = await resolveTls(opts, ctx);
  const timeoutMs = parseTimeout(opts.timeout);
  const clientOptions = { ...(auth ? { auth } : {}), tls, ...(timeoutMs === undefined ? {} : { timeoutMs }), pooled: how.pooled === true };
  // The IO's sender when a test hands one in (a recording one, one to a broken worker), else ours.
  const client = await (currentIO().httpSender ?? standardSender)(clientOptions);
  const reachable = urls.length > 1
    ? new (await load.httpFailover()).FailoverClient(client, urls, (from, to, why) => currentIO().stderr.write(`warning: Kafka Connect worker ${from} unreachable (${why}); trying ${to}\n`))
    : client;
  // A worker answering 500 because the leader it forwards to died: asked again once the group has
  // a new leader (a PATCH/DELETE of offsets only after reading back that it did not apply).
  const http = new (await load.httpForwardRetry()).ForwardRetryClient(reachable, { onRetry: (line) => currentIO().stderr.write(`warning: ${line}\n`) });
  const stateDir = resolveStateDir(opts.stateDir, env);
  const { storeChoice } = await load.storeChoice();
  // The console's service config (how.config) matches its contexts by identity among themselves
  // once they are all resolved (console-governance.ts, from commands/ui-actions.ts).
  const ruled = how.config
    ? { ...(ctx?.approval === 'required' ? { approval: 'required' as const } : {}), governedBy: [] }
    : await governedChoice({ url, ctx, contextName, config: await readConfig(), http: reachable, env, explicitStore: opts.store, stateDir });
  const store = storeChoice(opts, ruled.storeContext ?? ctx, stateDir, env);
  const answeringWorker = urls.length > 1 ? () => (reachable as FailoverClient).current : () => url;
  return {
    url, urls, http, ...(contextName === undefined ? {} : { contextName }), ...(ctx === undefined ? {} : { context: ctx }), stateDir, store, output, answeringWorker,
    ...(ruled.approval ? { approval: ruled.approval } : {}), ...(ruled.governedBy.length > 0 ? { governedBy: ruled.governedBy } : {}),
  };
}

/**
 * The store and rules of the cluster the URL reaches, whichever URL was typed: a context that
 * governs that cluster (a team store or required approval; governing-context.ts) supplies them
 * when the selected context does not; two that would write to different stores, or a --store
 * that differs from the governing one, are refused (exit 2) naming both. Its credentials never go
 * to the URL at hand: only its store and rules apply.
 */
async function governedChoice(
  at: { url: string; ctx: ConnectionContext | undefined; contextName: string | undefined; config: OffsetctlConfig; http: HttpSender; env: NodeJS.ProcessEnv; explicitStore: string | undefined; stateDir: string },
): Promise<{ storeContext?: Pick<ConnectionContext, 'store' | 'storePasswordEnv'>; approval?: 'required'; governedBy: string[] }> {
  const { governs, governingContexts } = await load.governingContext();
  const own = at.ctx?.approval === 'required' ? { approval: 'required' as const } : {};
  const others = Object.entries(at.config.contexts).filter(([name, c]) => name !== at.contextName && governs(c));
  if (others.length === 0) return { ...own, governedBy: [] };
  // The URL at hand is asked through the command's own connection; each context's URL with its own credentials.
  const senderFor = async (c: ConnectionContext | undefined): Promise<HttpSender & { close?: () => Promise<void> }> => {
    if (c === undefined) return { send: (r) => at.http.send(r) };
    const auth = await resolveAuth({}, c, at.env);
    return (currentIO().httpSender ?? standardSender)({ ...(auth ? { auth } : {}), tls: await resolveTls({}, c), timeoutMs: 3000, pooled: false });
  };
  // Kept per URL for a minute in the state folder (identity-cache.ts): each command is its own process.
  const cache = (await load.identityCache()).identityCache(at.stateDir, at.env);
  const found = await governingContexts(at.url, { ...at.config, contexts: Object.fromEntries(others) }, senderFor, cache);
  for (const name of found.unreachable) currentIO().stderr.write(`warning: context ${name} governs a cluster (team store or approval) but its URL did not answer: if it is this cluster, its rules were not checked\n`);
  if (found.contexts.length === 0) return { ...own, governedBy: [] };
  const storeOf = (c: Pick<ConnectionContext, 'store'> | undefined): string => (c?.store && c.store !== 'sqlite' ? c.store : 'the state folder\'s SQLite file');
  const all = [...(at.ctx && at.contextName !== undefined && governs(at.ctx) ? [{ name: at.contextName, context: at.ctx }] : []), ...found.contexts];
  const stores = new Set(all.map((g) => storeOf(g.context)));
  if (stores.size > 1) {
    const [a, b] = [all[0]!, all.find((g) => storeOf(g.context) !== storeOf(all[0]!.context))!];
    throw new OpsError('E_CONFIG', `${at.url} reaches ${found.clusterKey}, which contexts ${a.name} (store ${storeOf(a.context)}) and ${b.name} (store ${storeOf(b.context)}) both govern: one cluster has one store; fix one of the contexts (offsetctl config set-context)`, { field: 'context' });
  }
  const governing = all[0]!;
  const explicit = at.explicitStore !== undefined && at.explicitStore !== '' ? at.explicitStore : at.env.OFFSETCTL_STORE || undefined;
  if (explicit !== undefined && storeOf({ store: explicit }) !== storeOf(governing.context)) {
    throw new OpsError('E_CONFIG', `${at.url} reaches ${found.clusterKey}, which context ${governing.name} governs with store ${storeOf(governing.context)}; ${at.explicitStore ? '--store' : 'OFFSETCTL_STORE'} names ${storeOf({ store: explicit })}: changes to that cluster go to its store (leave --store out, or use --context ${governing.name})`, { field: 'store' });
  }
  const approval = own.approval ?? (all.some((g) => g.context.approval === 'required') ? 'required' : undefined);
  return {
    ...(at.ctx?.store ? {} : { storeContext: governing.context }),
    ...(approval ? { approval } : {}),
    governedBy: found.contexts.map((g) => g.name),
  };
}

/**
 * Reads (and so registers for masking) the credentials the options name, without connecting:
 * the history commands show stored data, in which a secret must stay masked too.
 */
export async function registerCredentials(opts: ConnectionOptions, env: NodeJS.ProcessEnv = currentIO().env): Promise<void> {
  await resolveAuth(opts, undefined, env);
}

/** --state-dir, OFFSETCTL_STATE_DIR, else ${XDG_STATE_HOME:-~/.local/state}/offsetctl. */
export function resolveStateDir(flag: string | undefined, env: NodeJS.ProcessEnv = currentIO().env): string {
  if (flag) return fromCwd(flag);
  if (env.OFFSETCTL_STATE_DIR) return fromCwd(env.OFFSETCTL_STATE_DIR);
  const base = env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : join(homedir(), '.local', 'state');
  return join(base, 'offsetctl');
}

function refuseLiteralSecrets(opts: ConnectionOptions): void {
  for (const [flag, value, instead] of [
    ['--password', opts.password, '--password-env VAR or --password-file PATH (or OFFSETCTL_PASSWORD)'],
    ['--token', opts.token, '--token-env VAR or --token-file PATH'],
  ] as const) {
    if (value === undefined) continue;
    registerSecret(value);
    throw new OpsError('E_USAGE', `${flag} is not accepted: a value given on the command line is kept in shell history and visible to ps; use ${instead}`, { field: flag.slice(2) });
  }
}

function sameUrl(a: string, b: string): boolean {
  if (a.trim() === b.trim()) return true; // also a list of worker URLs, which URL() cannot parse
  try {
    return new URL(a).href.replace(/\/+$/, '') === new URL(b).href.replace(/\/+$/, '');
  } catch {
    return false;
  }
}

function validateUrl(raw: string, contextName: string | undefined): string {
  const from = contextName === undefined ? '' : ` (from context ${contextName})`;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new OpsError('E_CONFIG', `URL ${JSON.stringify(raw)}${from} is not a valid URL; expected e.g. http://localhost:8083`, { field: 'url' });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new OpsError('E_CONFIG', `URL ${JSON.stringify(raw)}${from}: only http:// and https:// are supported`, { field: 'url' });
  }
  if (parsed.username || parsed.password) {
    registerSecret(decodeURIComponent(parsed.password));
    throw new OpsError('E_CONFIG', `URL${from}: credentials in the URL are not accepted; use --user with --password-env or --password-file`, { field: 'url' });
  }
  if (parsed.search || parsed.hash) throw new OpsError('E_CONFIG', `URL ${JSON.stringify(raw)}${from}: must not have a query or fragment`, { field: 'url' });
  return parsed.href.replace(/\/+$/, '');
}

async function resolveAuth(opts: ConnectionOptions, ctx: ConnectionContext | undefined, env: NodeJS.ProcessEnv): Promise<HttpAuth | undefined> {
  const flagBasic = opts.user !== undefined || opts.passwordEnv !== undefined || opts.passwordFile !== undefined;
  const flagBearer = opts.tokenEnv !== undefined || opts.tokenFile !== undefined;
  if (flagBasic && flagBearer) throw new OpsError('E_USAGE', 'give either Basic auth (--user with a password) or a bearer token (--token-env/--token-file), not both', { field: 'auth' });
  if (opts.passwordEnv !== undefined && opts.passwordFile !== undefined) throw new OpsError('E_USAGE', 'give the password once: --password-env or --password-file', { field: 'password' });
  if (opts.tokenEnv !== undefined && opts.tokenFile !== undefined) throw new OpsError('E_USAGE', 'give the token once: --token-env or --token-file', { field: 'token' });

  // Flags replace the context's credentials as a whole; the context fills in only when no auth flag is given.
  const source = flagBasic || flagBearer ? opts : ctx ?? {};
  // A context's user stays when only the password is given by flag.
  const user = source.user ?? (flagBasic ? ctx?.user : undefined);
  if (source.tokenEnv !== undefined || source.tokenFile !== undefined) {
    const token = await readSecret('token', source.tokenEnv, source.tokenFile, env);
    return { kind: 'bearer', token };
  }
  if (user === undefined) {
    if (flagBasic) throw new OpsError('E_USAGE', '--password-env/--password-file need --user <name>', { field: 'user' });
    return undefined;
  }
  let password: string;
  if (source.passwordEnv !== undefined || source.passwordFile !== undefined) password = await readSecret('password', source.passwordEnv, source.passwordFile, env);
  else if (env.OFFSETCTL_PASSWORD !== undefined && env.OFFSETCTL_PASSWORD !== '') password = await readSecret('password', 'OFFSETCTL_PASSWORD', undefined, env);
  else throw new OpsError('E_CONFIG', `user ${user} has no password: give --password-env VAR, --password-file PATH or set OFFSETCTL_PASSWORD`, { field: 'password' });
  // The Authorization header carries base64 of user:password: an error body may echo it.
  registerBasicCredential(user, password);
  return { kind: 'basic', username: user, password };
}

async function readSecret(what: 'password' | 'token', envName: string | undefined, file: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  let value: string;
  if (envName !== undefined) {
    const v = env[envName];
    if (v === undefined || v === '') throw new OpsError('E_CONFIG', `the ${what} variable ${envName} is not set (or empty); export it or use a ${what} file`, { field: what });
    value = v;
  } else {
    const path = file as string;
    try {
      value = await readFile(fromCwd(path), 'utf8');
    } catch (err) {
      throw new OpsError('E_CONFIG', `cannot read the ${what} file ${path} (${(err as { code?: string }).code ?? (err as Error).message})`, { field: what, cause: err });
    }
    // A file's trailing newline is not part of the secret (echo "s3cret" > file).
    value = value.replace(/\r?\n$/, '');
    if (value === '') throw new OpsError('E_CONFIG', `the ${what} file ${path} is empty`, { field: what });
  }
  registerSecret(value);
  return value;
}

async function resolveTls(opts: ConnectionOptions, ctx: ConnectionContext | undefined): Promise<HttpTls> {
  const certPath = opts.cert ?? (opts.key === undefined ? ctx?.cert : undefined);
  const keyPath = opts.key ?? (opts.cert === undefined ? ctx?.key : undefined);
  const caPath = opts.ca ?? ctx?.ca;
  if ((certPath === undefined) !== (keyPath === undefined)) {
    throw new OpsError('E_USAGE', `mTLS needs both a client certificate and its key: give ${certPath === undefined ? '--cert <pem>' : '--key <pem>'} too`, { field: certPath === undefined ? 'cert' : 'key' });
  }
  const tls: HttpTls = {};
  if (caPath !== undefined) tls.ca = await readPem('CA certificate (--ca)', caPath);
  if (certPath !== undefined) tls.cert = await readPem('client certificate (--cert)', certPath);
  if (keyPath !== undefined) {
    tls.key = await readPem('client key (--key)', keyPath);
    registerSecret(tls.key);
  }
  if (opts.insecure === true || ctx?.insecure === true) {
    tls.insecure = true;
    // Every time, on stderr (stdout stays clean for --output json): an unverified server may be anyone.
    currentIO().stderr.write(`warning: TLS certificates are not verified (${opts.insecure === true ? '--insecure' : 'insecure: true in the context'}): anyone between you and Kafka Connect can read and change this traffic\n`);
  }
  return tls;
}

async function readPem(what: string, path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(fromCwd(path), 'utf8');
  } catch (err) {
    throw new OpsError('E_CONFIG', `cannot read the ${what} ${path} (${(err as { code?: string }).code ?? (err as Error).message})`, { cause: err });
  }
  if (!text.includes('-----BEGIN ')) throw new OpsError('E_CONFIG', `the ${what} ${path} is not PEM text (expected a -----BEGIN ...----- block; convert DER or PKCS12 with openssl)`);
  return text;
}

function parseTimeout(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new OpsError('E_USAGE', `--timeout: must be a positive whole number of milliseconds (got ${JSON.stringify(value)})`, { field: 'timeout' });
  return n;
}
