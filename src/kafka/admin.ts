// Read-only questions to a Kafka cluster, over @platformatic/kafka's Admin client: which cluster
// answers, its topics and partitions, each partition's log start and end, the offset of the first
// record at or after a time, and a consumer group's committed offsets and state. Offsets come back as
// numbers: Kafka Connect's REST API carries them as JSON numbers too, and no real log reaches 2^53.
// Chosen library: @platformatic/kafka 1.x (pure TypeScript, speaks the protocol versions Kafka 4.x
// kept, ListOffsets with timestamps, Node 20.19.4+); kafkajs is unmaintained, and
// @confluentinc/kafka-javascript needs a native build.
import type { Admin } from '@platformatic/kafka';
import { clientOptions, describeKafka, type KafkaSettings } from './connection.js';
import { KafkaError } from './errors.js';
import { kafkaClient } from './load.js';
import { tpKey, type TopicPartition } from './topic-partition.js';

// ListOffsets' special timestamps (the protocol's; the client names them ListOffsetTimestamps).
const LATEST = -1n;
const EARLIEST = -2n;

export { tpKey, type TopicPartition };

/** A topic's partition count and the log end of each partition (by partition number). */
export interface TopicPartitions {
  partitions: number;
  endOffsets: Map<number, number>;
}

export interface LogRange {
  /** First offset still in the log (after retention or deleteRecords). */
  start: number;
  /** The next offset to be written (the high watermark for read-uncommitted). */
  end: number;
}

/**
 * One cluster, one Admin connection; close() when done.
 *
 * @example const k = openKafka(settings); try { await k.clusterId() } finally { await k.close() }
 */
export class KafkaAdmin {
  readonly settings: KafkaSettings;
  readonly #options: ReturnType<typeof clientOptions>;
  #admin: Promise<Admin> | undefined;

  constructor(settings: KafkaSettings, clientId = 'offsetctl') {
    this.settings = settings;
    // Checked now (a bad setting is refused at once); the client is made at the first question.
    this.#options = clientOptions(settings, clientId);
  }

