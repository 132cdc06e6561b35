// Pre-flight for sink offsets: a sink's offsets are its consumer group's, so an entry for a topic
// the sink does not consume, or for a partition the topic does not have, passes every shape check
// and then fails after the stop (Connect: 500 "Failed to alter consumer group offsets"). The
// sink's topics come from its config (`topics` or `topics.regex`) and, for information, from
// Connect's `GET /connectors/<c>/topics`; partition counts need the broker (--bootstrap, OFFSETCTL_BOOTSTRAP or the context's bootstrap).
import type { HttpSender } from '../../http/client.js';
import type { TopicPartitions } from '../../kafka/admin.js';
import type { KafkaSettings } from '../../kafka/connection.js';
import { OpsError } from '../errors.js';
import type { OffsetEntry } from '../offsets/index.js';
import * as load from '../load.js';

export interface SinkTopics {
  /** From the `topics` config (comma-separated). */
  topics: string[];
  /** The `topics.regex` config, when set. */
  regex?: string;
  /** Topics Connect has seen the connector use (GET /connectors/<c>/topics); may be empty. */
  active: string[];
}

export async function readSinkTopics(http: HttpSender, url: string, connector: string, config: Record<string, string>): Promise<SinkTopics> {
  const topics = (config.topics ?? '').split(',').map((t) => t.trim()).filter(Boolean);
  const regex = config['topics.regex']?.trim() || undefined;
  let active: string[] = [];
  try {
    const res = await http.send({ method: 'GET', url: `${url.replace(/\/+$/, '')}/connectors/${encodeURIComponent(connector)}/topics`, headers: { accept: 'application/json' } });
    const body = JSON.parse(res.body.toString('utf8')) as Record<string, { topics?: unknown }>;
    const list = body[connector]?.topics;
    if (res.status === 200 && Array.isArray(list)) active = list.filter((t): t is string => typeof t === 'string');
  } catch {
    // Topic tracking may be disabled on the workers; the config is what counts.
  }
  return { topics, ...(regex ? { regex } : {}), active };
}

/** Does the sink consume `topic` (named in `topics`, or matching `topics.regex` as a whole)? */
export function sinkConsumes(sink: SinkTopics, topic: string): boolean {
  if (sink.topics.includes(topic)) return true;
  if (!sink.regex) return false;
  try {
    return new RegExp(`^(?:${sink.regex})$`).test(topic);
  } catch {
    return true; // a Java pattern JavaScript cannot read: do not refuse on a guess
  }
}

export function describeSinkTopics(sink: SinkTopics): string {
  const parts: string[] = [];
  if (sink.topics.length > 0) parts.push(`topics ${sink.topics.join(', ')}`);
  if (sink.regex) parts.push(`topics.regex ${JSON.stringify(sink.regex)}`);
  const said = parts.length > 0 ? parts.join(' and ') : 'no topics in its config';
  return sink.active.length > 0 ? `${said} (Connect reports it has used: ${sink.active.join(', ')})` : said;
}

/**
 * Refuses (E_PREFLIGHT, exit 2) a sink offset for a topic the sink does not consume, and, when
 * the broker is known, for a topic that does not exist or a partition beyond its count. Entries
 * with `offset: null` (removals) are not checked. Returns the broker's view of the topics named,
 * for the forward-target check.
 */
export async function checkSinkTargets(args: {
  http: HttpSender; url: string; connector: string; config: Record<string, string>; target: OffsetEntry[]; kafka?: KafkaSettings;
}): Promise<Map<string, TopicPartitions> | undefined> {
  const sink = await readSinkTopics(args.http, args.url, args.connector, args.config);
  const written = args.target.map((e, index) => ({ index, topic: String(e.partition.kafka_topic), partition: Number(e.partition.kafka_partition), offset: e.offset }))
    .filter((e) => e.offset !== null);
  const foreign = written.filter((e) => !sinkConsumes(sink, e.topic));
  if (foreign.length > 0) {
    const named = [...new Set(foreign.map((e) => e.topic))].map((t) => JSON.stringify(t)).join(', ');
    throw new OpsError('E_PREFLIGHT', `offsets[${foreign[0]!.index}].partition.kafka_topic: sink ${args.connector} does not consume ${named}; it consumes ${describeSinkTopics(sink)}. Name only its topics; nothing was changed`, { field: 'offsets' });
  }
  if (!args.kafka) return undefined;
  const topics = await readTopicPartitions(args.kafka, [...new Set(written.map((e) => e.topic))]);
  for (const e of written) {
    const info = topics.get(e.topic);
    if (!info) {
      throw new OpsError('E_PREFLIGHT', `offsets[${e.index}].partition.kafka_topic: topic ${JSON.stringify(e.topic)} does not exist on the Kafka cluster (${args.kafka.bootstrap.join(',')}); sink ${args.connector} consumes ${describeSinkTopics(sink)}; nothing was changed`, { field: 'offsets' });
    }
    if (e.partition >= info.partitions) {
      throw new OpsError('E_PREFLIGHT', `offsets[${e.index}].partition.kafka_partition: topic ${e.topic} has ${info.partitions} partition(s) (0 to ${info.partitions - 1}), there is no partition ${e.partition}; sink ${args.connector} consumes ${describeSinkTopics(sink)}; nothing was changed`, { field: 'offsets' });
    }
  }
  return topics;
}

/**
 * The broker's view of the topics named (src/kafka/admin.ts, the one Kafka read layer). The
 * client loads only here, once a sink's offsets are checked against a configured cluster: its
 * import costs about half a second of CPU that no other command should pay.
 */
async function readTopicPartitions(settings: KafkaSettings, topics: string[]): Promise<Map<string, TopicPartitions>> {
  if (topics.length === 0) return new Map();
  const { KafkaAdmin } = await load.kafkaAdmin();
  const admin = new KafkaAdmin(settings, 'offsetctl-preflight');
  try {
    return await admin.topicPartitions(topics);
  } finally {
    await admin.close();
  }
}
