// Named contexts: where a cluster is and how to reach it, in
// ${XDG_CONFIG_HOME:-~/.config}/offsetctl/config.yaml (OFFSETCTL_CONFIG overrides the path).
// A context holds references to secrets (an environment variable name, a file path), never the
// secret itself: the file is refused when it carries a literal password or token.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { OpsError } from '../ops/errors.js';
import { checkKafkaFields, KAFKA_FILE_KEYS, KAFKA_PATH_FIELDS, type KafkaContextFields } from './kafka-settings.js';
import { currentIO, fromCwd } from './io.js';
import * as load from './load.js';

export type AuthKind = 'none' | 'basic' | 'bearer';

/** Kafka access (bootstrap, security) lives beside the Connect URL: see kafka-settings.ts. */
export interface ConnectionContext extends KafkaContextFields {
  url: string;
  auth: AuthKind;
  user?: string;
  passwordEnv?: string;
  passwordFile?: string;
  tokenEnv?: string;
  tokenFile?: string;
  cert?: string;
  key?: string;
  ca?: string;
  insecure?: boolean;
  /** The team store (postgres://USER@HOST/DB, never with a password): runs, snapshots and locks shared by everyone using it. */
  store?: string;
  /** The environment variable that holds the team store's password. */
  storePasswordEnv?: string;
  /** `required`: every change through this context becomes a change request another person approves (docs/reviewed-changes.md). */
  approval?: 'required';
  /** `true`: a production cluster; the console shows a production badge in its header while this context is selected. */
  production?: boolean;
  /**
   * Debezium PostgreSQL sources: a read-only login to each one's source database, by connector-name
   * pattern (a regular expression, matched like --selector): `{"^orders-": "postgres://ro@db/app"}`.
   * Never with a password (PGPASSWORD or ~/.pgpass); docs/connectors.md.
   */
  sourceDb?: Record<string, string>;
}

export interface OffsetctlConfig {
  currentContext?: string;
  contexts: Record<string, ConnectionContext>;
}

/** Context fields as written in the YAML file (kebab-case) and their TypeScript names. */
const FILE_KEYS = {
  url: 'url',
  auth: 'auth',
  user: 'user',
  'password-env': 'passwordEnv',
  'password-file': 'passwordFile',
  'token-env': 'tokenEnv',
  'token-file': 'tokenFile',
  cert: 'cert',
  key: 'key',
  ca: 'ca',
  insecure: 'insecure',
  store: 'store',
  'store-password-env': 'storePasswordEnv',
  approval: 'approval',
  production: 'production',
  'source-db': 'sourceDb',
  ...KAFKA_FILE_KEYS,
} as const satisfies Record<string, keyof ConnectionContext>;
type FileKey = keyof typeof FILE_KEYS;
const PATH_FIELDS = new Set<string>(['passwordFile', 'tokenFile', 'cert', 'key', 'ca', ...KAFKA_PATH_FIELDS]);

/** The config file path: OFFSETCTL_CONFIG, else ${XDG_CONFIG_HOME:-~/.config}/offsetctl/config.yaml. */
export function configPath(env: NodeJS.ProcessEnv = currentIO().env): string {
  if (env.OFFSETCTL_CONFIG) return fromCwd(env.OFFSETCTL_CONFIG);
  const base = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'offsetctl', 'config.yaml');
}

/** Reads and checks the config file; a missing file is an empty config. Relative paths in it are relative to the file. */
export async function loadConfig(path: string = configPath()): Promise<OffsetctlConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return { contexts: {} };
    throw new OpsError('E_CONFIG', `${path}: cannot read the config file (${(err as Error).message})`, { cause: err });
  }
  let raw: unknown;
  // yaml (~260 KB) loads only when there is a file to read: without one, `connectors --url` never pays for it.
  const { parse } = await load.configYaml();
  try {
    raw = parse(text);
  } catch (err) {
    throw new OpsError('E_CONFIG', `${path}: not valid YAML (${(err as Error).message.split('\n')[0]}); fix it or recreate contexts with \`offsetctl config set-context\``, { cause: err });
  }
  return parseConfig(raw ?? {}, path);
}

