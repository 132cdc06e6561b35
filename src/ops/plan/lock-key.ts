// The key a change's lock takes: where the connector's offsets live (src/store/lock-scope.ts), so
// two runs conflict exactly when their offsets are the same. A sink's offsets are its consumer
// group on its Kafka cluster: `connect-<name>`, or its `consumer.override.group.id`; two sinks of
// that name in two Connect clusters on one Kafka cluster share it. A source's are its partition in
// its offsets topic: its own `offsets.storage.topic` when configured, else its Connect cluster's,
// which Connect's REST API does not name: then the wide key (the Kafka cluster), which conflicts
// with every narrow key of the same connector.
import { groupLockKey, offsetsTopicLockKey } from '../../store/index.js';
import type { ConnectorInfo } from '../connect/index.js';

export function lockKeyOf(info: Pick<ConnectorInfo, 'name' | 'type' | 'config'>, clusterKey: string): string {
  // A cluster known only by its URL: nothing narrower can be told apart safely.
  if (!clusterKey.startsWith('kafka:')) return clusterKey;
  if (info.type === 'sink') return groupLockKey(clusterKey, info.config['consumer.override.group.id']?.trim() || `connect-${info.name}`);
  const topic = info.config['offsets.storage.topic']?.trim();
  return topic ? offsetsTopicLockKey(clusterKey, topic) : clusterKey;
}
