// Which connector a plan was made for, beyond its name: the Kafka cluster, its type and class, and
// the topics its config names. A saved plan is applied later, maybe by someone else; by then the
// name may belong to a connector deleted and created again with another class or other topics,
// whose offsets mean something else. Read from the config the plan was made from (the same read).
import type { ClusterIdentity } from '../cluster/index.js';
import type { ConnectorInfo } from '../connect/index.js';
import type { ConnectorType } from '../offsets/index.js';

export interface ConnectorIdentity {
  /** `kafka:<kafka_cluster_id>`, else `url:<url>`. */
  clusterKey: string;
  kafkaClusterId?: string;
  name: string;
  type: ConnectorType;
  /** `connector.class` as configured (a short alias and the full name are different classes here). */
  connectorClass: string;
  /**
   * The config settings that name its topics, as configured: a sink's `topics` (sorted, without
   * spaces) or `topics.regex`, a source's `topic` / `topics` (FileStreamSource, MirrorMaker).
   */
  topics: Record<string, string>;
}

const TOPIC_SETTINGS = ['topics', 'topics.regex', 'topic'] as const;

export function connectorIdentity(info: Pick<ConnectorInfo, 'name' | 'type' | 'config'>, cluster: Pick<ClusterIdentity, 'key' | 'kafkaClusterId'>): ConnectorIdentity {
  const topics: Record<string, string> = {};
  for (const key of TOPIC_SETTINGS) {
    const value = info.config[key]?.trim();
    if (value === undefined || value === '') continue;
    // A list's order and spacing are not a different connector; a regex is kept as written.
    topics[key] = key === 'topics.regex' ? value : [...new Set(value.split(',').map((t) => t.trim()).filter((t) => t !== ''))].sort().join(',');
  }
  return {
    clusterKey: cluster.key, ...(cluster.kafkaClusterId ? { kafkaClusterId: cluster.kafkaClusterId } : {}),
    name: info.name, type: info.type, connectorClass: info.config['connector.class']?.trim() ?? '', topics,
  };
}
