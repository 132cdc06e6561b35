// Undoing a move or a copy, whether it failed, was killed at any step, or finished: the
// connector runs again on the original cluster, with its offsets, and nothing of it is left on
// the other. What to do is decided from what Kafka Connect has now, not from how far the journal
// got (a kill can fall between a request and its journal entry):
//   move, the new connector exists and → move it back (the move workflow from the target to the
//     may have run, or the original is   original cluster: stop, snapshot, create or replace there,
//     gone                               write its offsets — the original's if it never ran, later
//                                        ones if it did —, delete it, start the original as it was)
//   move, the new one never ran and the → delete the new one (it may hold none or part of the
//     original is there                  offsets yet), put the original back in its state
//   move, only the original exists     → put the original back in its state (restore workflow,
//                                        no offsets: a move never changes the original's offsets)
//   copy                               → delete the copy if it exists, put the original back
// A sink translated across Kafka clusters keeps its original offsets on its own Kafka cluster
// (the move never wrote there), so the way back writes none.
import type { RunEvent } from '../../arazzo/index.js';
import { runWorkflow } from '../../arazzo/index.js';
import type { HttpSender } from '../../http/client.js';
import type { RunRecord, Store } from '../../store/index.js';
import { getConnectorInfo } from '../connect/index.js';
import { describeFailure } from '../run/index.js';
import { RunJournal } from '../run/index.js';
import { offsetEntries } from '../offsets/index.js';
import { RECOVERY, ROLLBACK, targetStateFor, type OperationSpec } from '../workflows/index.js';
import { readBackUntilMatch } from '../run/index.js';
import { loadOpsWorkflow } from '../workflows/index.js';
import { connectorExists, readConfig } from './connect-reads.js';
import { configSecrets, secretValues } from './config-secrets.js';
import { MoveJournal } from './move-journal.js';
import { DELETE_SPEC, loadDeleteWorkflow, loadMoveWorkflow, MOVE_RECOVERY_SPEC, MOVE_SPEC } from './workflow.js';

