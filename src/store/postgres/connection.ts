// From a store URL (`postgres://alice@db.example:5432/offsetctl?sslmode=verify-full`) to the
// driver's connection settings, the way libpq reads them: the URL first, then the PG* variables
// (PGHOST, PGPORT, PGUSER, PGDATABASE, PGSSLMODE, PGSSLROOTCERT, PGSSLCERT, PGSSLKEY); the password
// from the variable `--store-password-env` names, else PGPASSWORD, else the .pgpass file
// (PGPASSFILE or ~/.pgpass, read by the driver). A password written into the URL is refused:
// URLs end up in shell history, process lists, context files and messages.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { checkServerIdentity } from 'node:tls';
import { StoreError } from '../errors.js';

/** libpq's connection parameters that may also be written as URL query parameters. */
const CONNECTION_PARAMS: readonly string[] = ['user', 'host', 'port', 'dbname'];

export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';
const SSL_MODES: readonly SslMode[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

export interface StoreUrlOptions {
  /** The name of an environment variable holding the password (`--store-password-env`). */
  passwordEnv?: string;
  env?: NodeJS.ProcessEnv;
}

/** What the driver is given (a subset of pg's ClientConfig). */
export interface PgSettings {
  host: string;
  port: number;
  user: string;
  database: string;
  /** Undefined: the driver reads PGPASSWORD, then the .pgpass file. */
  password?: string;
  ssl: false | TlsOptions;
  sslmode: SslMode;
  application_name: string;
  /** The URL without any password, for messages and `store status`. */
  display: string;
  statementTimeoutMs: number;
}

/** Is this `--store`/OFFSETCTL_STORE/context value a PostgreSQL URL? */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

function usage(message: string): StoreError {
  return new StoreError('E_STORE_USAGE', message);
}

export function pgSettings(text: string, options: StoreUrlOptions = {}): PgSettings {
  const env = options.env ?? process.env;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usage(`--store: ${JSON.stringify(redactUrl(text))} is not a URL; write postgres://USER@HOST:PORT/DATABASE`);
  }
  if (url.password) {
    throw usage('--store: the URL holds a password; never write it into the URL or a context file: set PGPASSWORD, use a .pgpass file, or name a variable that holds it with --store-password-env');
  }
  const params = url.searchParams;
  if (params.has('password')) {
    throw usage('--store: the URL holds a password (?password=); never write it into the URL or a context file: set PGPASSWORD, use a .pgpass file, '
      + 'or name a variable that holds it with --store-password-env');
  }
  const known = new Set([...CONNECTION_PARAMS, 'sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'application_name', 'statement_timeout', 'connect_timeout']);
  for (const key of params.keys()) {
    if (!known.has(key)) throw usage(`--store: unknown URL parameter ${key} (known: ${[...known].join(', ')})`);
  }
  // libpq also takes user, host, port and dbname as query parameters (postgres://127.0.0.1:5432/x?user=alice,
  // postgres:///x?host=db): the same setting given twice, differently, is refused rather than guessed.
  const part = (name: string, inUrl: string): string => {
    const values = params.getAll(name);
    if (values.length > 1 && values.some((v) => v !== values[0])) {
      throw usage(`--store: ${name} given ${values.length} times in the URL (${values.join(', ')}): give it once`);
    }
    const fromParam = values[0];
    if (fromParam !== undefined && inUrl !== '' && fromParam !== inUrl) {
      throw usage(`--store: ${name} given twice: ${inUrl} in the URL and ${fromParam} as ?${name}=; give it once`);
    }
    return fromParam ?? inUrl;
  };
  const host = part('host', decodeURIComponent(url.hostname.replace(/^\[|\]$/g, ''))) || env.PGHOST || 'localhost';
  const portText = part('port', url.port) || env.PGPORT || '5432';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw usage(`--store: port ${portText} is not a port number`);
  const user = part('user', decodeURIComponent(url.username)) || env.PGUSER || '';
  if (!user) throw usage('--store: no database user: write postgres://USER@HOST/DATABASE (or ?user=USER), or set PGUSER');
  const database = part('dbname', decodeURIComponent(url.pathname.replace(/^\//, ''))) || env.PGDATABASE || user;
  const modeText = params.get('sslmode') ?? env.PGSSLMODE ?? 'prefer';
  if (!SSL_MODES.includes(modeText as SslMode)) throw usage(`--store: sslmode=${modeText} is not one of ${SSL_MODES.join(', ')}`);
  const sslmode = modeText as SslMode;
  const timeoutText = params.get('statement_timeout') ?? '30000';
  const statementTimeoutMs = Number(timeoutText);
  if (!Number.isInteger(statementTimeoutMs) || statementTimeoutMs < 1) throw usage(`--store: statement_timeout=${timeoutText} is not a whole number of milliseconds`);

  let password: string | undefined;
  if (options.passwordEnv) {
    password = env[options.passwordEnv];
    if (password === undefined || password === '') throw usage(`--store-password-env: the environment variable ${options.passwordEnv} is not set (or empty)`);
  }
  const rest = new URLSearchParams([...params].filter(([k]) => !CONNECTION_PARAMS.includes(k))).toString();
  const hostPart = CONNECTION_PARAMS.some((k) => params.has(k)) || !url.host ? `${host.includes(':') ? `[${host}]` : host}:${port}` : url.host;
  const display = `postgres://${encodeURIComponent(user)}@${hostPart}/${encodeURIComponent(database)}${rest ? `?${rest}` : ''}`;
  return {
    host, port, user, database, ...(password !== undefined ? { password } : {}),
    ssl: tlsFor(sslmode, host, params, env), sslmode,
    application_name: params.get('application_name') ?? 'offsetctl', display, statementTimeoutMs,
  };
}

/**
 * libpq's modes, minus its fallbacks: disable/allow/prefer connect without TLS (the driver cannot
 * retry with and without), require encrypts without checking the server (unless a root
 * certificate is given: then as verify-ca, as libpq does), verify-ca checks the chain, verify-full
 * the chain and the host name.
 */
function tlsFor(mode: SslMode, host: string, params: URLSearchParams, env: NodeJS.ProcessEnv): false | TlsOptions {
  if (mode === 'disable' || mode === 'allow' || mode === 'prefer') return false;
  const defaultRoot = join(homedir(), '.postgresql', 'root.crt');
  const explicitRoot = params.get('sslrootcert') ?? env.PGSSLROOTCERT;
  const rootFile = explicitRoot ?? (existsSync(defaultRoot) ? defaultRoot : undefined);
  const verify = mode === 'verify-ca' || mode === 'verify-full' || rootFile !== undefined;
  const tls: TlsOptions = { rejectUnauthorized: verify, ...(isIp(host) ? {} : { servername: host }) };
  if (verify) {
    if (!rootFile) throw usage(`--store: sslmode=${mode} needs the CA's certificate: add sslrootcert=/path/to/ca.crt to the URL, set PGSSLROOTCERT, or put it in ~/.postgresql/root.crt`);
    tls.ca = readTlsFile(rootFile, 'sslrootcert');
  }
  // verify-ca: the chain only, whatever name the certificate carries.
  if (mode !== 'verify-full') tls.checkServerIdentity = () => undefined;
  else tls.checkServerIdentity = (_name, cert) => checkServerIdentity(host, cert);
  const cert = params.get('sslcert') ?? env.PGSSLCERT;
  const key = params.get('sslkey') ?? env.PGSSLKEY;
  if (cert) tls.cert = readTlsFile(cert, 'sslcert');
  if (key) tls.key = readTlsFile(key, 'sslkey');
  return tls;
}

function isIp(host: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(host) || host.includes(':');
}

function readTlsFile(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw usage(`--store: cannot read ${what} ${file}: ${(err as Error).message}`);
  }
}

/** A store URL as it may be shown: any password replaced by `***`. */
export function redactUrl(text: string): string {
  return text.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}
