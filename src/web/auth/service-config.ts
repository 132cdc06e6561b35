// The console as a service (`offsetctl ui --config console.yaml`): how people sign in, how long a
// session lasts, and which role each group has on which contexts and connectors. The contexts
// themselves (Connect URLs and credentials) are read by the command that starts the console, with
// the CLI's own rules; this module reads the rest. Secrets are references only (an environment
// variable or a file, read here once and registered for masking); a literal secret is refused
// with the field to use instead. Every refusal names the field (`sign-in.oidc.issuer`) and the fix.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { registerSecret } from '../../http/redact.js';
import { OpsError } from '../ops-bridge.js';
import { parseGrants, type Grant } from './roles.js';
import { parseAddressList, type AddressMatcher } from './proxy.js';

export interface OidcConfig {
  issuer: URL;
  clientId: string;
  /** Read from client-secret-env / client-secret-file; absent for a public client (PKCE alone). */
  clientSecret?: string;
  scopes: string[];
  /**
   * The claim that names the user in the audit (default `email`, else `preferred_username`, else
   * `sub`). Only a label: the person is the pair (issuer, sub). A configured claim that is missing
   * refuses the sign-in.
   */
  userClaim?: string;
  groupsClaim: string;
  /** An e-mail the provider does not say is verified (`email_verified: true`) is refused as the name unless this is set. */
  allowUnverifiedEmail: boolean;
}

export interface ProxyConfig {
  userHeader: string;
  groupsHeader?: string;
  trusted: AddressMatcher;
  /** As written, for messages. */
  trustedText: string[];
}

export interface SessionConfig {
  maxAgeMs: number;
  idleMs: number;
  /** OpenID Connect: how often a session's groups are read again at the provider (userinfo); 0: never. */
  recheckMs: number;
}

export interface ServiceConfig {
  path: string;
  listen?: string;
  tls?: { cert: string; key: string };
  /** What browsers open (`https://offsetctl.example.com`); the OpenID redirect URI is `<public-url>/auth/callback`. */
  publicUrl?: URL;
  stateDir?: string;
  /**
   * The store (`postgres://USER@HOST/DB`: the team store), as a context's `store:`; `--store` and
   * OFFSETCTL_STORE come first. Its password comes from `store-password-env` (the variable must
   * be set at start), PGPASSWORD or .pgpass, never from this file.
   */
  store?: string;
  storePasswordEnv?: string;
  defaultContext?: string;
  signIn: { kind: 'oidc'; oidc: OidcConfig } | { kind: 'proxy'; proxy: ProxyConfig };
  session: SessionConfig;
  /** Sign-in attempts per client address and minute. */
  signInPerMinute: number;
  grants: Grant[];
  /**
   * Load balancers in front of the console (`trusted-proxies`), and in proxy mode the sign-in
   * proxy too: from them, X-Forwarded-For names the client (rate limits, logs, the audit).
   */
  trustedProxies?: AddressMatcher;
  /** /metrics: with this bearer token on the console's address, and/or on a loopback address of its own. */
  metrics?: { token?: string; listen?: string };
}

const TOP = [
  'listen', 'tls', 'public-url', 'state-dir', 'store', 'store-password-env', 'contexts', 'default-context', 'sign-in', 'session', 'roles',
  'metrics', 'trusted-proxies',
];
const DEFAULT_SESSION: SessionConfig = { maxAgeMs: 8 * 3600_000, idleMs: 3600_000, recheckMs: 5 * 60_000 };

/**
 * Reads everything of the service config but `contexts` (the caller passes the context names it
 * resolved, so grants can be checked against them).
 */