export interface UndoRequest {
  store: Store;
  /** Routes to both clusters. */
  http: HttpSender;
  /** The run the undo is journaled in: the failed move itself (recovery) or a new rollback run. */
  journalRun: RunRecord;
  /** True for a rollback run (it takes snapshots of its own); false inside a failed run. */
  ownRun: boolean;
  mode: 'move' | 'copy';
  connector: string;
  targetName: string;
  fromUrl: string;
  toUrl: string;
  connectorType: 'source' | 'sink';
  /** The original's state before the move (what it is put back to). */
  stateBefore: string | undefined;
  /** Offsets were translated across Kafka clusters: none are written back. */
  translated: boolean;
  /** A sink whose consumer group is the same on both clusters: nothing to clear there. */
  sameConsumerGroup: boolean;
  /**
   * The new connector may have run (its resume was sent): its offsets are then newer than the
   * original's, and the way back carries them. Until then the original's are the whole truth (the
   * new one may hold none, or only part, of them) and the new one is simply deleted.
   */
  targetMayHaveRun: boolean;
  /** The configuration's keys that hold literal secrets (their values are masked wherever written down). */
  secretKeys: readonly string[];
  onProgress?: (event: RunEvent) => void;
  beforeStep?: (stepId: string, runId: string) => Promise<void>;
  verifyTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface UndoOutcome {
  succeeded: boolean;
  /** What was done, in order ("moved back", "deleted the copy", "put the original back RUNNING"). */
  done: string[];
  error?: string;
  /** The workflow step that failed, when one did. */
  failedStep?: string;
  /** The original's state at the end, read from Kafka Connect. */
  sourceState?: string;
  /** The snapshot the undo's own run took (a rollback run). */
  snapshotId?: string;
}

export async function undoMove(req: UndoRequest): Promise<UndoOutcome> {
  const done: string[] = [];
  const desired = targetStateFor(req.stateBefore);
  let snapshotId: string | undefined;
  try {
    const [sourceThere, targetThere] = await Promise.all([
      connectorExists(req.http, req.fromUrl, req.connector),
      connectorExists(req.http, req.toUrl, req.targetName),
    ]);
    if (req.mode === 'move' && targetThere && (!sourceThere || req.targetMayHaveRun)) {
      const back = await moveBack(req, desired);
      snapshotId = back.snapshotId;
      if (!back.ok) return { succeeded: false, done, ...back.failure, ...(snapshotId ? { snapshotId } : {}) };
      done.push(`moved ${req.targetName} back from ${req.toUrl} to ${req.fromUrl} (${desired})`);
    } else {
      if (targetThere) {
        const deleted = await deleteTarget(req);
        snapshotId = deleted.snapshotId;
        if (!deleted.ok) return { succeeded: false, done, ...deleted.failure, ...(snapshotId ? { snapshotId } : {}) };
        done.push(req.mode === 'copy' ? `deleted the copy ${req.targetName} on ${req.toUrl}` : `deleted ${req.targetName} on ${req.toUrl}, which had not run`);
      }
      if (!sourceThere) {
        return { succeeded: false, done, error: `${req.connector} is on neither cluster any more (not on ${req.fromUrl}, and ${req.targetName} not on ${req.toUrl}): nothing to bring back; recreate it from a backup (\`offsetctl import\`)` };
      }
      const now = await getConnectorInfo(req.http, req.fromUrl, req.connector);
      if (now.state !== desired) {
        const restored = await restoreSource(req, desired);
        snapshotId ??= restored.snapshotId;
        if (!restored.ok) return { succeeded: false, done, ...restored.failure, ...(snapshotId ? { snapshotId } : {}) };
        done.push(`put ${req.connector} on ${req.fromUrl} back ${desired}`);
      }
    }
    const after = await getConnectorInfo(req.http, req.fromUrl, req.connector).catch(() => undefined);
    return { succeeded: true, done, ...(after ? { sourceState: after.state } : {}), ...(snapshotId ? { snapshotId } : {}) };
  } catch (err) {
    return { succeeded: false, done, error: (err as Error).message, ...(snapshotId ? { snapshotId } : {}) };
  }
}

type Step = { ok: true; snapshotId?: string } | { ok: false; failure: { error: string; failedStep?: string }; snapshotId?: string };

/** The move workflow the other way: from the target back to the original cluster. */
async function moveBack(req: UndoRequest, desired: 'RUNNING' | 'PAUSED' | 'STOPPED'): Promise<Step> {
  // The configuration as the target holds it: the real values, secrets included (they are never stored).
  const config = (await readConfig(req.http, req.toUrl, req.targetName)) ?? {};
  const secrets = secretValues(config, [...new Set([...req.secretKeys, ...configSecrets(config, []).literal])]);
  const inputs: Record<string, unknown> = {
    connectorName: req.targetName, targetName: req.connector, config: { ...config, name: req.connector },
    offsetsFrom: req.translated ? 'none' : 'captured', offsets: [], sourceAfter: 'delete', targetState: desired,
    clearStaleOffsets: !req.sameConsumerGroup, targetMayExist: true, holdAfterCapture: false,
  };
  const workflow = await loadMoveWorkflow(req.toUrl, req.fromUrl);
  const spec = req.ownRun ? MOVE_SPEC : MOVE_RECOVERY_SPEC;
  const controller = abortWith(req.signal);
  const journal = new MoveJournal({
    store: req.store, run: req.journalRun, spec, connectorType: req.connectorType, inputs, controller,
    ...(req.onProgress ? { onProgress: req.onProgress } : {}), ...(req.beforeStep && req.ownRun ? { beforeStep: req.beforeStep } : {}),
    reverify: (requested) => readBackUntilMatch(req.http, req.fromUrl, req.connector, requested, req.verifyTimeoutMs !== undefined ? { timeoutMs: req.verifyTimeoutMs } : {}),
    secrets, writes: { steps: ['writeCapturedOffsets', 'writeGivenOffsets'], verifyStep: 'verifyTargetOffsets', verifyOutput: 'targetOffsets' },
    written: (step, ins, captured) => (step === 'writeGivenOffsets' ? offsetEntries(ins.offsets ?? []) : captured ?? []),
  });
  const result = await runWorkflow({ registry: workflow.registry, workflowId: workflow.workflowId, inputs, http: req.http, onEvent: journal.onEvent, signal: controller.signal }).finally(() => journal.flush());
  const snapshotId = req.ownRun ? journal.inner.snapshotId : undefined;
  if (result.status === 'passed' && !journal.inner.safetyError) return { ok: true, ...(snapshotId ? { snapshotId } : {}) };
  return { ok: false, failure: { error: `moving it back failed: ${describeFailure(result, journal.inner)}`, ...(journal.inner.lastFailedStep ? { failedStep: journal.inner.lastFailedStep } : {}) }, ...(snapshotId ? { snapshotId } : {}) };
}

async function deleteTarget(req: UndoRequest): Promise<Step> {
  const workflow = await loadDeleteWorkflow(req.toUrl);
  const inputs = { connectorName: req.targetName };
  const spec: OperationSpec = req.ownRun ? DELETE_SPEC : { ...DELETE_SPEC, operation: 'recovery', persistSnapshot: false };
  return runJournaled(req, workflow, inputs, spec, 'deleting the copy');
}

async function restoreSource(req: UndoRequest, desired: 'RUNNING' | 'PAUSED' | 'STOPPED'): Promise<Step> {
  const workflow = await loadOpsWorkflow('restore', req.fromUrl);
  const inputs = { connectorName: req.connector, offsets: [], targetState: desired };
  return runJournaled(req, workflow, inputs, req.ownRun ? ROLLBACK : RECOVERY, `putting ${req.connector} back`);
}

async function runJournaled(req: UndoRequest, workflow: Awaited<ReturnType<typeof loadDeleteWorkflow>>, inputs: Record<string, unknown>, spec: OperationSpec, what: string): Promise<Step> {
  const controller = abortWith(req.signal);
  const journal = new RunJournal({
    store: req.store, run: req.journalRun, spec, connectorType: req.connectorType, inputs, controller,
    ...(req.onProgress ? { onProgress: req.onProgress } : {}),
  });
  const result = await runWorkflow({ registry: workflow.registry, workflowId: workflow.workflowId, inputs, http: req.http, onEvent: journal.onEvent, signal: controller.signal }).finally(() => journal.flush());
  const snapshotId = spec.persistSnapshot ? journal.snapshotId : undefined;
  if (result.status === 'passed' && !journal.safetyError) return { ok: true, ...(snapshotId ? { snapshotId } : {}) };
  return { ok: false, failure: { error: `${what} failed: ${describeFailure(result, journal)}`, ...(journal.lastFailedStep ? { failedStep: journal.lastFailedStep } : {}) }, ...(snapshotId ? { snapshotId } : {}) };
}

/** A controller that an outer signal (Ctrl-C of a rollback run) aborts too. */
function abortWith(signal: AbortSignal | undefined): AbortController {
  const controller = new AbortController();
  if (signal?.aborted) controller.abort();
  signal?.addEventListener('abort', () => controller.abort(), { once: true });
  return controller;
}
