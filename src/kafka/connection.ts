// How offsetctl reaches a Kafka cluster (not Kafka Connect): bootstrap servers plus the security
// settings, turned into @platformatic/kafka client options. One connection layer for the
// operator commands (positions by time, log start/end) and the engine's AsyncAPI steps.
// Settings carry secrets already resolved from their references (env var, file); they are never
// printed: describeKafka() is what messages may show.
import { readFileSync } from 'node:fs';
import type { BaseOptions } from '@platformatic/kafka';

export type KafkaSecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
export type KafkaSaslMechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

export interface KafkaSettings {
  /** `host:port` entries. */
  bootstrap: string[];
  securityProtocol?: KafkaSecurityProtocol;
  sasl?: { mechanism: KafkaSaslMechanism; username: string; password: string };
  /** PEM file paths; `insecure` skips certificate verification (warned about by the caller). */
  tls?: { ca?: string; cert?: string; key?: string; insecure?: boolean };
}

/** Client options for @platformatic/kafka's Admin, Producer and Consumer. */
export function clientOptions(settings: KafkaSettings, clientId: string): BaseOptions {
  const protocol = settings.securityProtocol ?? (settings.sasl ? 'SASL_PLAINTEXT' : 'PLAINTEXT');
  const options: BaseOptions = { clientId, bootstrapBrokers: settings.bootstrap, connectTimeout: 10_000, requestTimeout: 30_000, retries: 3 };
  if (protocol === 'SSL' || protocol === 'SASL_SSL') {
    const t = settings.tls ?? {};
    options.tls = {
      ...(t.ca ? { ca: readFileSync(t.ca) } : {}),
      ...(t.cert ? { cert: readFileSync(t.cert) } : {}),
      ...(t.key ? { key: readFileSync(t.key) } : {}),
      rejectUnauthorized: t.insecure !== true,
    };
  }
  if ((protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL') && settings.sasl) {
    options.sasl = { mechanism: settings.sasl.mechanism, username: settings.sasl.username, password: settings.sasl.password };
  }
  return options;
}

/** What may be shown about a connection: servers and protocol, never credentials. */
export function describeKafka(settings: KafkaSettings): string {
  const protocol = settings.securityProtocol ?? (settings.sasl ? 'SASL_PLAINTEXT' : 'PLAINTEXT');
  const who = settings.sasl ? ` as ${settings.sasl.username} (${settings.sasl.mechanism})` : '';
  return `${settings.bootstrap.join(',')} over ${protocol}${who}`;
}

/**
 * Kafka access as the operator configured it (flags, context), before a command knows which
 * cluster it needs: a connector may name its own (consumer override, MirrorMaker's source).
 */
export interface KafkaAccess {
  /** Configured bootstrap servers (--bootstrap, else OFFSETCTL_BOOTSTRAP, else the context's); undefined when none. */
  bootstrap: string[] | undefined;
  /** True when --bootstrap (or OFFSETCTL_BOOTSTRAP) was given: it wins over the servers a connector names. */
  bootstrapFromFlag: boolean;
  /** Client settings for these servers; secrets are read (and registered for redaction) only here. */
  settingsFor(bootstrap: string[]): Promise<KafkaSettings>;
}