export function parseServiceConfig(raw: unknown, path: string, contextNames: readonly string[], env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const at = new Where(path);
  const doc = mapping(raw, '', at);
  for (const key of Object.keys(doc)) if (!TOP.includes(key)) at.fail(key, `unknown field (known: ${TOP.join(', ')})`);
  const base = dirname(path);
  const config: ServiceConfig = {
    path,
    signIn: signIn(doc['sign-in'], at, env, base),
    session: session(doc.session, at),
    signInPerMinute: 10,
    grants: [],
  };
  if (doc.listen !== undefined) config.listen = string(doc.listen, 'listen', at);
  if (doc.tls !== undefined) {
    const tls = mapping(doc.tls, 'tls', at);
    only(tls, 'tls', ['cert', 'key'], at);
    config.tls = { cert: resolve(base, string(tls.cert, 'tls.cert', at)), key: resolve(base, string(tls.key, 'tls.key', at)) };
  }
  if (doc['public-url'] !== undefined) {
    const text = string(doc['public-url'], 'public-url', at);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return at.fail('public-url', `not a URL (${JSON.stringify(text)}); write the address browsers open, such as https://offsetctl.example.com`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') at.fail('public-url', 'must be an http(s) URL');
    if (url.pathname !== '/' || url.search || url.hash) at.fail('public-url', 'must be an origin without a path (https://offsetctl.example.com); the console serves from /');
    config.publicUrl = url;
  }
  if (doc['state-dir'] !== undefined) config.stateDir = resolve(base, string(doc['state-dir'], 'state-dir', at));
  if (doc.store !== undefined) {
    config.store = string(doc.store, 'store', at);
    // The store's own rule refuses a password in the URL when it opens; refused here with the field.
    if (/^postgres(?:ql)?:\/\/[^/@:]*:[^/@]*@/i.test(config.store)) at.fail('store', 'has a password in it: remove it and name a variable that holds it with store-password-env (or use PGPASSWORD or .pgpass)');
  }
  if (doc['store-password-env'] !== undefined) {
    const name = string(doc['store-password-env'], 'store-password-env', at);
    if (!env[name]) at.fail('store-password-env', `the environment variable ${name} is not set (or empty); set it to the store login's password`);
    config.storePasswordEnv = name;
  }
  if (contextNames.length === 0) at.fail('contexts', 'no contexts: the console needs at least one (name → url and credentials, as in the CLI config file)');
  if (doc['default-context'] !== undefined) {
    const name = string(doc['default-context'], 'default-context', at);
    if (!contextNames.includes(name)) at.fail('default-context', `${JSON.stringify(name)} is not one of the contexts (${contextNames.join(', ')})`);
    config.defaultContext = name;
  }
  if (doc.roles === undefined) at.fail('roles', 'missing: map groups to viewer, operator or admin (without roles nobody could do anything)');
  config.grants = parseGrants(doc.roles, contextNames, (field, why) => at.fail(field, why));
  if (doc.metrics !== undefined) config.metrics = metrics(doc.metrics, at, env);
  const trustedText = [
    ...(doc['trusted-proxies'] !== undefined ? stringList(doc['trusted-proxies'], 'trusted-proxies', at) : []),
    ...(config.signIn.kind === 'proxy' ? config.signIn.proxy.trustedText : []),
  ];
  if (trustedText.length > 0) {
    try {
      config.trustedProxies = parseAddressList(trustedText);
    } catch (err) {
      at.fail('trusted-proxies', (err as Error).message);
    }
  }
  const perMinute = (mapping(doc['sign-in'], 'sign-in', at))['rate-limit'];
  if (perMinute !== undefined) {
    if (typeof perMinute !== 'number' || !Number.isInteger(perMinute) || perMinute < 1) at.fail('sign-in.rate-limit', 'must be a whole number ≥ 1 (sign-in attempts per client address and minute)');
    config.signInPerMinute = perMinute as number;
  }
  return config;
}

function signIn(raw: unknown, at: Where, env: NodeJS.ProcessEnv, base: string): ServiceConfig['signIn'] {
  if (raw === undefined) return at.fail('sign-in', 'missing: configure oidc (issuer, client-id, client-secret-env) or proxy (user-header, trusted-proxies)');
  const s = mapping(raw, 'sign-in', at);
  only(s, 'sign-in', ['oidc', 'proxy', 'rate-limit'], at);
  if ((s.oidc === undefined) === (s.proxy === undefined)) at.fail('sign-in', 'give exactly one of oidc or proxy');
  if (s.oidc !== undefined) {
    const o = mapping(s.oidc, 'sign-in.oidc', at);
    only(o, 'sign-in.oidc', [
      'issuer', 'client-id', 'client-secret-env', 'client-secret-file', 'client-secret', 'scopes', 'user-claim', 'groups-claim', 'allow-unverified-email',
    ], at);
    if (o['client-secret'] !== undefined) at.fail('sign-in.oidc.client-secret', 'secrets are not written in the config file; reference it with client-secret-env: VAR or client-secret-file: /path');
    const issuerText = string(o.issuer, 'sign-in.oidc.issuer', at);
    let issuer: URL;
    try {
      issuer = new URL(issuerText);
    } catch {
      return at.fail('sign-in.oidc.issuer', `not a URL (${JSON.stringify(issuerText)}); write the provider's issuer, such as https://login.example.com/realms/corp`);
    }
    if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname))) {
      at.fail('sign-in.oidc.issuer', `must be https (got ${issuer.protocol}//${issuer.host}); plain http is accepted only for a provider on this machine's loopback address`);
    }
    const oidc: OidcConfig = {
      issuer, clientId: string(o['client-id'], 'sign-in.oidc.client-id', at),
      scopes: o.scopes === undefined ? ['openid', 'profile', 'email'] : stringList(o.scopes, 'sign-in.oidc.scopes', at),
      groupsClaim: o['groups-claim'] === undefined ? 'groups' : string(o['groups-claim'], 'sign-in.oidc.groups-claim', at),
      allowUnverifiedEmail: false,
    };
    if (o['allow-unverified-email'] !== undefined) {
      if (typeof o['allow-unverified-email'] !== 'boolean') at.fail('sign-in.oidc.allow-unverified-email', 'must be true or false');
      oidc.allowUnverifiedEmail = o['allow-unverified-email'] as boolean;
    }
    if (!oidc.scopes.includes('openid')) at.fail('sign-in.oidc.scopes', 'must include openid (without it there is no ID token)');
    if (o['user-claim'] !== undefined) oidc.userClaim = string(o['user-claim'], 'sign-in.oidc.user-claim', at);
    const secret = secretRef(o, 'sign-in.oidc.client-secret', at, env, base);
    if (secret !== undefined) oidc.clientSecret = secret;
    return { kind: 'oidc', oidc };
  }
  const p = mapping(s.proxy, 'sign-in.proxy', at);
  only(p, 'sign-in.proxy', ['user-header', 'groups-header', 'trusted-proxies'], at);
  const header = (v: unknown, field: string): string => {
    const h = string(v, field, at);
    if (!/^[A-Za-z0-9-]+$/.test(h)) at.fail(field, `${JSON.stringify(h)} is not a header name (letters, digits and -)`);
    return h.toLowerCase();
  };
  const trustedText = p['trusted-proxies'] === undefined ? at.fail('sign-in.proxy.trusted-proxies', 'missing: list the proxy\'s own addresses (such as [10.0.0.5, 10.0.1.0/24]); the identity header is believed only from them') : stringList(p['trusted-proxies'], 'sign-in.proxy.trusted-proxies', at);
  let trusted: AddressMatcher;
  try {
    trusted = parseAddressList(trustedText);
  } catch (err) {
    return at.fail('sign-in.proxy.trusted-proxies', (err as Error).message);
  }
  return {
    kind: 'proxy',
    proxy: {
      userHeader: header(p['user-header'] ?? 'X-Forwarded-User', 'sign-in.proxy.user-header'),
      ...(p['groups-header'] !== undefined ? { groupsHeader: header(p['groups-header'], 'sign-in.proxy.groups-header') } : {}),
      trusted, trustedText,
    },
  };
}

