// The cluster room: the worker itself (`GET /`, read once per command): its Kafka version (workers
// below 3.6, which have no offsets API, are refused) and the Kafka cluster it serves, the key that
// runs, snapshots and locks are stored under.
export { WorkerRoot } from './worker-root.js';
export { requireSupportedWorker, type WorkerVersion } from './worker-version.js';
export { clusterIdentity, lookupKeys, type ClusterIdentity } from './cluster-identity.js';
export { connectMembers, sameConnectCluster } from './members.js';
export { connectGroupOf } from './connect-group.js';