/** Writes the config atomically (temp file + rename), readable by the owner only. */
export async function saveConfig(config: OffsetctlConfig, path: string = configPath()): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const doc: Record<string, unknown> = {};
  if (config.currentContext !== undefined) doc['current-context'] = config.currentContext;
  const contexts: Record<string, Record<string, unknown>> = {};
  for (const [name, ctx] of Object.entries(config.contexts)) {
    const out: Record<string, unknown> = {};
    for (const [fileKey, field] of Object.entries(FILE_KEYS)) if (ctx[field] !== undefined) out[fileKey] = ctx[field];
    contexts[name] = out;
  }
  doc.contexts = contexts;
  const header = '# offsetctl contexts. Secrets are referenced (password-env, password-file, token-env,\n# token-file), never stored here. Edit with `offsetctl config set-context`.\n';
  const tmp = `${path}.${process.pid}.tmp`;
  const { stringify } = await load.configYaml();
  await writeFile(tmp, header + stringify(doc), { mode: 0o600 });
  await rename(tmp, path);
}

/** What `config set-context` may change: any field but the auth kind, which follows from them. */
export type ContextChanges = Partial<Omit<ConnectionContext, 'auth' | 'approval'>> & { approval?: 'required' | 'none' };

/**
 * Creates or updates a context (changed fields win; switching to basic auth drops the token
 * references and the other way round). Paths are made absolute against `cwd`.
 */
export function setContext(config: OffsetctlConfig, name: string, changes: ContextChanges, cwd: string = currentIO().cwd()): { config: OffsetctlConfig; created: boolean } {
  if (name.trim() === '') throw new OpsError('E_USAGE', 'context name: must not be empty');
  const existing = config.contexts[name];
  const next: ConnectionContext = { ...(existing ?? { url: '', auth: 'none' }) };
  const basic = changes.user !== undefined || changes.passwordEnv !== undefined || changes.passwordFile !== undefined;
  const bearer = changes.tokenEnv !== undefined || changes.tokenFile !== undefined;
  if (basic && bearer) throw new OpsError('E_USAGE', 'set-context: give either basic auth (--user with --password-env/--password-file) or a bearer token (--token-env/--token-file), not both');
  if (basic) {
    delete next.tokenEnv;
    delete next.tokenFile;
    if (changes.passwordEnv !== undefined) delete next.passwordFile;
    if (changes.passwordFile !== undefined) delete next.passwordEnv;
  }
  if (bearer) {
    delete next.user;
    delete next.passwordEnv;
    delete next.passwordFile;
    if (changes.tokenEnv !== undefined) delete next.tokenFile;
    if (changes.tokenFile !== undefined) delete next.tokenEnv;
  }
  for (const [field, value] of Object.entries(changes) as Array<[keyof ContextChanges, string | boolean | undefined]>) {
    if (value === undefined) continue;
    (next as unknown as Record<string, unknown>)[field] = PATH_FIELDS.has(field) ? resolve(cwd, value as string) : value;
  }
  if (!next.url) throw new OpsError('E_USAGE', `set-context ${name}: a new context needs --url <connect-url>`, { field: 'url' });
  if (changes.kafkaPasswordEnv !== undefined) delete next.kafkaPasswordFile;
  if (changes.kafkaPasswordFile !== undefined) delete next.kafkaPasswordEnv;
  checkKafkaFields(next, `set-context ${name}: `);
  if (next.store !== undefined) checkStoreReference(next.store, `set-context ${name}: --store`);
  // --no-require-approval: the context no longer asks for approval (the field goes).
  if ((next.approval as string | undefined) === 'none') delete next.approval;
  next.auth = authOf(next);
  return { config: { ...config, contexts: { ...config.contexts, [name]: next } }, created: existing === undefined };
}

