// The engine's MessageTransport over Kafka (@platformatic/kafka), for Arazzo 1.1 AsyncAPI steps.
// - send: one record through an idempotent-free producer with acks=all; resolves on the ack.
//   A topic that does not exist yet is left to the broker, as the Java producer, librdkafka and
//   kafkajs do: a broker that creates topics on first use (auto.create.topics.enable) creates it
//   and the send goes on; one that does not refuses the send at once, naming the topic and how to
//   create it (the broker's setting is read with DescribeConfigs; where that is not allowed, the
//   send asks for the topic and waits, as a producer does, then says what may be wrong).
// - mark: the end offset of every partition of the topic (a topic that does not exist yet marks
//   as "from the beginning", so its first records are not missed).
// - receive: plain Fetch requests to each partition's leader from the marked offsets onwards.
//   No consumer group is joined and nothing is committed: the cluster keeps no trace of a run.
// Connections: bootstrap from the AsyncAPI server (or --server), security from the same
// KafkaSettings as the operator commands (src/kafka/connection.ts).
import type { Admin, Consumer, Producer } from '@platformatic/kafka';
import { kafkaClient } from './load.js';
import type { IncomingMessage, MessageEndpoint, MessageTransport, OutgoingMessage, StartPosition } from '../arazzo/index.js';
import { clientOptions, type KafkaSettings } from './connection.js';

/** Partition → next offset to read; `fromStart` when the topic did not exist when marked. */
interface KafkaStart {
  offsets: Map<number, bigint>;
  fromStart: boolean;
}

export interface KafkaTransportOptions {
  /** Security (and anything else but bootstrap) for the clusters steps reach; bootstrap comes from each endpoint. */
  settings?: Omit<KafkaSettings, 'bootstrap'>;
  clientId?: string;
  /** How long one fetch waits for data at the broker (ms). Default 250. */
  fetchWaitMs?: number;
  /** How long a send waits for a broker to create a missing topic (ms), unless the step's timeout ends it first. Default 30,000. */
  topicCreationWaitMs?: number;
}

interface Clients {
  producer?: Producer;
  consumer: Consumer;
  /** Existence checks, one request each: the library retries an unknown topic 3 times, 1 s apart. */
  probe: Admin;
  /** Topics a send found (or had created): they are not checked again. */
  ready: Set<string>;
  /** The broker's auto.create.topics.enable: undefined when it cannot be read (no DescribeConfigs permission). */
  autoCreate?: Promise<boolean | undefined>;
}

type TopicMetadata = { id: string; partitions: Array<{ leader: number; leaderEpoch: number }> };

const UNKNOWN_TOPIC = /UNKNOWN_TOPIC|does not exist|unknown topic/i;

function isUnknownTopic(err: unknown): boolean {
  return UNKNOWN_TOPIC.test(String((err as Error).message) + JSON.stringify((err as { errors?: unknown }).errors ?? ''));
}

