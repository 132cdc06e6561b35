// Connector secrets (literal PASSWORD-typed config values) out of everything a move writes down:
// the events the journal stores and the face shows, in every form they travel in — as is, as
// they appear inside a JSON body (escaped quotes and backslashes), URL-encoded and base64. The
// workflow run itself gets the real values; only what is written down is masked.
import { MASK } from '../../http/redact.js';

/** Every form of each secret a text may carry it in, longest first (so no form leaves a piece of another). */
export function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (s.length < 4) continue;
    forms.add(s);
    forms.add(JSON.stringify(s).slice(1, -1));
    forms.add(JSON.stringify(JSON.stringify(s).slice(1, -1)).slice(1, -1));
    forms.add(encodeURIComponent(s));
    forms.add(Buffer.from(s).toString('base64'));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

export function maskText(text: string, forms: readonly string[]): string {
  let out = text;
  for (const f of forms) if (out.includes(f)) out = out.split(f).join(MASK);
  return out;
}

/** A deep copy with every string masked (keys too: a config key never is a secret, but a value may be used as one). */
export function maskDeep<T>(value: T, forms: readonly string[]): T {
  if (forms.length === 0) return value;
  if (typeof value === 'string') return maskText(value, forms) as T;
  if (Array.isArray(value)) return value.map((v) => maskDeep(v, forms)) as T;
  if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = maskDeep(v, forms);
    return out as T;
  }
  return value;
}
