// The Connect clusters a sandbox can run. `main` is the one every sandbox has; `second`
// (`up --clusters 2`) is a second group of workers on the same broker, the target of moves;
// `other` (`up --other-kafka`) is one worker on a second, single-node Kafka cluster of its own,
// for what only another Kafka cluster shows (a sink moved with MirrorMaker 2's translated offsets).
// Clusters on one broker differ in group.id and the three internal topics, as real ones must.

export type ConnectClusterName = 'main' | 'second' | 'other';
export type KafkaClusterName = 'main' | 'other';

export interface ConnectClusterSpec {
  name: ConnectClusterName;
  /** Which Kafka cluster its workers use. */
  kafka: KafkaClusterName;
  groupId: string;
  /** `<prefix>-configs`, `<prefix>-offsets`, `<prefix>-status`. */
  topicPrefix: string;
  /** Its workers are `<rolePrefix>worker-<n>` (the main cluster's stay `worker-<n>`). */
  rolePrefix: string;
}

export const CONNECT_CLUSTERS: Readonly<Record<ConnectClusterName, ConnectClusterSpec>> = {
  main: { name: 'main', kafka: 'main', groupId: 'offsetctl-sandbox', topicPrefix: 'offsetctl-sandbox', rolePrefix: '' },
  second: { name: 'second', kafka: 'main', groupId: 'offsetctl-sandbox-second', topicPrefix: 'offsetctl-sandbox-second', rolePrefix: 'second-' },
  other: { name: 'other', kafka: 'other', groupId: 'offsetctl-sandbox-other', topicPrefix: 'offsetctl-sandbox-other', rolePrefix: 'other-' },
};

/** In the order status lists them. */
export const CLUSTER_ORDER: readonly ConnectClusterName[] = ['main', 'second', 'other'];

/** The broker of the other Kafka cluster. */
export const OTHER_BROKER_ROLE = 'other-broker';

export function workerRole(cluster: ConnectClusterName, index: number): string {
  return `${CONNECT_CLUSTERS[cluster].rolePrefix}worker-${index}`;
}

export function isBrokerRole(role: string): boolean {
  return role === 'broker' || role === OTHER_BROKER_ROLE;
}

/** `second-worker-2` → { cluster: 'second', index: 2 }; a broker or an unknown name → undefined. */
export function parseWorkerRole(role: string): { cluster: ConnectClusterName; index: number } | undefined {
  const match = /^(second-|other-)?worker-([1-9]\d*)$/.exec(role);
  if (!match) return undefined;
  const cluster: ConnectClusterName = match[1] === 'second-' ? 'second' : match[1] === 'other-' ? 'other' : 'main';
  return { cluster, index: Number(match[2]) };
}
