// The two Connect clusters of a move, as plan data: where each is, which Kafka cluster it works
// with, the key its runs, snapshots and locks are stored under, and its version. The target must
// create connectors STOPPED (`initial_state`, Kafka 3.7+, KIP-980): an older worker would reject
// the field half-way through, after the original was stopped, so it is refused up front.
import type { HttpSender } from '../../http/client.js';
import { clusterIdentity } from '../cluster/index.js';
import { OpsError } from '../errors.js';
import { requireSupportedWorker, type WorkerVersion } from '../cluster/index.js';
import { WorkerRoot } from '../cluster/index.js';

/** A Connect cluster as a face hands it to ops: its URL and the sender with its credentials. */
export interface ClusterRef {
  url: string;
  http: HttpSender;
}

export interface ClusterFacts {
  url: string;
  /** `kafka:<id>` (else `url:<url>`): runs, snapshots and locks are stored under it. */
  key: string;
  kafkaClusterId?: string;
  version?: string;
}

export async function readClusterFacts(ref: ClusterRef): Promise<{ facts: ClusterFacts; version: WorkerVersion | undefined }> {
  const root = new WorkerRoot(ref.http, ref.url);
  const version = await requireSupportedWorker(root);
  const identity = await clusterIdentity(root);
  return {
    facts: { url: ref.url, key: identity.key, ...(identity.kafkaClusterId ? { kafkaClusterId: identity.kafkaClusterId } : {}), ...(version ? { version: version.version } : {}) },
    version,
  };
}

/** Refuses a target that cannot create a connector STOPPED (below Kafka 3.7). */
export function requireInitialState(version: WorkerVersion | undefined, url: string, what: string): void {
  const k = version?.kafka;
  if (!k || k[0] > 3 || (k[0] === 3 && k[1] >= 7)) return;
  throw new OpsError('E_PREFLIGHT', `the Kafka Connect worker at ${url} runs ${version?.version}: ${what} creates the connector there in state STOPPED (the "initial_state" field of POST /connectors, Kafka 3.7 and newer, KIP-980), so that it cannot run before its offsets are written; this worker would reject the field. Nothing was changed. Upgrade that cluster to 3.7 or newer.`, { field: 'to' });
}
