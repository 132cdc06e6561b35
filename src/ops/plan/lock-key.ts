// The key a change's lock takes: where the connector's offsets live (src/store/lock-scope.ts), so
// two runs conflict exactly when their offsets are the same. A sink's offsets are its consumer
// group on its Kafka cluster: `connect-<name>`, or its `consumer.override.group.id`; two sinks of
// that name in two Connect clusters on one Kafka cluster share it. A source's are its partition in
// its offsets topic: its own `offsets.storage.topic` when configured, else its Connect cluster's,
// which Connect's REST API does not name: the Connect group found through Kafka stands for it
// (src/ops/cluster/connect-group.ts), and without Kafka access the wide key (the Kafka cluster),
// which conflicts with every narrow key of the same connector.
import { connectGroupLockKey, groupLockKey, offsetsTopicLockKey } from '../../store/index.js';
import type { ConnectorInfo } from '../connect/index.js';

export function lockKeyOf(info: Pick<ConnectorInfo, 'name' | 'type' | 'config'>, clusterKey: string, connectGroup?: string): string {
  // A cluster known only by its URL: nothing narrower can be told apart safely.
  if (!clusterKey.startsWith('kafka:')) return clusterKey;
  if (info.type === 'sink') return groupLockKey(clusterKey, info.config['consumer.override.group.id']?.trim() || `connect-${info.name}`);
  const topic = info.config['offsets.storage.topic']?.trim();
  if (topic) return offsetsTopicLockKey(clusterKey, topic);
  return connectGroup ? connectGroupLockKey(clusterKey, connectGroup) : clusterKey;
}

/** Whether the lock key of this connector would use its Connect cluster's group (a source in the cluster's own offsets topic). */
export function needsConnectGroup(info: Pick<ConnectorInfo, 'type' | 'config'>): boolean {
  return info.type === 'source' && !info.config['offsets.storage.topic']?.trim();
}
