// `offsetctl rewind`: pre-flight (nothing changes if it fails), then the rewind workflow.
import { describeState } from './failure-text.js';
import { clusterIdentity } from './cluster-identity.js';
import { getConnectorInfo, getOffsets } from './connect-client.js';
import { diffOffsets } from './diff.js';
import { changesNothing, nothingToChange } from './empty-change.js';
import { validateOffsetsShape } from './offsets-shape.js';
import { checkPluginRules } from './plugin-rules.js';
import { offsetsList } from './offsets-plan.js';
import { readOffsetsInput } from './preflight-input.js';
import { checkTargetsOnCluster } from './target-preflight.js';
import { confirmForwardTargets, describeForwardTargets } from './forward-targets.js';
import { boundedStdin, checkInputSize, checkPartitionCount, resolveLimits, type LimitFlags } from './limits.js';
import { REWIND } from './operations.js';
import { presentAndConfirm, resumeAfterFrom, withNewRun, diffCounts, type ChangeFlags, type OpsConnection, type OpsIO } from './begin-change.js';
import { runOperation, type OperationOutcome } from './run-operation.js';
import { WORKFLOW_FILES } from './workflow-files.js';

export interface RewindRequest extends ChangeFlags, LimitFlags {
  /** Kafka bootstrap servers for the broker checks (sink partitions, log ends); else OFFSETCTL_BOOTSTRAP. */
  bootstrap?: string;
  /** Write targets beyond a partition's end without asking. */
  allowForward?: boolean;
  connector: string;
  /** A file, or `-` for stdin: `{"offsets": [...]}` or a bare list. */
  offsets: string;
}

/**
 * Rewinds (or otherwise alters) a connector's offsets through the rewind workflow.
 *
 * @example await rewindConnector(conn, { connector: 'orders-sink', offsets: 'new.json', yes: true }, io)
 */
export async function rewindConnector(conn: OpsConnection, req: RewindRequest, io: OpsIO): Promise<OperationOutcome> {
  const resumeAfter = resumeAfterFrom(req);
  const limits = resolveLimits(req);
  await checkInputSize(req.offsets, limits);
  const raw = await readOffsetsInput(req.offsets, req.offsets === '-' ? boundedStdin(limits) : undefined);
  checkPartitionCount(offsetsList(raw).length, limits, req.offsets === '-' ? 'the offsets input' : req.offsets);
  const info = await getConnectorInfo(conn.http, conn.url, req.connector);
  validateOffsetsShape(info.type, raw);
  const target = offsetsList(raw);
  for (const warning of checkPluginRules(info.config, target as Parameters<typeof checkPluginRules>[1])) io.info(`warning: ${warning}`);
  const forward = await checkTargetsOnCluster(conn, info, target, req, io);
  const current = await getOffsets(conn.http, conn.url, req.connector);
  const diff = diffOffsets(current, target);
  const base = { operation: 'rewind', connector: req.connector, clusterUrl: conn.url };
  if (changesNothing(diff, { now: info.state, resumeAfter })) return nothingToChange(base, diff, `the ${target.length} partition(s) already have these offsets`);
  const stop = await presentAndConfirm({
    io, flags: req, diff, base, notes: describeForwardTargets(forward),
    heading: `Connector ${req.connector} (${info.type}, ${describeState(info)}) on ${conn.url}: ${target.length} partition(s) to write`,
    question: `Rewind ${req.connector}? It is stopped while its offsets change, then ${resumeAfter === 'never' ? 'left STOPPED' : resumeAfter === 'always' ? 'resumed' : `put back to ${info.state}`}.`,
  });
  if (stop) return stop;
  await confirmForwardTargets(forward, req);
  const inputs = { connectorName: req.connector, offsets: target, resumeAfter };
  const outcome = await withNewRun(conn.stateDir, {
    clusterUrl: conn.url, clusterKey: (await clusterIdentity(conn.http, conn.url)).key, connector: req.connector, operation: 'rewind',
    workflowFile: WORKFLOW_FILES.rewind.file, workflowId: WORKFLOW_FILES.rewind.workflowId, inputs,
    context: { connectorType: info.type, stateBefore: info.state },
  }, {}, (store, run) => runOperation({
    store, http: conn.http, run, spec: REWIND, connectorType: info.type, inputs, chunkSize: limits.chunkSize,
    onChunk: (i, n, size) => io.info(`writing chunk ${i}/${n} (${size} partitions)`),
    ...(io.onProgress ? { onProgress: io.onProgress } : {}),
  }));
  return { ...outcome, diff: diffCounts(diff) };
}