/** The context of that name, or `E_CONFIG` listing the known names. */
export function findContext(config: OffsetctlConfig, name: string, path: string = configPath()): ConnectionContext {
  const ctx = config.contexts[name];
  if (ctx) return ctx;
  const known = Object.keys(config.contexts);
  throw new OpsError('E_CONFIG', `context ${JSON.stringify(name)} not found in ${path} (${known.length === 0 ? 'no contexts defined' : `known: ${known.join(', ')}`}); create it with \`offsetctl config set-context ${name} --url <connect-url>\``, { field: 'context' });
}

function authOf(ctx: ConnectionContext): AuthKind {
  if (ctx.user !== undefined) return 'basic';
  if (ctx.tokenEnv !== undefined || ctx.tokenFile !== undefined) return 'bearer';
  return 'none';
}

function parseConfig(raw: unknown, path: string): OffsetctlConfig {
  if (!isObject(raw)) throw new OpsError('E_CONFIG', `${path}: the top level must be a mapping with current-context and contexts`);
  const config: OffsetctlConfig = { contexts: {} };
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'current-context') {
      if (value !== null && typeof value !== 'string') throw new OpsError('E_CONFIG', `${path}: current-context must be a context name`, { field: key });
      if (typeof value === 'string') config.currentContext = value;
    } else if (key === 'contexts') {
      if (value === null) continue;
      if (!isObject(value)) throw new OpsError('E_CONFIG', `${path}: contexts must be a mapping of name → context`, { field: key });
      for (const [name, ctx] of Object.entries(value)) config.contexts[name] = parseContext(ctx, `contexts.${name}`, path);
    } else {
      throw new OpsError('E_CONFIG', `${path}: ${key}: unknown top-level field${kebabHint(key)} (known: current-context, contexts)`, { field: key });
    }
  }
  return config;
}

/** A `contexts:` mapping written like the config file's (the web console's service config has one). */
export function parseContexts(raw: unknown, path: string): Record<string, ConnectionContext> {
  if (!isObject(raw)) throw new OpsError('E_CONFIG', `${path}: contexts must be a mapping of name → context (url, user, password-env, ...)`, { field: 'contexts' });
  const out: Record<string, ConnectionContext> = {};
  for (const [name, ctx] of Object.entries(raw)) out[name] = parseContext(ctx, `contexts.${name}`, path);
  return out;
}

function parseContext(raw: unknown, at: string, path: string): ConnectionContext {
  if (!isObject(raw)) throw new OpsError('E_CONFIG', `${path}: ${at} must be a mapping`, { field: at });
  const ctx: Partial<ConnectionContext> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'password' || key === 'token' || key === 'secret' || key === 'kafka-password') {
      const instead = key === 'token' ? 'token-env or token-file' : key === 'kafka-password' ? 'kafka-password-env or kafka-password-file' : 'password-env or password-file';
      throw new OpsError('E_CONFIG', `${path}: ${at}.${key}: secrets are not stored in the config file; reference one with ${instead}`, { field: `${at}.${key}` });
    }
    if (!(key in FILE_KEYS)) throw new OpsError('E_CONFIG', `${path}: ${at}.${key}: unknown field${kebabHint(key)} (known: ${Object.keys(FILE_KEYS).join(', ')})`, { field: `${at}.${key}` });
    const field = FILE_KEYS[key as FileKey];
    if (field === 'insecure') {
      if (typeof value !== 'boolean') throw new OpsError('E_CONFIG', `${path}: ${at}.insecure must be true or false`, { field: `${at}.insecure` });
      ctx.insecure = value;
    } else if (field === 'production') {
      if (typeof value !== 'boolean') throw new OpsError('E_CONFIG', `${path}: ${at}.production must be true or false`, { field: `${at}.production` });
      ctx.production = value;
    } else if (field === 'approval') {
      if (value !== 'required') throw new OpsError('E_CONFIG', `${path}: ${at}.approval must be required (or left out): with approval: required every change becomes a change request`, { field: `${at}.approval` });
      ctx.approval = value;
    } else if (field === 'sourceDb') {
      ctx.sourceDb = parseSourceDb(value, `${path}: ${at}.source-db`);
    } else if (field === 'auth') {
      if (value !== 'none' && value !== 'basic' && value !== 'bearer') throw new OpsError('E_CONFIG', `${path}: ${at}.auth must be none, basic or bearer`, { field: `${at}.auth` });
      ctx.auth = value;
    } else {
      if (typeof value !== 'string' || value === '') throw new OpsError('E_CONFIG', `${path}: ${at}.${key} must be a non-empty string`, { field: `${at}.${key}` });
      if (field === 'store') checkStoreReference(value, `${path}: ${at}.store`);
      ctx[field] = PATH_FIELDS.has(field) ? resolvePath(value, dirname(path)) : value;
    }
  }
  if (!ctx.url) throw new OpsError('E_CONFIG', `${path}: ${at}.url is missing; every context needs the Kafka Connect URL`, { field: `${at}.url` });
  const full = ctx as ConnectionContext;
  const derived = authOf(full);
  if (ctx.auth !== undefined && ctx.auth !== derived) {
    throw new OpsError('E_CONFIG', `${path}: ${at}.auth is ${ctx.auth} but the context ${derived === 'none' ? 'has no user or token reference' : `holds ${derived} credentials`}; make them agree`, { field: `${at}.auth` });
  }
  full.auth = derived;
  checkKafkaFields(full, `${path}: ${at}.`);
  return full;
}

