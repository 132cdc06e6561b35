// `offsetctl rollback`: put a snapshot back exactly (snapshot partitions written, partitions
// that exist now but not in the snapshot nulled) and return the connector to the state it had
// when the snapshot was taken, through the restore workflow. Allowed over a stale lock: undoing
// a run that died half-way is what rollback is for.
import { openStore, type SnapshotRecord } from '../store/index.js';
import { describeState } from './failure-text.js';
import { clusterIdentity, lookupKeys, type ClusterIdentity } from './cluster-identity.js';
import { getConnectorInfo, getOffsets } from './connect-client.js';
import { diffOffsets } from './diff.js';
import { checkPartitionCount, resolveLimits, type LimitFlags } from './limits.js';
import { changesNothing, defaultRollbackSnapshot, nothingToChange } from './empty-change.js';
import { OpsError } from './errors.js';
import { offsetsList, planSnapshotRestore } from './offsets-plan.js';
import { ROLLBACK, targetStateFor } from './operations.js';
import { presentAndConfirm, withNewRun, diffCounts, type ChangeFlags, type OpsConnection, type OpsIO } from './begin-change.js';
import { runOperation, type OperationOutcome } from './run-operation.js';
import { WORKFLOW_FILES } from './workflow-files.js';

export interface RollbackRequest extends ChangeFlags, LimitFlags {
  connector: string;
  /** Default: the connector's latest snapshot on this cluster. */
  snapshotId?: string;
}

/**
 * Restores a snapshot of a connector's offsets and state.
 *
 * @example await rollbackConnector(conn, { connector: 'orders-sink', yes: true }, io)
 */
export async function rollbackConnector(conn: OpsConnection, req: RollbackRequest, io: OpsIO): Promise<OperationOutcome> {
  if (req.leaveStopped && req.resume) throw new OpsError('E_USAGE', '--leave-stopped and --resume contradict each other: pass at most one', { field: 'resume' });
  const cluster = await clusterIdentity(conn.http, conn.url);
  const snapshot = findSnapshot(conn, cluster, req, io);
  const info = await getConnectorInfo(conn.http, conn.url, req.connector);
  if (info.type !== snapshot.connectorType) {
    throw new OpsError('E_PREFLIGHT', `snapshot ${snapshot.id} holds ${snapshot.connectorType} offsets but ${req.connector} is now a ${info.type} connector; nothing was changed`);
  }
  const current = offsetsList(await getOffsets(conn.http, conn.url, req.connector));
  const offsets = planSnapshotRestore(offsetsList(snapshot.offsets), current);
  const limits = resolveLimits(req);
  checkPartitionCount(offsets.length, limits, `the rollback to snapshot ${snapshot.id}`);
  const targetState = req.leaveStopped ? 'STOPPED' : req.resume ? 'RUNNING' : targetStateFor(snapshot.stateBefore);
  const diff = diffOffsets(current, snapshot.offsets, { mode: 'replace' });
  const base = { operation: 'rollback', connector: req.connector, clusterUrl: conn.url };
  if (changesNothing(diff) && info.state === targetState) return { ...nothingToChange(base, diff, `${req.connector} already has the offsets of snapshot ${snapshot.id} and is ${info.state}`), snapshotId: snapshot.id };
  const stop = await presentAndConfirm({
    io, flags: req, diff, base,
    heading: `Connector ${req.connector} (${info.type}, ${describeState(info)}) on ${conn.url}: back to snapshot ${snapshot.id} taken ${snapshot.takenAt} (${snapshot.partitions} partition(s), state ${snapshot.stateBefore} → ${targetState})`,
    question: `Roll ${req.connector} back to snapshot ${snapshot.id}? It is stopped while its offsets change, then left ${targetState}.`,
  });
  if (stop) return { ...stop, snapshotId: snapshot.id };
  const inputs = { connectorName: req.connector, offsets, targetState };
  const outcome = await withNewRun(conn.stateDir, {
    clusterUrl: conn.url, clusterKey: cluster.key, connector: req.connector, operation: 'rollback',
    workflowFile: WORKFLOW_FILES.restore.file, workflowId: WORKFLOW_FILES.restore.workflowId, inputs,
    context: { connectorType: info.type, stateBefore: info.state, restoringSnapshotId: snapshot.id },
  }, { takeOverStale: true }, (store, run) => runOperation({
    store, http: conn.http, run, spec: ROLLBACK, connectorType: info.type, inputs, chunkSize: limits.chunkSize,
    onChunk: (i, n, size) => io.info(`writing chunk ${i}/${n} (${size} partitions)`),
    ...(io.onProgress ? { onProgress: io.onProgress } : {}),
  }));
  return { ...outcome, diff: diffCounts(diff), message: outcome.status === 'succeeded' ? `${outcome.message}; restored snapshot ${snapshot.id}` : outcome.message };
}

function findSnapshot(conn: OpsConnection, cluster: ClusterIdentity, req: RollbackRequest, io: OpsIO): SnapshotRecord {
  const store = openStore(conn.stateDir);
  try {
    if (req.snapshotId) {
      const snapshot = store.getSnapshot(req.snapshotId);
      if (snapshot.connector !== req.connector || !lookupKeys(cluster).includes(snapshot.clusterKey)) {
        throw new OpsError('E_PREFLIGHT', `snapshot ${snapshot.id} belongs to connector ${snapshot.connector} on ${snapshot.clusterUrl}, not ${req.connector} on ${conn.url}; nothing was changed`, { field: 'snapshot' });
      }
      return snapshot;
    }
    const { snapshot: latest, skipped } = defaultRollbackSnapshot(store, store.listSnapshots({ connector: req.connector, clusterKeys: lookupKeys(cluster) }));
    if (skipped.length > 0) io.info(`skipped ${skipped.length} empty snapshot(s) taken by a reset of a connector that had no offsets (${skipped.map((s) => s.id).join(', ')})`);
    if (latest && latest.partitions === 0) io.info(`warning: snapshot ${latest.id} is empty (${req.connector} had no offsets when it was taken): rolling back to it removes every current offset`);
    if (latest && latest.clusterUrl !== conn.url) io.info(`snapshot ${latest.id} was taken through ${latest.clusterUrl}, another URL of the same cluster (${cluster.kafkaClusterId ?? cluster.key})`);
    if (!latest) {
      throw new OpsError('E_PREFLIGHT', `no snapshot of ${req.connector} on ${conn.url} in ${store.file}: snapshots are taken by rewind, reset and rollback (list them with \`offsetctl snapshots\`)`);
    }
    return latest;
  } catch (err) {
    if ((err as { code?: string }).code === 'E_NOT_FOUND') throw new OpsError('E_PREFLIGHT', (err as Error).message, { field: 'snapshot' });
    throw err;
  } finally {
    store.close();
  }
}
