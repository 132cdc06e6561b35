// Secrets never reach output, logs, reports or the store. Two mechanisms: header names that
// always carry credentials are masked, and any registered secret value is masked wherever it
// appears in text (a password echoed in an error body, a token in a URL).

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key', 'x-auth-token']);
export const MASK = '***';

const registered = new Set<string>();

/** Remember a secret value so `redactText` masks it everywhere. Values shorter than 4 characters are ignored (too many false hits). */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 4) {
    registered.add(value);
    registered.add(Buffer.from(value).toString('base64'));
  }
}

/**
 * A secret that is a plain word (letters only, like "secret") is masked where it stands as a
 * word, so "references to secrets only" keeps its words; any other secret (digits, symbols:
 * what real passwords and tokens look like) is masked wherever it appears, even inside a longer
 * string.
 */
const wordPatterns = new Map<string, RegExp>();

export function redactText(text: string): string {
  let out = text;
  for (const secret of registered) {
    if (!out.includes(secret)) continue;
    if (/^\p{L}+$/u.test(secret)) {
      let re = wordPatterns.get(secret);
      if (!re) wordPatterns.set(secret, (re = new RegExp(`(?<![\\p{L}\\p{N}_])${secret}(?![\\p{L}\\p{N}_])`, 'gu')));
      out = out.replace(re, MASK);
    } else out = out.split(secret).join(MASK);
  }
  return out;
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