/** `metrics: {token-env: VAR}` and/or `metrics: {listen: 127.0.0.1:9464}` (loopback only: nothing guards it but the address). */
function metrics(raw: unknown, at: Where, env: NodeJS.ProcessEnv): NonNullable<ServiceConfig['metrics']> {
  const m = mapping(raw, 'metrics', at);
  only(m, 'metrics', ['token-env', 'listen'], at);
  if (m['token-env'] === undefined && m.listen === undefined) {
    at.fail('metrics', 'give token-env: VAR (a bearer token for /metrics) or listen: 127.0.0.1:PORT (a loopback address of its own), or both');
  }
  const out: NonNullable<ServiceConfig['metrics']> = {};
  if (m['token-env'] !== undefined) {
    const name = string(m['token-env'], 'metrics.token-env', at);
    const token = env[name];
    if (!token) {
      const fix = 'set it to the token your monitoring sends as "Authorization: Bearer <token>"';
      at.fail('metrics.token-env', `the environment variable ${name} is not set (or empty); ${fix}`);
    }
    if (token.length < 16) at.fail('metrics.token-env', `the token in ${name} is shorter than 16 characters; use a long random one (openssl rand -hex 24)`);
    registerSecret(token);
    out.token = token;
  }
  if (m.listen !== undefined) {
    const listen = string(m.listen, 'metrics.listen', at);
    const host = /^(?:\[([^\]]+)\]|([^:]+)):\d{1,5}$/.exec(listen);
    if (!host) at.fail('metrics.listen', `expected host:port such as 127.0.0.1:9464 (got ${JSON.stringify(listen)})`);
    if (!isLoopbackHost(host[1] ?? host[2]!)) {
      at.fail('metrics.listen', `${listen} is not a loopback address: unguarded metrics are served on 127.0.0.1 or ::1 only (elsewhere, use token-env)`);
    }
    out.listen = listen;
  }
  return out;
}

