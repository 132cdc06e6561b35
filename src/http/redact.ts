// Secrets never reach output, logs, reports or the store. Three mechanisms: header names that
// always carry credentials are masked; any registered secret value is masked wherever it appears
// in text (a password echoed in an error body, a token in a URL), in every form it travels in
// (plain, base64, base64url, URL-encoded, JSON-escaped; for Basic auth also the base64 of
// user:password that the Authorization header carries); and a credential that an error body
// echoes after "Authorization:" or "Basic"/"Bearer" is masked even when it was cut short.

import { AsyncLocalStorage } from 'node:async_hooks';

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key', 'x-auth-token']);
export const MASK = '***';

interface Secrets {
  registered: Set<string>;
  /** The registered forms, longest first, so a long form is masked whole before a shorter one inside it. */
  ordered: string[];
}
/** The process's secrets; a command run in a test's process has its own (withOwnSecrets). */
const processSecrets: Secrets = { registered: new Set(), ordered: [] };
const scoped = new AsyncLocalStorage<Secrets>();
const secrets = (): Secrets => scoped.getStore() ?? processSecrets;

/**
 * Runs `fn` with a registry of its own: what it registers is masked in its own output and is gone
 * after it (main(argv, io): two commands run in one test process do not share secrets).
 */
export function withOwnSecrets<T>(fn: () => T): T {
  return scoped.run({ registered: new Set(), ordered: [] }, fn);
}

function add(form: string): void {
  const own = secrets();
  if (form.length < 4 || own.registered.has(form)) return;
  own.registered.add(form);
  own.ordered = [...own.registered].sort((a, b) => b.length - a.length);
}

/** The forms a value takes in text that a server, a proxy or a log may echo back. */
function formsOf(value: string): string[] {
  const base64 = Buffer.from(value).toString('base64');
  return [
    value,
    base64,
    base64.replace(/=+$/, ''), // an echo that dropped the padding
    Buffer.from(value).toString('base64url'),
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'), // form encoding
    encodeURIComponent(base64),
    JSON.stringify(value).slice(1, -1), // inside a JSON string: quotes and backslashes escaped
  ];
}

/** Remember a secret value so `redactText` masks it everywhere (also base64- and URL-encoded). Values shorter than 4 characters are ignored (too many false hits). */
export function registerSecret(value: string | undefined): void {
  if (!value || value.length < 4) return;
  for (const form of formsOf(value)) add(form);
}

/** A Basic credential: the password, and user:password in every form (the header's base64 above all). */
export function registerBasicCredential(user: string, password: string): void {
  registerSecret(password);
  if (password.length >= 4) for (const form of formsOf(`${user}:${password}`)) add(form);
}

/**
 * A secret that is a plain word (letters only, like "secret") is masked where it stands as a
 * word, so "references to secrets only" keeps its words; any other secret (digits, symbols:
 * what real passwords and tokens look like) is masked wherever it appears, even inside a longer
 * string.
 */
const wordPatterns = new Map<string, RegExp>();

// "Authorization: <scheme> <credentials>" as a header dump, a JSON member or a log line echoes it.
const AUTH_ECHO = /((?:proxy-)?authorization\\?["']?\s*[:=]\s*\\?["']?\s*)(?:(basic|bearer|digest|negotiate|token)\s+)?[^\s"'\\,;)}\]]+/gi;
// "Basic <base64>" (also URL-encoded: "Basic%20…%3D") whose text decodes to user:password, also
// when cut short ("Basic b3BzOlMz…").
const BASIC_ECHO = /\b(Basic(?:\s+|%20|\+))((?:[A-Za-z0-9+/]|%2B|%2F){6,}(?:=|%3D){0,2})/gi;
// "Bearer <token>": a token is long; "Bearer tokens" in prose is not one.
const BEARER_ECHO = /\b(Bearer(?:\s+|%20|\+))((?:[A-Za-z0-9._~+/-]|%2B|%2F){16,}(?:=|%3D)*)/gi;

function maskEchoedCredentials(text: string): string {
  let out = text;
  if (/authorization/i.test(out)) out = out.replace(AUTH_ECHO, (_m, head: string, scheme: string | undefined) => `${head}${scheme ? `${scheme} ` : ''}${MASK}`);
  if (/basic/i.test(out))
    out = out.replace(BASIC_ECHO, (m, head: string, b64: string) =>
      Buffer.from(decodeURIComponent(b64), 'base64').toString('latin1').includes(':') ? `${head}${MASK}` : m,
    );
  if (/bearer/i.test(out)) out = out.replace(BEARER_ECHO, (_m, head: string) => `${head}${MASK}`);
  return out;
}

export function redactText(text: string): string {
  let out = text;
  for (const secret of secrets().ordered) {
    if (!out.includes(secret)) continue;
    if (/^\p{L}+$/u.test(secret)) {
      let re = wordPatterns.get(secret);
      if (!re) wordPatterns.set(secret, (re = new RegExp(`(?<![\\p{L}\\p{N}_])${secret}(?![\\p{L}\\p{N}_])`, 'gu')));
      out = out.replace(re, MASK);
    } else out = out.split(secret).join(MASK);
  }
  return maskEchoedCredentials(out);
}

/** `text` redacted, then cut to `max` characters: cutting first could leave the start of a secret that no longer matches. */
export function redactAndClip(text: string, max: number): string {
  const clean = redactText(text);
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

export function redactHeaders(headers: Record<string, string | string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) {
    out[k] = SECRET_HEADERS.has(k.toLowerCase()) ? MASK : Array.isArray(v) ? v.map(redactText) : redactText(v);
  }
  return out;
}

/** Deep copy of a JSON-like value with registered secrets masked in every string. */
export function redactValue<T>(value: T): T {
  if (typeof value === 'string') return redactText(value) as T;
  if (Array.isArray(value)) return value.map(redactValue) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactValue(v);
    return out as T;
  }
  return value;
}