/**
 * A context's team store: a postgres:// URL without a password (libpq's PGPASSWORD or .pgpass, or
 * store-password-env, supply it), or `sqlite` for the state folder's file.
 */
export function checkStoreReference(value: string, where: string): void {
  if (value === 'sqlite') return;
  if (!/^postgres(ql)?:\/\//i.test(value)) throw new OpsError('E_CONFIG', `${where}: must be a postgres://USER@HOST:PORT/DATABASE URL (or sqlite)`, { field: 'store' });
  if (/^postgres(ql)?:\/\/[^/@]*:[^/@]*@/i.test(value)) {
    throw new OpsError('E_CONFIG', `${where}: holds a password; secrets are not stored in the config file: remove it from the URL and use PGPASSWORD, a .pgpass file, or store-password-env`, { field: 'store' });
  }
}

/** A context's `source-db:`: connector-name pattern → postgres:// URL without a password. */
function parseSourceDb(value: unknown, where: string): Record<string, string> {
  if (!isObject(value)) throw new OpsError('E_CONFIG', `${where} must be a mapping of connector-name pattern → postgres://USER@HOST:PORT/DATABASE`, { field: 'source-db' });
  const out: Record<string, string> = {};
  for (const [pattern, url] of Object.entries(value)) {
    try {
      new RegExp(pattern);
    } catch (err) {
      throw new OpsError('E_CONFIG', `${where}: ${JSON.stringify(pattern)} is not a regular expression (${(err as Error).message})`, { field: 'source-db' });
    }
    if (typeof url !== 'string' || !/^postgres(ql)?:\/\//i.test(url)) throw new OpsError('E_CONFIG', `${where}.${pattern}: must be a postgres://USER@HOST:PORT/DATABASE URL`, { field: 'source-db' });
    if (/^postgres(ql)?:\/\/[^/@]*:[^/@]*@/i.test(url)) {
      throw new OpsError('E_CONFIG', `${where}.${pattern}: holds a password; secrets are not stored in the config file: remove it from the URL and use PGPASSWORD or a .pgpass file`, { field: 'source-db' });
    }
    out[pattern] = url;
  }
  return out;
}

/** `passwordEnv` → ` (did you mean password-env?)`: the file's keys are kebab-case. */
function kebabHint(key: string): string {
  const kebab = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return kebab !== key && (kebab in FILE_KEYS || kebab === 'current-context') ? ` (did you mean ${kebab}?)` : '';
}

function resolvePath(value: string, base: string): string {
  if (value === '~' || value.startsWith('~/')) return join(homedir(), value.slice(1));
  return resolve(base, value);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
