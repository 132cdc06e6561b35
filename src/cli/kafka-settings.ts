// How offsetctl reaches Kafka itself (not Kafka Connect): bootstrap servers and security from
// flags or the context. Secrets are references (an environment variable, a file), read only when
// a command really connects, and registered for redaction before anything can print them.
// Credentials follow the rule of the Connect URL: a context's Kafka credentials go only to the
// context's own bootstrap servers; a connector that names another cluster (consumer override,
// MirrorMaker's source cluster) gets credentials only from flags.
import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import type { KafkaAccess, KafkaSaslMechanism, KafkaSecurityProtocol, KafkaSettings } from '../kafka/connection.js';
import { registerSecret } from '../http/redact.js';
import { OpsError } from '../ops/errors.js';
import { currentIO, fromCwd } from './io.js';

export const SECURITY_PROTOCOLS: readonly KafkaSecurityProtocol[] = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];
export const SASL_MECHANISMS: readonly KafkaSaslMechanism[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

/** Kafka fields of a context (camelCase here, kebab-case in the YAML file). */
export interface KafkaContextFields {
  bootstrap?: string;
  kafkaSecurityProtocol?: string;
  kafkaSaslMechanism?: string;
  kafkaSaslUser?: string;
  kafkaPasswordEnv?: string;
  kafkaPasswordFile?: string;
  kafkaCa?: string;
  kafkaCert?: string;
  kafkaKey?: string;
}

/** YAML key → field, and which fields are file paths (stored absolute). */
export const KAFKA_FILE_KEYS = {
  bootstrap: 'bootstrap',
  'kafka-security-protocol': 'kafkaSecurityProtocol',
  'kafka-sasl-mechanism': 'kafkaSaslMechanism',
  'kafka-sasl-user': 'kafkaSaslUser',
  'kafka-password-env': 'kafkaPasswordEnv',
  'kafka-password-file': 'kafkaPasswordFile',
  'kafka-ca': 'kafkaCa',
  'kafka-cert': 'kafkaCert',
  'kafka-key': 'kafkaKey',
} as const satisfies Record<string, keyof KafkaContextFields>;
export const KAFKA_PATH_FIELDS: ReadonlySet<string> = new Set(['kafkaPasswordFile', 'kafkaCa', 'kafkaCert', 'kafkaKey']);
export const KAFKA_FIELDS = Object.values(KAFKA_FILE_KEYS);

/** Commander values of addKafkaOptions (same names as the context fields, plus the refused literal). */
export interface KafkaFlags extends KafkaContextFields {
  kafkaPassword?: string;
}

/** The Kafka options, for `rewind` and for `config set-context`. */
export function addKafkaOptions(cmd: Command): Command {
  return addKafkaSecurityOptions(cmd
    .option('--bootstrap <host:port,...>', 'Kafka bootstrap servers (env OFFSETCTL_BOOTSTRAP; default: the context\'s): positions (--to-time, ...) and the sink pre-flight checks'));
}

/**
 * The Kafka security options alone: `workflow run` takes its bootstrap servers from the AsyncAPI
 * servers (or `--server <source>=host:port`), and the same security flags as the operator commands.
 */
export function addKafkaSecurityOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--kafka-security-protocol <protocol>', 'Kafka security protocol').choices([...SECURITY_PROTOCOLS]))
    .addOption(new Option('--kafka-sasl-mechanism <mechanism>', 'Kafka SASL mechanism').choices([...SASL_MECHANISMS]))
    .option('--kafka-sasl-user <name>', 'Kafka SASL user; the password comes from --kafka-password-env or --kafka-password-file')
    .option('--kafka-password-env <VAR>', 'read the Kafka SASL password from this environment variable')
    .option('--kafka-password-file <path>', 'read the Kafka SASL password from this file')
    .option('--kafka-ca <pem>', 'CA certificate(s) (PEM) to trust for Kafka TLS')
    .option('--kafka-cert <pem>', 'client certificate (PEM) for Kafka mTLS')
    .option('--kafka-key <pem>', 'client private key (PEM) for Kafka mTLS')
    .addOption(new Option('--kafka-password <value>').hideHelp());
}

