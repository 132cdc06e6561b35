// What a sink connector consumes: its consumer group and its topics. Read from the connector's
// config (not GET /connectors/{c}/topics, which lists only topics a task has already read and is
// 403 when topic tracking is off). `topics.regex` is matched against the cluster's topic list the
// way Kafka's consumer does: the whole name must match (Java's Pattern.matcher().matches()).
import { OpsError } from '../errors.js';

export interface SinkTopics {
  groupId: string;
  /** Sorted topic names the sink consumes. */
  topics: string[];
  /** Which setting named them. */
  from: 'topics' | 'topics.regex';
  /** `topics` entries the cluster does not have (always empty for a regex). */
  missing: string[];
}

/** `connect-<name>` unless the connector sets `consumer.override.group.id`. */
export function sinkGroupId(connector: string, config: Record<string, string>): string {
  const override = config['consumer.override.group.id']?.trim();
  return override ? override : `connect-${connector}`;
}

/**
 * The sink's group and topics; `clusterTopics` is the cluster's topic list (only read for a
 * regex or to find topics that no longer exist).
 *
 * @example await sinkTopics('orders-sink', { topics: 'orders,refunds' }, () => admin.listTopics())
 */
export async function sinkTopics(connector: string, config: Record<string, string>, clusterTopics: () => Promise<string[]>): Promise<SinkTopics> {
  const groupId = sinkGroupId(connector, config);
  const list = (config['topics'] ?? '').split(',').map((t) => t.trim()).filter((t) => t !== '');
  const regex = config['topics.regex']?.trim() ?? '';
  if (list.length > 0 && regex !== '') {
    throw new OpsError('E_PREFLIGHT', `connector ${connector} sets both topics and topics.regex; Kafka Connect refuses that configuration, fix the connector first`, { field: 'topics' });
  }
  if (list.length > 0) {
    const existing = new Set(await clusterTopics());
    const topics = [...new Set(list)].sort();
    return { groupId, topics, from: 'topics', missing: topics.filter((t) => !existing.has(t)) };
  }
  if (regex === '') throw new OpsError('E_PREFLIGHT', `connector ${connector} has neither topics nor topics.regex in its config: cannot tell what it consumes`, { field: 'topics' });
  let pattern: RegExp;
  try {
    pattern = new RegExp(`^(?:${regex})$`, 'u');
  } catch (err) {
    throw new OpsError('E_PREFLIGHT', `connector ${connector}: topics.regex ${JSON.stringify(regex)} is not a regular expression offsetctl can evaluate (${(err as Error).message}); use --offsets <file> instead`, { field: 'topics.regex', cause: err });
  }
  const topics = (await clusterTopics()).filter((t) => pattern.test(t)).sort();
  return { groupId, topics, from: 'topics.regex', missing: [] };
}
