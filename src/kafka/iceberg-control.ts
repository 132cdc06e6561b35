// Apache Iceberg's Kafka Connect sink coordinates its commits through a control topic
// (`iceberg.control.topic`, default `control-iceberg`, shared by every Iceberg sink of the cluster).
// For each commit, every task sends a DATA_COMPLETE event: the commit id and, per data-topic
// partition it was assigned, the offset its consumer had reached (the next record to read) when it
// closed its files for that commit. A table snapshot made by that commit carries the same id in
// its summary (`kafka.connect.commit-id`), so these events map a snapshot to the data offsets it
// holds everything before. Events are Avro (kafka-connect-events, framed by AvroEncoderUtil); only
// DATA_COMPLETE is decoded. Read with plain Fetch requests from the log start to the end found
// first: no consumer group is joined, nothing is committed or written.
import { kafkaClient } from './load.js';
import { AvroReader, icebergFramed } from './avro.js';
import { clientOptions, describeKafka, type KafkaSettings } from './connection.js';
import { KafkaError } from './errors.js';

export interface CommitOffsets {
  commitId: string;
  /** The Connect group of the sink that made it (`connect-<name>`). */
  groupId: string;
  /** `topic:partition` → the next offset to read after this commit's data. */
  offsets: Map<string, number>;
}

/** One control record's DATA_COMPLETE content; undefined for every other event. */
export interface DataComplete {
  commitId: string;
  groupId: string;
  assignments: Array<{ topic: string; partition: number; offset: number | null }>;
}

interface DataCompleteAvro {
  group_id: string;
  payload: { commit_id: Buffer; assignments: Array<{ topic: string; partition: bigint; offset: bigint | null }> | null };
}

export function decodeDataComplete(value: Buffer): DataComplete | undefined {
  const framed = icebergFramed(value);
  if (!framed || typeof framed.schema !== 'object' || Array.isArray(framed.schema)) return undefined;
  const fields = framed.schema.fields as Array<{ name: string; type: { name?: string } }> | undefined;
  if (fields?.find((f) => f.name === 'payload')?.type?.name !== 'DataComplete') return undefined;
  const event = new AvroReader(value, framed.at).read(framed.schema) as DataCompleteAvro;
  return {
    commitId: uuid(event.payload.commit_id), groupId: event.group_id,
    assignments: (event.payload.assignments ?? []).map((a) => ({
      topic: a.topic, partition: Number(a.partition), offset: a.offset === null ? null : Number(a.offset),
    })),
  };
}

function uuid(b: Buffer): string {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * Every commit of Connect group `groupId` found in the control topic, by commit id (the tasks'
 * DATA_COMPLETE events merged). A missing topic is E_KAFKA_TOPIC_NOT_FOUND.
 */
export async function readIcebergCommits(settings: KafkaSettings, topic: string, groupId: string, clientId = 'offsetctl'): Promise<Map<string, CommitOffsets>> {
  const { Consumer } = await kafkaClient();
  const consumer = new Consumer({ ...clientOptions(settings, clientId), groupId: `${clientId}-unused`, autocommit: false });
  try {
    const metadata = await consumer.metadata({ topics: [topic], forceUpdate: true, autocreateTopics: false }).catch((err: unknown) => {
      const text = `${(err as Error).message}${JSON.stringify((err as { errors?: unknown }).errors ?? '')}`;
      if (/UNKNOWN_TOPIC|does not exist|unknown topic/i.test(text)) return undefined;
      throw err;
    });
    const described = metadata?.topics.get(topic);
    if (!described) {
      throw new KafkaError('E_KAFKA_TOPIC_NOT_FOUND', `the Iceberg control topic ${topic} does not exist on ${describeKafka(settings)}: ` +
        'has the sink committed yet, and is iceberg.control.topic right?', { field: 'iceberg.control.topic' });
    }
    const ends = (await consumer.listOffsets({ topics: [topic] })).get(topic) ?? [];
    const starts = (await consumer.listOffsets({ topics: [topic], timestamp: -2n })).get(topic) ?? [];
    const commits = new Map<string, CommitOffsets>();
    const positions = new Map<number, bigint>(described.partitions.map((_p, i) => [i, starts[i] ?? 0n]));
    const pending = (): number[] => [...positions].filter(([i, at]) => at < (ends[i] ?? 0n)).map(([i]) => i);
    for (let rounds = 0; pending().length > 0; rounds++) {
      if (rounds > 100_000) throw new Error(`reading ${topic} did not reach its end`);
      for (const i of pending()) {
        const p = described.partitions[i]!;
        const response = await consumer.fetch({
          node: p.leader, maxWaitTime: 100, minBytes: 1, maxBytes: 8 * 1024 * 1024,
          topics: [{ topicId: described.id, partitions: [{
            partition: i, currentLeaderEpoch: p.leaderEpoch, fetchOffset: positions.get(i)!, lastFetchedEpoch: -1, partitionMaxBytes: 4 * 1024 * 1024,
          }] }],
        });
        let next = positions.get(i)!;
        const before = next;
        for (const t of response.responses) for (const part of t.partitions) for (const batch of part.records ?? []) {
          const control = (batch.attributes & 0x20) !== 0; // a transaction marker, not an event
          for (const record of batch.records) {
            const offset = batch.firstOffset + BigInt(record.offsetDelta);
            if (offset < next) continue;
            next = offset + 1n;
            if (control || !record.value) continue;
            const done = decodeDataComplete(record.value);
            if (!done || done.groupId !== groupId) continue;
            const commit = commits.get(done.commitId) ?? { commitId: done.commitId, groupId, offsets: new Map<string, number>() };
            for (const a of done.assignments) if (a.offset !== null) commit.offsets.set(`${a.topic}:${a.partition}`, a.offset);
            commits.set(done.commitId, commit);
          }
        }
        positions.set(i, next > before ? next : ends[i] ?? next);
      }
    }
    return commits;
  } catch (err) {
    if (err instanceof KafkaError) throw err;
    const why = (err as Error).message;
    throw new KafkaError('E_KAFKA', `reading the Iceberg control topic ${topic} on ${describeKafka(settings)} failed: ${why}`, { cause: err });
  } finally {
    await Promise.allSettled([consumer.close(true)]);
  }
}
