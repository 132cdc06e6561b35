// Which values of a connector's configuration are secrets, so that an export leaves them out,
// the journal and snapshots never hold them, and an import asks for them. A key is a secret when
// the plugin's own configuration definition (GET /connector-plugins/{class}/config) types it
// PASSWORD; keys the definition does not list (client overrides, converters, transforms) are
// secrets when their name is one Kafka's clients and common converters type PASSWORD. A value
// that is a config-provider reference (`${file:/etc/secrets.properties:password}`,
// `${env:DB_PASSWORD}`) is not a secret: it is what the operator should store, and it stays.

/** One entry of GET /connector-plugins/{class}/config (the fields offsetctl reads). */
export interface ConfigKeyInfo {
  name: string;
  type: string;
}

/** Connect's ConfigTransformer pattern: `${provider:path:key}` or `${provider:key}`. */
const REFERENCE = /\$\{[^}]*?:(?:[^}]*?:)?[^}]*?\}/;

/**
 * Key names (the last part after any prefix) that Kafka's clients, Schema Registry converters and
 * MirrorMaker type PASSWORD; a key the plugin does not define is judged by its name.
 */
const PASSWORD_NAMES = [
  /(^|\.)ssl\.(key|keystore|truststore)\.password$/,
  /(^|\.)ssl\.keystore\.(key|certificate\.chain)$/,
  /(^|\.)ssl\.truststore\.certificates$/,
  /(^|\.)sasl\.jaas\.config$/,
  /(^|\.)sasl\.oauthbearer\.client\.credentials\.client\.secret$/,
  /(^|\.)sasl\.oauthbearer\.assertion\.private\.key\.passphrase$/,
  /(^|\.)basic\.auth\.user\.info$/,
  /(^|\.)bearer\.auth\.token$/,
  // Anything else named like a password or a secret.
  /(^|[._-])(password|passwd|passphrase|secret|api[._-]?key|access[._-]?key|private[._-]?key|token)$/i,
];

export interface ConfigSecrets {
  /** Keys whose value is a literal secret (left out of exports, masked in the journal). */
  literal: string[];
  /** Secret keys whose value is a config-provider reference (kept as is). */
  references: string[];
}

export function isReference(value: string): boolean {
  return REFERENCE.test(value);
}

/** The secret keys of `config`, by the plugin's definition and, beyond it, by name. */
export function configSecrets(config: Record<string, string>, definition: readonly ConfigKeyInfo[]): ConfigSecrets {
  const types = new Map(definition.map((k) => [k.name, k.type.toUpperCase()]));
  const literal: string[] = [];
  const references: string[] = [];
  for (const [key, value] of Object.entries(config)) {
    const declared = types.get(key);
    const secret = declared !== undefined ? declared === 'PASSWORD' : PASSWORD_NAMES.some((re) => re.test(key));
    if (!secret || value === '') continue;
    (isReference(value) ? references : literal).push(key);
  }
  return { literal: literal.sort(), references: references.sort() };
}

/** `config` without the given keys (an export without --include-secrets). */
export function withoutKeys(config: Record<string, string>, keys: readonly string[]): Record<string, string> {
  const drop = new Set(keys);
  return Object.fromEntries(Object.entries(config).filter(([k]) => !drop.has(k)));
}

/** The values of the given keys, for masking wherever the configuration would be written down. */
export function secretValues(config: Record<string, string>, keys: readonly string[]): string[] {
  return keys.map((k) => config[k]).filter((v): v is string => typeof v === 'string' && v.length > 0);
}

/** The placeholder stored instead of a secret (the journal, a run's inputs). */
export const SECRET_PLACEHOLDER = '<secret: not stored by offsetctl>';

/** `config` with the secret keys' values replaced by the placeholder: what is stored of it. */
export function maskedConfig(config: Record<string, string>, keys: readonly string[]): Record<string, string> {
  const mask = new Set(keys);
  return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, mask.has(k) ? SECRET_PLACEHOLDER : v]));
}
