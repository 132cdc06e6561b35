// The first new records on a set of topics, for verify by data after a change (src/ops/verify):
// each topic's end offsets are marked when the watch starts (a topic that does not exist yet is
// read from its start once it appears), then read with plain Fetch requests through the engine's
// Kafka transport (messaging.ts) — no consumer group is joined, nothing is committed. Also the one
// record at a given offset: what a sink consumed first from the position it was resumed at.
import type { MessageEndpoint } from '../arazzo/index.js';
import type { KafkaSettings } from './connection.js';
import { createKafkaTransport } from './messaging.js';

export interface SeenRecord {
  topic: string;
  partition: number;
  offset: number;
  /** The record's own timestamp (ms since 1970). */
  timestampMs: number;
  /** When this client read it (ms since 1970). */
  seenAtMs: number;
}

/** What messaging.ts's mark() returns for Kafka (an opaque StartPosition elsewhere). */
interface KafkaStart {
  offsets: Map<number, bigint>;
  fromStart: boolean;
}

function endpointFor(settings: KafkaSettings, topic: string): MessageEndpoint {
  const protocol = settings.securityProtocol === 'SSL' || settings.securityProtocol === 'SASL_SSL' ? 'kafka-secure' : 'kafka';
  return { source: 'verify', server: 'kafka', protocol, bootstrap: settings.bootstrap, address: topic };
}

function transportFor(settings: KafkaSettings): ReturnType<typeof createKafkaTransport> {
  const { bootstrap: _servers, ...security } = settings;
  return createKafkaTransport({ settings: security, clientId: 'offsetctl-verify' });
}

/** Watches `topics` from their end offsets now; `first()` is the first new record of each topic seen so far. */
export class NewRecordWatch {
  readonly #seen = new Map<string, SeenRecord>();
  readonly #stop = new AbortController();
  readonly #transport: ReturnType<typeof createKafkaTransport>;
  readonly #reading: Promise<unknown>;
  /** A topic that could not be read (the error's first line), for the account. */
  readonly errors: string[] = [];

  private constructor(transport: ReturnType<typeof createKafkaTransport>, reading: (watch: NewRecordWatch) => Promise<unknown>) {
    this.#transport = transport;
    this.#reading = reading(this);
  }

  static async start(settings: KafkaSettings, topics: readonly string[]): Promise<NewRecordWatch> {
    const transport = transportFor(settings);
    const marks = await Promise.all(topics.map(async (topic) => ({ topic, from: await transport.mark(endpointFor(settings, topic)) })));
    return new NewRecordWatch(transport, (watch) => Promise.all(marks.map(({ topic, from }) => watch.#read(settings, topic, from))));
  }

  async #read(settings: KafkaSettings, topic: string, from: unknown): Promise<void> {
    try {
      for await (const record of this.#transport.receive(endpointFor(settings, topic), from, this.#stop.signal)) {
        const seen = { topic, partition: record.partition, offset: Number(record.offset), timestampMs: Number(record.timestamp), seenAtMs: Date.now() };
        this.#seen.set(topic, seen);
        return;
      }
    } catch (err) {
      if (!this.#stop.signal.aborted) this.errors.push(`${topic}: ${String((err as Error).message).split('\n')[0]}`);
    }
  }

  first(): SeenRecord[] {
    return [...this.#seen.values()].sort((a, b) => a.seenAtMs - b.seenAtMs);
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#reading.catch(() => undefined);
    await this.#transport.close();
  }
}

/** The record at `offset` of one partition (undefined when none arrives within `waitMs`). */
export async function recordAt(settings: KafkaSettings, topic: string, partition: number, offset: number, waitMs = 5000): Promise<SeenRecord | undefined> {
  const transport = transportFor(settings);
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), waitMs);
  try {
    const endpoint = endpointFor(settings, topic);
    const marked = (await transport.mark(endpoint)) as KafkaStart;
    // Every other partition from its end (receive reads a partition it has no position for from 0).
    const from: KafkaStart = { offsets: new Map(marked.offsets), fromStart: false };
    from.offsets.set(partition, BigInt(offset));
    for await (const record of transport.receive(endpoint, from, stop.signal)) {
      if (record.partition !== partition) continue;
      return { topic, partition, offset: Number(record.offset), timestampMs: Number(record.timestamp), seenAtMs: Date.now() };
    }
    return undefined;
  } finally {
    clearTimeout(timer);
    await transport.close();
  }
}
