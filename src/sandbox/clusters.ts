// The Connect clusters a sandbox can run. `main` is the one every sandbox has; `second`
// (`up --clusters 2`) is a second group of workers on the same broker, the target of moves;
// `lane-2` … `lane-N` (`up --lanes N`) are more groups on the same broker, one per test lane
// after the first (lane 1 is `main`), so two integration files running at once never share a
// Connect cluster and one's rebalances never reach the other; `other` (`up --other-kafka`) is one
// worker on a second, single-node Kafka cluster of its own, for what only another Kafka cluster
// shows (a sink moved with MirrorMaker 2's translated offsets).
// Clusters on one broker differ in group.id and the three internal topics, as real ones must.

export type LaneClusterName = `lane-${number}`;
export type ConnectClusterName = 'main' | 'second' | 'other' | LaneClusterName;
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

export const CONNECT_CLUSTERS: Readonly<Record<'main' | 'second' | 'other', ConnectClusterSpec>> = {
  main: { name: 'main', kafka: 'main', groupId: 'offsetctl-sandbox', topicPrefix: 'offsetctl-sandbox', rolePrefix: '' },
  second: { name: 'second', kafka: 'main', groupId: 'offsetctl-sandbox-second', topicPrefix: 'offsetctl-sandbox-second', rolePrefix: 'second-' },
  other: { name: 'other', kafka: 'other', groupId: 'offsetctl-sandbox-other', topicPrefix: 'offsetctl-sandbox-other', rolePrefix: 'other-' },
};

/** Lanes a sandbox runs at most (`up --lanes N`): each lane's cluster is 512 MB per worker. */
export const MAX_LANES = 4;

/** The Connect cluster of test lane `lane` (1-based): lane 1 is `main`, lane k is `lane-k`. */
export function laneCluster(lane: number): ConnectClusterName {
  return lane === 1 ? 'main' : `lane-${lane}`;
}

export function isLaneCluster(name: string): name is LaneClusterName {
  const m = /^lane-(\d+)$/.exec(name);
  return m !== null && Number(m[1]) >= 2 && Number(m[1]) <= MAX_LANES;
}

export function clusterSpec(name: ConnectClusterName): ConnectClusterSpec {
  if (isLaneCluster(name)) {
    return { name, kafka: 'main', groupId: `offsetctl-sandbox-${name}`, topicPrefix: `offsetctl-sandbox-${name}`, rolePrefix: `${name}-` };
  }
  return CONNECT_CLUSTERS[name as 'main' | 'second' | 'other'];
}

/** In the order status lists them: main, second, the lanes, other. */
export function clusterOrder(lanes: readonly string[]): ConnectClusterName[] {
  const own = lanes.filter(isLaneCluster).sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)));
  return ['main', 'second', ...own, 'other'];
}

/** The broker of the other Kafka cluster. */
export const OTHER_BROKER_ROLE = 'other-broker';

export function workerRole(cluster: ConnectClusterName, index: number): string {
  return `${clusterSpec(cluster).rolePrefix}worker-${index}`;
}

export function isBrokerRole(role: string): boolean {
  return role === 'broker' || role === OTHER_BROKER_ROLE;
}

/** `second-worker-2` → { cluster: 'second', index: 2 }; a broker or an unknown name → undefined. */
export function parseWorkerRole(role: string): { cluster: ConnectClusterName; index: number } | undefined {
  const match = /^(second-|other-|lane-\d+-)?worker-([1-9]\d*)$/.exec(role);
  if (!match) return undefined;
  const prefix = match[1]?.slice(0, -1);
  if (prefix?.startsWith('lane-') && !isLaneCluster(prefix)) return undefined;
  const cluster: ConnectClusterName = prefix === undefined ? 'main' : (prefix as ConnectClusterName);
  return { cluster, index: Number(match[2]) };
}
