// Which cluster a URL reaches. Locks, snapshots and runs are keyed by it, not by the URL text:
// every worker of one Connect cluster, and `localhost` next to `127.0.0.1`, must share the lock
// and find the same snapshots. Kafka Connect's `GET /` names the Kafka cluster it stores its
// offsets, configs and status in (`kafka_cluster_id`). Its REST API does not expose the Connect
// group id (`group.id` stays in the worker's properties), so the key is the Kafka cluster: two
// Connect clusters on one Kafka cluster share it — for a sink that is right (its consumer group
// `connect-<name>` lives in the Kafka cluster), for two same-named sources it errs on the side of
// one lock; the URL of each snapshot is kept and shown so the operator can tell them apart.
import { urlKey } from '../../store/index.js';
import { connectMembers } from './members.js';
import type { WorkerRoot } from './worker-root.js';

export interface ClusterIdentity {
  /** `kafka:<kafka_cluster_id>`, or `url:<url>` when the cluster did not say. */
  key: string;
  kafkaClusterId?: string;
  /** The URL it was reached through (information only). */
  url: string;
  /** The Connect cluster's members, when asked for (members.ts): what tells two Connect clusters on one Kafka cluster apart. */
  members?: string[];
  /** The Connect group, when Kafka was asked (connect-group.ts): it keys the lock of a source in the cluster's offsets topic. */
  connectGroup?: string;
}

/**
 * The identity `GET /` of the Connect REST API names (read through `root`, which the plan's
 * version check shares).
 *
 * @example (await clusterIdentity(new WorkerRoot(http, 'http://127.0.0.1:8083'))).key  // 'kafka:TKTISmUx3wfkGDeyVkrAGQ'
 */
export async function clusterIdentity(root: WorkerRoot, options: { members?: boolean } = {}): Promise<ClusterIdentity> {
  const answer = await root.read();
  const id = answer?.json?.kafka_cluster_id;
  // An endpoint that does not answer GET / with it (unreachable, not JSON): the URL is all we know.
  if (answer?.status === 200 && typeof id === 'string' && id !== '') {
    return { key: `kafka:${id}`, kafkaClusterId: id, url: root.base, ...(options.members ? { members: await connectMembers(root.http, root.base) } : {}) };
  }
  return { key: urlKey(root.base), url: root.base };
}

/** The keys a lookup matches: the identity, and the URL key rows written before identities were known carry. */
export function lookupKeys(identity: ClusterIdentity): string[] {
  return [...new Set([identity.key, urlKey(identity.url)])];
}