function session(raw: unknown, at: Where): SessionConfig {
  if (raw === undefined) return DEFAULT_SESSION;
  const s = mapping(raw, 'session', at);
  only(s, 'session', ['max-age', 'idle-timeout', 'recheck-roles'], at);
  const out = { ...DEFAULT_SESSION };
  if (s['max-age'] !== undefined) out.maxAgeMs = duration(s['max-age'], 'session.max-age', at);
  if (s['idle-timeout'] !== undefined) out.idleMs = duration(s['idle-timeout'], 'session.idle-timeout', at);
  if (s['recheck-roles'] !== undefined) {
    const raw = s['recheck-roles'];
    const m = typeof raw === 'string' ? /^(\d+)\s*(s|m|h)$/.exec(raw.trim()) : null;
    const ms = m ? Number(m[1]) * { s: 1000, m: 60_000, h: 3600_000 }[m[2] as 's' | 'm' | 'h'] : NaN;
    if (raw === 'off') out.recheckMs = 0;
    else if (!(ms >= 5000 && ms <= 24 * 3600_000)) {
      at.fail('session.recheck-roles', `give a duration between 5s and 24h such as 5m, or off (got ${JSON.stringify(raw)})`);
    }
    else out.recheckMs = ms;
  }
  if (out.idleMs > out.maxAgeMs) at.fail('session.idle-timeout', 'is longer than session.max-age; make it shorter or equal');
  return out;
}

/** `30m`, `8h`, `1d` → milliseconds (between a minute and 30 days). */
function duration(raw: unknown, field: string, at: Where): number {
  const m = typeof raw === 'string' ? /^(\d+)\s*(m|h|d)$/.exec(raw.trim()) : null;
  const ms = m ? Number(m[1]) * { m: 60_000, h: 3600_000, d: 86_400_000 }[m[2] as 'm' | 'h' | 'd'] : NaN;
  if (!(ms >= 60_000 && ms <= 30 * 86_400_000)) at.fail(field, `give a duration between 1m and 30d such as 30m, 8h or 1d (got ${JSON.stringify(raw)})`);
  return ms;
}

function secretRef(m: Record<string, unknown>, field: string, at: Where, env: NodeJS.ProcessEnv, base: string): string | undefined {
  const envName = m[`${field.split('.').pop()}-env`];
  const file = m[`${field.split('.').pop()}-file`];
  if (envName !== undefined && file !== undefined) at.fail(`${field}-env`, `give ${field}-env or ${field}-file, not both`);
  let value: string | undefined;
  if (envName !== undefined) {
    const name = string(envName, `${field}-env`, at);
    value = env[name];
    if (!value) at.fail(`${field}-env`, `the environment variable ${name} is not set (or empty); set it to the secret, or use ${field}-file`);
  } else if (file !== undefined) {
    const p = resolve(base, string(file, `${field}-file`, at));
    try {
      value = readFileSync(p, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      at.fail(`${field}-file`, `cannot read ${p} (${(err as { code?: string }).code ?? (err as Error).message})`);
    }
    if (!value) at.fail(`${field}-file`, `${p} is empty`);
  }
  registerSecret(value);
  return value;
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::1';
}

// ---- small readers that name the field ----------------------------------------------------

class Where {
  constructor(readonly path: string) {}
  fail(field: string, why: string): never {
    throw new OpsError('E_CONFIG', `${this.path}: ${field}: ${why}`, { field });
  }
}

function mapping(raw: unknown, field: string, at: Where): Record<string, unknown> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return at.fail(field || '(top level)', 'must be a mapping');
  return raw as Record<string, unknown>;
}

function only(m: Record<string, unknown>, field: string, known: string[], at: Where): void {
  for (const key of Object.keys(m)) if (!known.includes(key)) at.fail(`${field}.${key}`, `unknown field (known: ${known.join(', ')})`);
}

function string(raw: unknown, field: string, at: Where): string {
  if (typeof raw !== 'string' || raw.trim() === '') return at.fail(field, raw === undefined ? 'missing' : 'must be a non-empty string');
  return raw.trim();
}

function stringList(raw: unknown, field: string, at: Where): string[] {
  const list = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(list) || list.length === 0 || !list.every((v) => typeof v === 'string' && v.trim() !== '')) return at.fail(field, 'must be a list of non-empty strings');
  return (list as string[]).map((v) => v.trim());
}