/** Checks the values a context may store (set-context and the config file loader). */
export function checkKafkaFields(fields: KafkaContextFields, where: string): void {
  if (fields.kafkaSecurityProtocol !== undefined && !SECURITY_PROTOCOLS.includes(fields.kafkaSecurityProtocol as KafkaSecurityProtocol)) {
    throw new OpsError('E_CONFIG', `${where}kafka-security-protocol: must be one of ${SECURITY_PROTOCOLS.join(', ')} (got ${JSON.stringify(fields.kafkaSecurityProtocol)})`, { field: 'kafka-security-protocol' });
  }
  if (fields.kafkaSaslMechanism !== undefined && !SASL_MECHANISMS.includes(fields.kafkaSaslMechanism as KafkaSaslMechanism)) {
    throw new OpsError('E_CONFIG', `${where}kafka-sasl-mechanism: must be one of ${SASL_MECHANISMS.join(', ')} (got ${JSON.stringify(fields.kafkaSaslMechanism)})`, { field: 'kafka-sasl-mechanism' });
  }
  if (fields.kafkaPasswordEnv !== undefined && fields.kafkaPasswordFile !== undefined) {
    throw new OpsError('E_CONFIG', `${where}give the Kafka password once: kafka-password-env or kafka-password-file`, { field: 'kafka-password' });
  }
  if (fields.bootstrap !== undefined) parseBootstrap(fields.bootstrap, `${where}bootstrap`);
}