  #client(): Promise<Admin> {
    this.#admin ??= kafkaClient().then((k) => new k.Admin(this.#options));
    return this.#admin;
  }

  /** The cluster id from Metadata: what a Connect worker reports as `kafka_cluster_id`. */
  async clusterId(): Promise<string> {
    const md = await this.#call('read the cluster metadata', async () => (await this.#client()).metadata({ topics: [] }));
    return md.id;
  }

  /** Every topic name the cluster lists (internal topics included), sorted. */
  async listTopics(): Promise<string[]> {
    const names = await this.#call('list the topics', async () => (await this.#client()).listTopics({ includeInternals: true }));
    return names.slice().sort();
  }

  /** Partition count of each topic; a topic that does not exist is an error naming it. */
  async partitionCounts(topics: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (topics.length === 0) return out;
    const md = await this.#call(`read the partitions of ${topics.length} topic(s)`, async () => (await this.#client()).metadata({ topics: [...topics], forceUpdate: true }));
    for (const topic of topics) {
      const t = md.topics.get(topic);
      if (!t) throw new KafkaError('E_KAFKA_TOPIC_NOT_FOUND', `topic ${topic} does not exist on ${describeKafka(this.settings)}`, { field: 'topic' });
      out.set(topic, t.partitionsCount);
    }
    return out;
  }

  /**
   * The topics among `topics` that exist, with their partition count and each partition's log
   * end (the offset the next record gets); a topic that does not exist is absent from the map.
   * What the sink pre-flight needs to check offsets written from a file.
   */
  async topicPartitions(topics: readonly string[]): Promise<Map<string, TopicPartitions>> {
    const out = new Map<string, TopicPartitions>();
    if (topics.length === 0) return out;
    const existing = new Set(await this.listTopics());
    const wanted = [...new Set(topics)].filter((t) => existing.has(t));
    const counts = await this.partitionCounts(wanted);
    const partitions: TopicPartition[] = [];
    for (const topic of wanted) {
      const count = counts.get(topic) ?? 0;
      out.set(topic, { partitions: count, endOffsets: new Map() });
      for (let partition = 0; partition < count; partition++) partitions.push({ topic, partition });
    }
    const ends = await this.#listOffsets(partitions, LATEST);
    for (const { topic, partition } of partitions) {
      const end = ends.get(tpKey(topic, partition));
      if (end !== undefined) out.get(topic)?.endOffsets.set(partition, end);
    }
    return out;
  }

  /** Log start and end of each partition (ListOffsets EARLIEST and LATEST). */
  async logRanges(partitions: readonly TopicPartition[]): Promise<Map<string, LogRange>> {
    const [starts, ends] = await Promise.all([
      this.#listOffsets(partitions, EARLIEST),
      this.#listOffsets(partitions, LATEST),
    ]);
    const out = new Map<string, LogRange>();
    for (const { topic, partition } of partitions) {
      const key = tpKey(topic, partition);
      out.set(key, { start: starts.get(key) ?? 0, end: ends.get(key) ?? 0 });
    }
    return out;
  }

  /**
   * For each partition, the offset of the first record whose timestamp is ≥ `timeMs`; a partition
   * with no such record gets its end offset (ListOffsets answers −1 there).
   */
  async offsetsForTime(partitions: readonly TopicPartition[], timeMs: number): Promise<Map<string, number>> {
    // ListOffsets reads −1 as "latest", −2 as "earliest" (and other negatives as errors): a time
    // before 1970 would land somewhere else entirely. Callers refuse such times (parseTime).
    if (!Number.isSafeInteger(timeMs) || timeMs < 0) throw new RangeError(`offsetsForTime: ${timeMs} is not a timestamp at or after 1970-01-01T00:00:00Z`);
    const found = await this.#listOffsets(partitions, BigInt(timeMs));
    const missing = partitions.filter((p) => (found.get(tpKey(p.topic, p.partition)) ?? -1) < 0);
    if (missing.length > 0) {
      const ends = await this.#listOffsets(missing, LATEST);
      for (const [key, end] of ends) found.set(key, end);
    }
    return found;
  }

  /** A consumer group's committed offsets (a group that never committed gives an empty map). */
  async committedOffsets(groupId: string): Promise<Map<string, number>> {
    const groups = await this.#call(`read the offsets of group ${groupId}`, async () => (await this.#client()).listConsumerGroupOffsets({ groups: [groupId] }));
    const out = new Map<string, number>();
    for (const group of groups) {
      for (const topic of group.topics) {
        for (const p of topic.partitions) if (p.committedOffset >= 0n) out.set(tpKey(topic.name, p.partitionIndex), Number(p.committedOffset));
      }
    }
    return out;
  }

  /**
   * The state of a consumer group as the broker lists it (`STABLE`, `PREPARINGREBALANCE`,
   * `COMPLETINGREBALANCE`: it has active members; `EMPTY`, `DEAD`, or undefined when there is no
   * such group: none). A Connect sink's group in use is a sink running somewhere. ListGroups, not
   * DescribeGroups: @platformatic/kafka 1.35 throws out of its callback on the member metadata
   * Java consumers send (an uncaught exception), and the state is all this needs.
   */
  async groupState(groupId: string): Promise<string | undefined> {
    const groups = await this.#call(`list the consumer groups (for ${groupId})`, async () => (await this.#client()).listGroups({ types: ['classic', 'consumer'] }));
    return groups.get(groupId)?.state;
  }

  async close(): Promise<void> {
    const made = this.#admin;
    if (made) await (await made).close();
  }

  async #listOffsets(partitions: readonly TopicPartition[], timestamp: bigint): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (partitions.length === 0) return out;
    const byTopic = new Map<string, Array<{ partitionIndex: number; timestamp: bigint }>>();
    for (const { topic, partition } of partitions) {
      let list = byTopic.get(topic);
      if (!list) byTopic.set(topic, (list = []));
      list.push({ partitionIndex: partition, timestamp });
    }
    const topics = [...byTopic].map(([name, parts]) => ({ name, partitions: parts }));
    const answer = await this.#call('list offsets', async () => (await this.#client()).listOffsets({ topics }));
    for (const t of answer) for (const p of t.partitions) out.set(tpKey(t.name, p.partitionIndex), Number(p.offset));
    return out;
  }

  /** Client errors become refusals that say which cluster and what was being asked. */
  async #call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof KafkaError) throw err;
      const top = (err as { message?: string }).message ?? String(err);
      const inner = causes(err).filter((m) => m !== top).slice(0, 3).join('; ');
      const credentials = /SASL authentication failed/i.test(inner);
      throw new KafkaError('E_KAFKA', `Kafka at ${describeKafka(this.settings)}: cannot ${what}: ${top}${inner ? ` (${inner})` : ''}`, { cause: err, ...(credentials ? { hint: 'kafka-credentials' as const } : {}) });
    }
  }
}

/** Distinct messages of the errors inside an error (the client nests them: retries, brokers, causes). */
function causes(err: unknown, depth = 0, out: string[] = []): string[] {
  if (depth > 5 || err === null || typeof err !== 'object') return out;
  const e = err as { message?: unknown; errors?: unknown; cause?: unknown };
  if (depth > 0 && typeof e.message === 'string' && !out.includes(e.message)) out.push(e.message);
  if (Array.isArray(e.errors)) for (const inner of e.errors) causes(inner, depth + 1, out);
  if (e.cause !== undefined) causes(e.cause, depth + 1, out);
  return out;
}
