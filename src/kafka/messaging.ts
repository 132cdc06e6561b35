// The engine's MessageTransport over Kafka (@platformatic/kafka), for Arazzo 1.1 AsyncAPI steps.
// - send: one record through an idempotent-free producer with acks=all; resolves on the ack.
// - mark: the end offset of every partition of the topic (a topic that does not exist yet marks
//   as "from the beginning", so its first records are not missed).
// - receive: plain Fetch requests to each partition's leader from the marked offsets onwards.
//   No consumer group is joined and nothing is committed: the cluster keeps no trace of a run.
// Connections: bootstrap from the AsyncAPI server (or --server), security from the same
// KafkaSettings as the operator commands (src/kafka/connection.ts).
import { Consumer, Producer } from '@platformatic/kafka';
import type { IncomingMessage, MessageEndpoint, MessageTransport, OutgoingMessage, StartPosition } from '../arazzo/messaging.js';
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
}

interface Clients {
  producer?: Producer;
  consumer: Consumer;
}

export function createKafkaTransport(options: KafkaTransportOptions = {}): MessageTransport {
  const clients = new Map<string, Clients>();
  const clientId = options.clientId ?? 'offsetctl-arazzo';
  const fetchWaitMs = options.fetchWaitMs ?? 250;

  const settingsFor = (endpoint: MessageEndpoint): KafkaSettings => {
    const base = options.settings ?? {};
    // `kafka-secure` without explicit settings means TLS.
    const securityProtocol = base.securityProtocol ?? (endpoint.protocol === 'kafka-secure' ? (base.sasl ? 'SASL_SSL' : 'SSL') : undefined);
    return { ...base, bootstrap: endpoint.bootstrap, ...(securityProtocol ? { securityProtocol } : {}) };
  };

  const clientsFor = (endpoint: MessageEndpoint): Clients => {
    if (endpoint.bootstrap.length === 0) throw new Error(`server "${endpoint.server}" of source "${endpoint.source}" gives no bootstrap servers; pass --server ${endpoint.source}=host:port`);
    const key = `${endpoint.bootstrap.join(',')}|${endpoint.protocol}`;
    let entry = clients.get(key);
    if (!entry) {
      const base = clientOptions(settingsFor(endpoint), clientId);
      // A group id is required by the client's constructor; no group is ever joined (only Metadata, ListOffsets and Fetch are sent).
      entry = { consumer: new Consumer({ ...base, groupId: `${clientId}-unused`, autocommit: false }) };
      clients.set(key, entry);
    }
    return entry;
  };

  const topicMetadata = async (consumer: Consumer, topic: string): Promise<{ id: string; partitions: Array<{ leader: number; leaderEpoch: number }> } | undefined> => {
    try {
      const metadata = await consumer.metadata({ topics: [topic], forceUpdate: true, autocreateTopics: false });
      return metadata.topics.get(topic);
    } catch (err) {
      if (/UNKNOWN_TOPIC|does not exist|unknown topic/i.test(String((err as Error).message) + JSON.stringify((err as { errors?: unknown }).errors ?? ''))) return undefined;
      throw err;
    }
  };

  return {
    async mark(endpoint: MessageEndpoint): Promise<StartPosition> {
      const { consumer } = clientsFor(endpoint);
      const topic = await topicMetadata(consumer, endpoint.address);
      if (!topic) return { offsets: new Map(), fromStart: true } satisfies KafkaStart;
      const listed = await consumer.listOffsets({ topics: [endpoint.address] });
      const ends = listed.get(endpoint.address) ?? [];
      return { offsets: new Map(ends.map((o, i) => [i, o])), fromStart: false } satisfies KafkaStart;
    },

    async send(endpoint: MessageEndpoint, message: OutgoingMessage): Promise<{ partition: number; offset: string }> {
      const entry = clientsFor(endpoint);
      entry.producer ??= new Producer({ ...clientOptions(settingsFor(endpoint), clientId), acks: -1, autocreateTopics: false });
      const headers = new Map<Buffer, Buffer>(Object.entries(message.headers).map(([k, v]) => [Buffer.from(k), Buffer.from(v)]));
      const result = await entry.producer.send({
        messages: [{ topic: endpoint.address, value: message.value, headers, ...(message.key !== undefined ? { key: Buffer.from(message.key) } : {}) }],
      });
      const ack = result.offsets?.[0];
      return { partition: ack?.partition ?? -1, offset: String(ack?.offset ?? '') };
    },

    async *receive(endpoint: MessageEndpoint, from: StartPosition, signal: AbortSignal): AsyncIterable<IncomingMessage> {
      const { consumer } = clientsFor(endpoint);
      const start = from as KafkaStart;
      const positions = new Map(start.offsets);
      while (!signal.aborted) {
        const topic = await topicMetadata(consumer, endpoint.address);
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
      await Promise.allSettled(all.flatMap((c) => [c.consumer.close(true), ...(c.producer ? [c.producer.close(true)] : [])]));
    },
  };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
