// `offsetctl reset`: pre-flight, then the reset workflow (DELETE of every offset).
import { describeState } from './failure-text.js';
import { clusterIdentity } from './cluster-identity.js';
import { getConnectorInfo, getOffsets } from './connect-client.js';
import { diffOffsets } from './diff.js';
import { changesNothing, nothingToChange } from './empty-change.js';
import { RESET } from './operations.js';
import { presentAndConfirm, resumeAfterFrom, withNewRun, diffCounts, type ChangeFlags, type OpsConnection, type OpsIO } from './begin-change.js';
import { runOperation, type OperationOutcome } from './run-operation.js';
import { WORKFLOW_FILES } from './workflow-files.js';

export interface ResetRequest extends ChangeFlags {
  connector: string;
}

/**
 * Deletes every offset of a connector through the reset workflow (snapshot first).
 *
 * @example await resetConnector(conn, { connector: 'orders-source', yes: true }, io)
 */
export async function resetConnector(conn: OpsConnection, req: ResetRequest, io: OpsIO): Promise<OperationOutcome> {
  const resumeAfter = resumeAfterFrom(req);
  const info = await getConnectorInfo(conn.http, conn.url, req.connector);
  const current = await getOffsets(conn.http, conn.url, req.connector);
  const diff = diffOffsets(current, [], { mode: 'replace' });
  const base = { operation: 'reset', connector: req.connector, clusterUrl: conn.url };
  if (changesNothing(diff, { now: info.state, resumeAfter })) return nothingToChange(base, diff, `${req.connector} has no offsets`);
  const stop = await presentAndConfirm({
    io, flags: req, diff, base,
    heading: `Connector ${req.connector} (${info.type}, ${describeState(info)}) on ${conn.url}: every offset will be deleted`,
    question: `Reset ${req.connector}? All ${diff.entries.length} partition offset(s) are deleted (a snapshot is kept for rollback).`,
  });
  if (stop) return stop;
  const inputs = { connectorName: req.connector, resumeAfter };
  const outcome = await withNewRun(conn.stateDir, {
    clusterUrl: conn.url, clusterKey: (await clusterIdentity(conn.http, conn.url)).key, connector: req.connector, operation: 'reset',
    workflowFile: WORKFLOW_FILES.reset.file, workflowId: WORKFLOW_FILES.reset.workflowId, inputs,
    context: { connectorType: info.type, stateBefore: info.state },
  }, {}, (store, run) => runOperation({
    store, http: conn.http, run, spec: RESET, connectorType: info.type, inputs,
    ...(io.onProgress ? { onProgress: io.onProgress } : {}),
  }));
  return { ...outcome, diff: diffCounts(diff) };
}
