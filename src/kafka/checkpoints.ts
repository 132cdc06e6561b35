// MirrorMaker 2's checkpoints: MirrorCheckpointConnector writes, for each consumer group it
// follows, the group's committed offset on the source cluster (upstream) and its translation on
// the target cluster (downstream) to `<source-alias>.checkpoints.internal` on the target cluster.
// Record format (connect/mirror-client Checkpoint.java, Kafka's protocol types, big-endian):
//   key   = group STRING, topic STRING, partition INT32
//   value = version INT16 (0), upstreamOffset INT64, offset INT64 (downstream), metadata STRING
// STRING is an INT16 length followed by that many UTF-8 bytes. The key's topic is the topic as
// named on the target cluster (`<alias>.<topic>` under DefaultReplicationPolicy, the same name
// under IdentityReplicationPolicy). The topic is compacted: the last record per key is current.
// Read with plain Fetch requests from the log start to the end found first: no consumer group is
// joined and nothing is committed.
import { kafkaClient } from './load.js';
import { clientOptions, describeKafka, type KafkaSettings } from './connection.js';
import { KafkaError } from './errors.js';

export interface Checkpoint {
  group: string;
  /** The topic on the target cluster. */
  topic: string;
  partition: number;
  /** The group's committed offset on the source cluster that this checkpoint translates. */
  upstreamOffset: number;
  /** The translation: where the group should continue on the target cluster. */
  downstreamOffset: number;
  metadata: string;
}

/** The checkpoints topic MirrorMaker 2 writes for a source cluster alias (DefaultReplicationPolicy and IdentityReplicationPolicy). */
export function checkpointsTopic(sourceAlias: string): string {
  return `${sourceAlias}.checkpoints.internal`;
}

class Reader {
  #at = 0;
  constructor(private readonly buf: Buffer, private readonly what: string) {}

  #need(bytes: number): void {
    if (this.#at + bytes > this.buf.length) throw new Error(`${this.what} ends after ${this.buf.length} bytes, in the middle of a field`);
  }

  int16(): number {
    this.#need(2);
    const v = this.buf.readInt16BE(this.#at);
    this.#at += 2;
    return v;
  }

  int32(): number {
    this.#need(4);
    const v = this.buf.readInt32BE(this.#at);
    this.#at += 4;
    return v;
  }

  int64(): number {
    this.#need(8);
    const v = this.buf.readBigInt64BE(this.#at);
    this.#at += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) throw new Error(`${this.what} holds an offset beyond 2^53: ${v}`);
    return Number(v);
  }

  string(): string {
    const length = this.int16();
    if (length < 0) throw new Error(`${this.what} holds a null string where MirrorMaker writes one`);
    this.#need(length);
    const v = this.buf.toString('utf8', this.#at, this.#at + length);
    this.#at += length;
    return v;
  }
}

/** One checkpoint record; throws on anything that is not version 0 of the format above. */
export function decodeCheckpoint(key: Buffer, value: Buffer): Checkpoint {
  const k = new Reader(key, 'a checkpoint key');
  const group = k.string();
  const topic = k.string();
  const partition = k.int32();
  const v = new Reader(value, 'a checkpoint value');
  const version = v.int16();
  if (version !== 0) throw new Error(`a checkpoint of version ${version}: this offsetctl reads version 0 (MirrorMaker 2 of Kafka 2.4 to 4.x)`);
  return { group, topic, partition, upstreamOffset: v.int64(), downstreamOffset: v.int64(), metadata: v.string(), };
}

/** What readCheckpoints found: the current checkpoint per topic-partition, and how many records it read. */
export interface GroupCheckpoints {
  checkpoints: Map<string, Checkpoint>;
  records: number;
}

/**
 * Every current checkpoint of `group` in `topic` (keyed `topic:partition`), read from the log
 * start up to the end offsets found when the call began. A topic that does not exist is
 * E_KAFKA_TOPIC_NOT_FOUND (MirrorCheckpointConnector never ran against this cluster, or
 * another alias).
 */
export async function readCheckpoints(settings: KafkaSettings, topic: string, group: string, clientId = 'offsetctl'): Promise<GroupCheckpoints> {
  const { Consumer } = await kafkaClient();
  const consumer = new Consumer({ ...clientOptions(settings, clientId), groupId: `${clientId}-unused`, autocommit: false });
  try {
    const metadata = await consumer.metadata({ topics: [topic], forceUpdate: true, autocreateTopics: false }).catch((err: unknown) => {
      if (/UNKNOWN_TOPIC|does not exist|unknown topic/i.test(`${(err as Error).message}${JSON.stringify((err as { errors?: unknown }).errors ?? '')}`)) return undefined;
      throw err;
    });
    const described = metadata?.topics.get(topic);
    if (!described) {
      throw new KafkaError('E_KAFKA_TOPIC_NOT_FOUND', `the MirrorMaker 2 checkpoints topic ${topic} does not exist on ${describeKafka(settings)}: is MirrorCheckpointConnector running with that source cluster alias, writing to this cluster?`, { field: 'translate-offsets' });
    }
    const ends = (await consumer.listOffsets({ topics: [topic] })).get(topic) ?? [];
    const starts = (await consumer.listOffsets({ topics: [topic], timestamp: -2n })).get(topic) ?? [];
    const found = new Map<string, Checkpoint>();
    let records = 0;
    const positions = new Map<number, bigint>(described.partitions.map((_p, i) => [i, starts[i] ?? 0n]));
    const pending = (): number[] => [...positions].filter(([i, at]) => at < (ends[i] ?? 0n)).map(([i]) => i);
    for (let rounds = 0; pending().length > 0; rounds++) {
      if (rounds > 100_000) throw new Error(`reading ${topic} did not reach its end`);
      const byLeader = new Map<number, number[]>();
      for (const i of pending()) byLeader.set(described.partitions[i]!.leader, [...(byLeader.get(described.partitions[i]!.leader) ?? []), i]);
      for (const [node, partitions] of byLeader) {
        const response = await consumer.fetch({
          node, maxWaitTime: 100, minBytes: 1, maxBytes: 8 * 1024 * 1024,
          topics: [{ topicId: described.id, partitions: partitions.map((i) => ({ partition: i, currentLeaderEpoch: described.partitions[i]!.leaderEpoch, fetchOffset: positions.get(i)!, lastFetchedEpoch: -1, partitionMaxBytes: 1024 * 1024 })) }],
        });
        for (const t of response.responses) {
          for (const p of t.partitions) {
            let next = positions.get(p.partitionIndex) ?? 0n;
            const before = next;
            for (const batch of p.records ?? []) {
              for (const record of batch.records) {
                const offset = batch.firstOffset + BigInt(record.offsetDelta);
                if (offset < next) continue;
                next = offset + 1n;
                if (!record.key || !record.value) continue; // a tombstone: nothing current for that key
                records++;
                const cp = decodeCheckpoint(record.key, record.value);
                if (cp.group === group) found.set(`${cp.topic}:${cp.partition}`, cp);
              }
            }
            // Compaction leaves gaps at the end of a log: a fetch that returns nothing past them moves on.
            positions.set(p.partitionIndex, next > before ? next : ends[p.partitionIndex] ?? next);
          }
        }
      }
    }
    return { checkpoints: found, records };
  } catch (err) {
    if (err instanceof KafkaError) throw err;
    throw new KafkaError('E_KAFKA', `reading MirrorMaker 2 checkpoints from ${topic} on ${describeKafka(settings)} failed: ${(err as Error).message}`, { cause: err });
  } finally {
    await Promise.allSettled([consumer.close(true)]);
  }
}