export function createKafkaTransport(options: KafkaTransportOptions = {}): MessageTransport {
  const clients = new Map<string, Clients>();
  const clientId = options.clientId ?? 'offsetctl-arazzo';
  const fetchWaitMs = options.fetchWaitMs ?? 250;
  const topicCreationWaitMs = options.topicCreationWaitMs ?? 30_000;

  const settingsFor = (endpoint: MessageEndpoint): KafkaSettings => {
    const base = options.settings ?? {};
    // `kafka-secure` without explicit settings means TLS.
    const securityProtocol = base.securityProtocol ?? (endpoint.protocol === 'kafka-secure' ? (base.sasl ? 'SASL_SSL' : 'SSL') : undefined);
    return { ...base, bootstrap: endpoint.bootstrap, ...(securityProtocol ? { securityProtocol } : {}) };
  };

  const clientsFor = async (endpoint: MessageEndpoint): Promise<Clients> => {
    if (endpoint.bootstrap.length === 0) throw new Error(`server "${endpoint.server}" of source "${endpoint.source}" gives no bootstrap servers; pass --server ${endpoint.source}=host:port`);
    // The library first: from here to clients.set nothing awaits, so two steps asking at once for
    // the same endpoint share one entry (an await between get and set would make two, one never closed).
    const { Admin, Consumer } = await kafkaClient();
    const key = `${endpoint.bootstrap.join(',')}|${endpoint.protocol}`;
    let entry = clients.get(key);
    if (!entry) {
      const base = clientOptions(settingsFor(endpoint), clientId);
      entry = {
        // A group id is required by the client's constructor; no group is ever joined (only Metadata, ListOffsets and Fetch are sent).
        consumer: new Consumer({ ...base, groupId: `${clientId}-unused`, autocommit: false }),
        probe: new Admin({ ...base, retries: 0 }),
        ready: new Set(),
      };
      clients.set(key, entry);
    }
    return entry;
  };

  /**
   * The topic's metadata, or undefined when it does not exist; `create` lets the broker create it
   * (a producer's request). An unknown topic is an answer, not a reason to retry; a network
   * error is tried twice more.
   */
  const topicMetadata = async (entry: Clients, topic: string, create = false): Promise<TopicMetadata | undefined> => {
    for (let attempt = 0; ; attempt++) {
      try {
        const metadata = await entry.probe.metadata({ topics: [topic], forceUpdate: true, autocreateTopics: create });
        return metadata.topics.get(topic);
      } catch (err) {
        if (isUnknownTopic(err)) return undefined;
        if (attempt >= 2) throw err;
        await pause(250 * (attempt + 1));
      }
    }
  };

  /** auto.create.topics.enable of a broker of the cluster (the one answering), or undefined when it cannot be read. */
  const brokerAutoCreates = async (entry: Clients): Promise<boolean | undefined> => {
    try {
      const { brokers } = await entry.probe.metadata({ topics: [] });
      const [node] = brokers.keys();
      if (node === undefined) return undefined;
      const [described] = await entry.probe.describeConfigs({ resources: [{ resourceType: (await kafkaClient()).ConfigResourceTypes.BROKER, resourceName: String(node), configurationKeys: ['auto.create.topics.enable'] }] });
      const value = described?.configs.find((c) => c.name === 'auto.create.topics.enable')?.value;
      return value === 'true' ? true : value === 'false' ? false : undefined;
    } catch {
      return undefined; // e.g. no DescribeConfigs permission: find out by asking for the topic
    }
  };

  /** Makes sure the topic exists before a send: found, or created by the broker on first use. */
  const ensureTopic = async (entry: Clients, endpoint: MessageEndpoint, signal: AbortSignal | undefined): Promise<void> => {
    const topic = endpoint.address;
    if (entry.ready.has(topic) || (await topicMetadata(entry, topic)) !== undefined) {
      entry.ready.add(topic);
      return;
    }
    const where = endpoint.bootstrap.join(',');
    const create = `create it first (kafka-topics.sh --bootstrap-server ${where} --create --topic ${topic}, or your platform's tooling)`;
    const autoCreate = await (entry.autoCreate ??= brokerAutoCreates(entry));
    if (autoCreate === false) {
      throw new Error(`topic "${topic}" does not exist, and the broker at ${where} does not create topics on first use (auto.create.topics.enable=false); ${create}`);
    }
    // As a producer does: ask for the topic with auto-creation allowed until it has leaders.
    const deadline = Date.now() + topicCreationWaitMs;
    for (;;) {
      const found = await topicMetadata(entry, topic, true);
      if (found && found.partitions.length > 0 && found.partitions.every((p) => p !== undefined && p.leader >= 0)) break;
      if (signal?.aborted) throw new Error(`topic "${topic}" was still being created when the send was stopped`);
      if (Date.now() > deadline) {
        throw new Error(
          `topic "${topic}" does not exist, and the broker at ${where} did not create it within ${topicCreationWaitMs / 1000} s (${autoCreate ? 'it creates topics on first use, but not this one: check the name and this client\'s Create permission' : 'it may not create topics on first use, or this client may not be allowed to'}); ${create}`,
        );
      }
      await pause(100, signal);
    }
    entry.ready.add(topic);
  };

  return {
    async mark(endpoint: MessageEndpoint): Promise<StartPosition> {
      const entry = await clientsFor(endpoint);
      const { consumer } = entry;
      const topic = await topicMetadata(entry, endpoint.address);
      if (!topic) return { offsets: new Map(), fromStart: true } satisfies KafkaStart;
      const listed = await consumer.listOffsets({ topics: [endpoint.address] });
      const ends = listed.get(endpoint.address) ?? [];
      return { offsets: new Map(ends.map((o, i) => [i, o])), fromStart: false } satisfies KafkaStart;
    },

    async send(endpoint: MessageEndpoint, message: OutgoingMessage, signal?: AbortSignal): Promise<{ partition: number; offset: string }> {
      const entry = await clientsFor(endpoint);
      await ensureTopic(entry, endpoint, signal);
      const { Producer } = await kafkaClient();
      entry.producer ??= new Producer({ ...clientOptions(settingsFor(endpoint), clientId), acks: -1, autocreateTopics: false });
      const headers = new Map<Buffer, Buffer>(Object.entries(message.headers).map(([k, v]) => [Buffer.from(k), Buffer.from(v)]));
      const result = await entry.producer.send({
        messages: [{ topic: endpoint.address, value: message.value, headers, ...(message.key !== undefined ? { key: Buffer.from(message.key) } : {}) }],
      });
      const ack = result.offsets?.[0];
      return { partition: ack?.partition ?? -1, offset: String(ack?.offset ?? '') };
    },

    async *receive(endpoint: MessageEndpoint, from: StartPosition, signal: AbortSignal): AsyncIterable<IncomingMessage> {
      const entry = await clientsFor(endpoint);
      const { consumer } = entry;
      const start = from as KafkaStart;
      const positions = new Map(start.offsets);
      while (!signal.aborted) {
        // The probe answers for a missing topic at once; the consumer's metadata (which fetch needs)
        // is asked once the topic exists, and then alone: one request per poll, as before.
        if (!entry.ready.has(endpoint.address) && (await topicMetadata(entry, endpoint.address)) !== undefined) entry.ready.add(endpoint.address);
        const topic = entry.ready.has(endpoint.address) ? (await consumer.metadata({ topics: [endpoint.address], forceUpdate: true, autocreateTopics: false })).topics.get(endpoint.address) : undefined;
        if (!topic) {
          await pause(fetchWaitMs, signal);
          continue;
        }
        const byLeader = new Map<number, number[]>();
        topic.partitions.forEach((p, i) => {
          if (!positions.has(i)) positions.set(i, 0n); // new partition, or a topic created after the mark
          byLeader.set(p.leader, [...(byLeader.get(p.leader) ?? []), i]);
        });
        for (const [node, partitions] of byLeader) {
          if (signal.aborted) return;
          const response = await consumer.fetch({
            node,
            maxWaitTime: fetchWaitMs,
            minBytes: 1,
            maxBytes: 8 * 1024 * 1024,
            topics: [{ topicId: topic.id, partitions: partitions.map((i) => ({ partition: i, currentLeaderEpoch: topic.partitions[i]!.leaderEpoch, fetchOffset: positions.get(i)!, lastFetchedEpoch: -1, partitionMaxBytes: 1024 * 1024 })) }],
          });
          for (const t of response.responses) {
            for (const p of t.partitions) {
              let next = positions.get(p.partitionIndex) ?? 0n;
              for (const batch of p.records ?? []) {
                for (const record of batch.records) {
                  const offset = batch.firstOffset + BigInt(record.offsetDelta);
                  if (offset < next) continue; // a batch may start before the position
                  next = offset + 1n;
                  positions.set(p.partitionIndex, next);
                  const headers: Record<string, string> = {};
                  for (const [k, v] of record.headers) if (k) headers[k.toString('utf8')] = v ? v.toString('utf8') : '';
                  const incoming: IncomingMessage = { partition: p.partitionIndex, offset: String(offset), headers, timestamp: String(batch.firstTimestamp + record.timestampDelta) };
                  if (record.key) incoming.key = record.key;
                  if (record.value) incoming.value = record.value;
                  yield incoming;
                  if (signal.aborted) return;
                }
              }
            }
          }
        }
      }
    },

    async close(): Promise<void> {
      const all = [...clients.values()];
      clients.clear();
      await Promise.allSettled(all.flatMap((c) => [c.consumer.close(true), c.probe.close(), ...(c.producer ? [c.producer.close(true)] : [])]));
    },
  };
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