/** `host:port,host:port` → entries; E_CONFIG naming the bad entry. */
export function parseBootstrap(text: string, field = '--bootstrap'): string[] {
  const list = text.split(',').map((s) => s.trim()).filter((s) => s !== '')
    // Kafka configs often carry the listener name: SASL_SSL://host:9093.
    .map((s) => s.replace(/^[A-Za-z_]+:\/\//, ''));
  if (list.length === 0) throw new OpsError('E_CONFIG', `${field}: no servers given; expected host:port[,host:port...]`, { field: 'bootstrap' });
  for (const s of list) {
    if (!/^(\[[0-9a-fA-F:.]+\]|[^\s:/]+):\d{1,5}$/.test(s)) throw new OpsError('E_CONFIG', `${field}: ${JSON.stringify(s)} is not host:port`, { field: 'bootstrap' });
  }
  return list;
}

export type { KafkaAccess };

/**
 * @example const access = resolveKafkaAccess(opts, conn.context); const s = await access.settingsFor(access.bootstrap ?? [])
 */
export function resolveKafkaAccess(flags: KafkaFlags, ctx: KafkaContextFields | undefined, env: NodeJS.ProcessEnv = currentIO().env): KafkaAccess {
  if (flags.kafkaPassword !== undefined) {
    registerSecret(flags.kafkaPassword);
    throw new OpsError('E_USAGE', '--kafka-password is not accepted: a secret on the command line is kept in shell history and visible to ps; use --kafka-password-env VAR or --kafka-password-file PATH', { field: 'kafka-password' });
  }
  checkKafkaFields(flags, '');
  // --bootstrap, else OFFSETCTL_BOOTSTRAP: both are this invocation's explicit choice (like --url
  // and OFFSETCTL_URL), so both win over the servers a connector names; the context's come last.
  const envBootstrap = env.OFFSETCTL_BOOTSTRAP === undefined || env.OFFSETCTL_BOOTSTRAP.trim() === '' ? undefined : env.OFFSETCTL_BOOTSTRAP;
  const flagBootstrap = flags.bootstrap !== undefined ? parseBootstrap(flags.bootstrap) : envBootstrap !== undefined ? parseBootstrap(envBootstrap, 'OFFSETCTL_BOOTSTRAP') : undefined;
  const ctxBootstrap = ctx?.bootstrap === undefined ? undefined : parseBootstrap(ctx.bootstrap, 'context bootstrap');
  const securityFlags = [flags.kafkaSecurityProtocol, flags.kafkaSaslMechanism, flags.kafkaSaslUser, flags.kafkaPasswordEnv, flags.kafkaPasswordFile, flags.kafkaCa, flags.kafkaCert, flags.kafkaKey].some((v) => v !== undefined);
  return {
    bootstrap: flagBootstrap ?? ctxBootstrap,
    bootstrapFromFlag: flagBootstrap !== undefined,
    async settingsFor(bootstrap) {
      // Flags win as a whole; the context's security applies only to its own servers.
      const source: KafkaContextFields = securityFlags ? flags : ctx && ctxBootstrap && sameServers(bootstrap, ctxBootstrap) ? ctx : {};
      return buildSettings(bootstrap, source, env);
    },
  };
}

/** Security settings from the flags alone (no bootstrap): what `workflow run` hands its Kafka transport. */
export async function kafkaSecurityFromFlags(flags: KafkaFlags, env: NodeJS.ProcessEnv = currentIO().env): Promise<Omit<KafkaSettings, 'bootstrap'>> {
  if (flags.kafkaPassword !== undefined) {
    registerSecret(flags.kafkaPassword);
    throw new OpsError('E_USAGE', '--kafka-password is not accepted: a secret on the command line is kept in shell history and visible to ps; use --kafka-password-env VAR or --kafka-password-file PATH', { field: 'kafka-password' });
  }
  checkKafkaFields(flags, '');
  const { bootstrap: _none, ...security } = await buildSettings([], flags, env);
  return security;
}

async function buildSettings(bootstrap: string[], f: KafkaContextFields, env: NodeJS.ProcessEnv): Promise<KafkaSettings> {
  const settings: KafkaSettings = { bootstrap };
  if (f.kafkaSecurityProtocol !== undefined) settings.securityProtocol = f.kafkaSecurityProtocol as KafkaSecurityProtocol;
  const hasPassword = f.kafkaPasswordEnv !== undefined || f.kafkaPasswordFile !== undefined;
  if (f.kafkaSaslUser !== undefined || hasPassword) {
    if (f.kafkaSaslUser === undefined) throw new OpsError('E_USAGE', '--kafka-password-env/--kafka-password-file need --kafka-sasl-user <name>', { field: 'kafka-sasl-user' });
    if (!hasPassword) throw new OpsError('E_CONFIG', `Kafka SASL user ${f.kafkaSaslUser} has no password: give --kafka-password-env VAR or --kafka-password-file PATH`, { field: 'kafka-password' });
    const password = await readSecret(f.kafkaPasswordEnv, f.kafkaPasswordFile, env);
    settings.sasl = { mechanism: (f.kafkaSaslMechanism ?? 'PLAIN') as KafkaSaslMechanism, username: f.kafkaSaslUser, password };
  }
  if ((f.kafkaCert === undefined) !== (f.kafkaKey === undefined)) {
    throw new OpsError('E_USAGE', `Kafka mTLS needs both --kafka-cert and --kafka-key`, { field: f.kafkaCert === undefined ? 'kafka-cert' : 'kafka-key' });
  }
  if (f.kafkaCa !== undefined || f.kafkaCert !== undefined) {
    settings.tls = { ...(f.kafkaCa ? { ca: f.kafkaCa } : {}), ...(f.kafkaCert ? { cert: f.kafkaCert } : {}), ...(f.kafkaKey ? { key: f.kafkaKey } : {}) };
    // TLS material without a protocol means TLS was meant.
    settings.securityProtocol ??= settings.sasl ? 'SASL_SSL' : 'SSL';
  }
  return settings;
}

async function readSecret(envName: string | undefined, file: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  let value: string;
  if (envName !== undefined) {
    const v = env[envName];
    if (v === undefined || v === '') throw new OpsError('E_CONFIG', `the Kafka password variable ${envName} is not set (or empty); export it or use --kafka-password-file`, { field: 'kafka-password' });
    value = v;
  } else {
    try {
      value = (await readFile(fromCwd(file as string), 'utf8')).replace(/\r?\n$/, '');
    } catch (err) {
      throw new OpsError('E_CONFIG', `cannot read the Kafka password file ${file} (${(err as { code?: string }).code ?? (err as Error).message})`, { field: 'kafka-password', cause: err });
    }
    if (value === '') throw new OpsError('E_CONFIG', `the Kafka password file ${file} is empty`, { field: 'kafka-password' });
  }
  registerSecret(value);
  return value;
}

function sameServers(a: readonly string[], b: readonly string[]): boolean {
  const norm = (l: readonly string[]) => l.map((s) => s.toLowerCase()).sort().join(',');
  return norm(a) === norm(b);
}

/**
 * Settings for the sink pre-flight's broker checks of an offsets file (partition counts, log
 * ends): the configured servers with their security settings, or undefined when none are
 * configured (then the checks are skipped with a warning).
 */
export async function preflightKafkaSettings(flags: KafkaFlags, ctx: KafkaContextFields | undefined, env: NodeJS.ProcessEnv = currentIO().env): Promise<KafkaSettings | undefined> {
  const access = resolveKafkaAccess(flags, ctx, env);
  return access.bootstrap ? access.settingsFor(access.bootstrap) : undefined;
}
