// Partition counts and log end offsets of a few topics, from the broker (Connect's REST API has
// neither). Pre-flight uses them to refuse sink offsets for partitions that do not exist and to
// flag targets beyond a partition's end. The `positions` work adds a fuller admin layer
// (src/kafka/admin.ts); this file is the small read pre-flight needs.
import { Admin } from '@platformatic/kafka';
import { clientOptions, type KafkaSettings } from './connection.js';

export interface TopicPartitions {
  /** Number of partitions (0 … partitions-1). */
  partitions: number;
  /** Log end offset per partition (the offset the next record gets). */
  endOffsets: Map<number, bigint>;
}

/**
 * The topics among `topics` that exist, with their partitions and end offsets; a topic that does
 * not exist is absent from the map.
 *
 * @example (await readTopicPartitions({ bootstrap: ['127.0.0.1:9092'] }, ['orders'])).get('orders')?.partitions
 */
export async function readTopicPartitions(settings: KafkaSettings, topics: string[]): Promise<Map<string, TopicPartitions>> {
  const out = new Map<string, TopicPartitions>();
  if (topics.length === 0) return out;
  const admin = new Admin(clientOptions(settings, 'offsetctl-preflight'));
  try {
    const existing = new Set(await admin.listTopics({ includeInternals: false }));
    const wanted = [...new Set(topics)].filter((t) => existing.has(t));
    if (wanted.length === 0) return out;
    const metadata = await admin.metadata({ topics: wanted, autocreateTopics: false });
    const requests = wanted.map((name) => {
      const count = metadata.topics.get(name)?.partitionsCount ?? 0;
      return { name, partitions: Array.from({ length: count }, (_v, partitionIndex) => ({ partitionIndex, timestamp: -1n })) };
    });
    for (const r of requests) out.set(r.name, { partitions: r.partitions.length, endOffsets: new Map() });
    const listed = await admin.listOffsets({ topics: requests.filter((r) => r.partitions.length > 0) });
    for (const topic of listed) {
      const entry = out.get(topic.name);
      for (const p of topic.partitions) entry?.endOffsets.set(p.partitionIndex, p.offset);
    }
    return out;
  } finally {
    await admin.close();
  }
}
