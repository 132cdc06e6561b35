// Putting a connector back after a run failed once it had been stopped: the restore workflow
// writes back what the failed run may have changed (from its stored snapshot) and brings the
// connector to the state it was in before.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../../store/index.js';
import { runWorkflowInChunks } from './chunked-write.js';
import { describeFailure } from './failure-text.js';
import { RunJournal, type RunParts } from './journal.js';
import { getOffsets } from '../connect/index.js';
import { findMismatches, offsetEntries, planUndoOfWrite, type OffsetEntry } from '../offsets/index.js';
import { RECOVERY, targetStateFor, loadOpsWorkflow, type TargetState } from '../workflows/index.js';
import { readBackUntilMatch } from './verify-read.js';

export interface RecoveryOutcome {
  /** Offsets written back (empty when the failed run had not reached its write step). */
  restoredOffsets: OffsetEntry[];
  snapshotId?: string;
  targetState: 'RUNNING' | 'PAUSED' | 'STOPPED';
  succeeded: boolean;
  error?: string;
  /** Offsets may have changed, but there was no snapshot to restore them from. */
  offsetsUnrecoverable?: boolean;
  /** The change step had started, but a read showed the offsets still as in the snapshot. */
  offsetsUnchanged?: boolean;
  /** The restore workflow's write step succeeded. */
  offsetsWritten: boolean;
  /** The run failed only because its read-back did not show the write; a later read did, so the write was kept. */
  offsetsKept?: boolean;
  /** The state store refused the recovery's journal (a full disk): the connector was put back all the same. */
  journalError?: string;
}

/** The failed run (`spec` is its operation, `inputs` what it asked to write), and how far it got. */
export interface RecoveryRequest extends RunParts {
  initialState: string | undefined;
  mutationStarted: boolean;
  /**
   * The change request got no answer (reset, timeout): it may have been applied, and a read right
   * after can be stale (a source's offsets are read back from the offsets topic), so the snapshot
   * is written back whatever a read shows.
   */
  mutationOutcomeUnknown?: boolean;
  /** Partitions per PATCH when writing back (src/ops/offsets/limits.ts). */
  chunkSize?: number;
  /** The run failed because its read-back did not show the write: that is not proof the write was wrong. */
  writeUnproven?: boolean;
  /** How long a read-back may take to show a write (src/ops/run/verify-read.ts). */
  verifyTimeoutMs?: number;
  /**
   * What the failed run's own process knows without the store: the snapshot it stored (id and
   * offsets, as read by its snapshot step). Putting a connector back needs Connect, not the
   * store: a team store that stopped answering must not leave the connector STOPPED (issue 30).
   */
  known?: { snapshotId?: string; snapshotOffsets?: unknown[] };
  /**
   * The change was made and a read shows it (the store failed after it): nothing is undone, and
   * the connector is brought to this state, the one its plan ends in.
   */
  keepChange?: TargetState;
}

/**
 * A recovery whose restore workflow "failed" only because a task that had already FAILED before
 * the run fails again is, for the operator, a recovery that put the connector back as it was.
 */
export function recoveryAsBefore(recovery: RecoveryOutcome | undefined, nowText: string | undefined, beforeText: string | undefined): RecoveryOutcome | undefined {
  if (!recovery || recovery.succeeded || !nowText || nowText !== beforeText) return recovery;
  const { error: _error, ...rest } = recovery;
  return { ...rest, succeeded: true };
}

export async function recoverConnector(req: RecoveryRequest): Promise<RecoveryOutcome> {
  const { run, spec } = req;
  // Putting the connector back comes before journaling it: a store that cannot write (a full
  // disk) must not leave the connector STOPPED. Its write errors are kept and reported instead.
  let journalError: string | undefined;
  const store = journalTolerant(req.store, (err) => (journalError ??= (err as Error).message));
  // The store that failed the run may not answer: then the run as it was opened, and what this
  // process knows (its snapshot, whether the change step started), decide alone.
  const context = await store.getRun(run.id).then((r) => r.context, (err: unknown) => {
    journalError ??= (err as Error).message;
    return { ...run.context, ...(req.known?.snapshotId ? { snapshotId: req.known.snapshotId } : {}) };
  });
  const targetState = req.keepChange ?? targetStateFor(req.initialState ?? context.stateBefore);
  let offsets: OffsetEntry[] = [];
  let offsetsUnrecoverable = false;
  let offsetsUnchanged = false;
  let offsetsKept = false;
  const mayHaveChanged = req.mutationStarted || context.offsetsMayHaveChanged === true;
  // Never undo a write that was not proven wrong: when the run failed only because its read-back
  // lagged, read once more; if the write shows now, it stays and only the state is put back.
  if (req.keepChange) offsetsKept = true;
  else if (mayHaveChanged && req.writeUnproven && spec.operation !== 'reset' && await writeShows(req)) offsetsKept = true;
  else if (mayHaveChanged) {
    if (context.snapshotId) {
      const snapshot = offsetEntries(await snapshotOffsets(store, context.snapshotId, req.known));
      offsets = spec.operation === 'reset' ? snapshot : planUndoOfWrite(offsetEntries(req.inputs.offsets ?? []), snapshot);
      // A change Connect refused left the offsets alone: then only the state needs restoring
      // (writing them anyway could fail the same way and strand the connector STOPPED). A change
      // that got no answer is not known to be refused: it is undone whatever a read shows.
      if (!req.mutationOutcomeUnknown && await stillAsPlanned(req, offsets)) {
        offsets = [];
        offsetsUnchanged = true;
      }
    } else {
      offsetsUnrecoverable = true;
    }
  }
  await store.updateRunContext(run.id, { recoveryStarted: true });
  const workflow = await loadOpsWorkflow('restore', run.clusterUrl);
  const restore = async (toWrite: OffsetEntry[]) => {
    const inputs = { connectorName: run.connector, offsets: toWrite, targetState };
    const controller = new AbortController();
    const journal = new RunJournal({
      store, run, spec: RECOVERY, connectorType: req.connectorType, inputs, controller,
      ...(req.onProgress ? { onProgress: req.onProgress } : {}),
      reverify: (requested) => readBackUntilMatch(req.http, run.clusterUrl, run.connector, requested, req.verifyTimeoutMs !== undefined ? { timeoutMs: req.verifyTimeoutMs } : {}),
    });
    const result = await runWorkflowInChunks({ workflow, inputs, http: req.http, onEvent: journal.onEvent, signal: controller.signal, mutatingStep: RECOVERY.mutatingStep, chunkSize: req.chunkSize ?? Number.POSITIVE_INFINITY })
      .finally(() => journal.flush());
    return { result, journal };
  };
  let { result, journal } = await restore(offsets);
  // The write back failed (Connect refuses nulls for a partition that does not exist, as it
  // refused the change): when what is live is already what it would have written, there was
  // nothing to restore, and the connector is put back with its state alone instead of left STOPPED.
  if ((result.status !== 'passed' || journal.safetyError) && offsets.length > 0 && !journal.mutationPassed && await stillAsPlanned(req, offsets)) {
    offsets = [];
    offsetsUnchanged = true;
    ({ result, journal } = await restore([]));
  }
  return {
    restoredOffsets: offsets,
    ...(context.snapshotId ? { snapshotId: context.snapshotId } : {}),
    targetState,
    succeeded: result.status === 'passed' && !journal.safetyError,
    ...(result.status !== 'passed' || journal.safetyError ? { error: `step ${journal.lastFailedStep ?? '?'} of the restore workflow failed: ${describeFailure(result, journal)}` } : {}),
    ...(offsetsUnrecoverable ? { offsetsUnrecoverable } : {}),
    ...(offsetsUnchanged ? { offsetsUnchanged } : {}),
    ...(offsetsKept ? { offsetsKept } : {}),
    offsetsWritten: journal.mutationPassed,
    ...(journalError ? { journalError } : {}),
  };
}

/** The snapshot's offsets from the store, else (the store does not answer) as this process read and stored them. */
async function snapshotOffsets(store: Store, id: string, known: RecoveryRequest['known']): Promise<unknown[]> {
  try {
    return (await store.getSnapshot(id)).offsets;
  } catch (err) {
    if (known?.snapshotId === id && known.snapshotOffsets) return known.snapshotOffsets;
    throw err;
  }
}

/** The store with its journal writes made best-effort (reads and everything else unchanged). */
function journalTolerant(store: Store, onError: (err: unknown) => void): Store {
  const tolerant = new Set<PropertyKey>(['recordEvent', 'recordEvents', 'recordStep', 'updateRunContext']);
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      if (!tolerant.has(key)) return method;
      return async (...args: unknown[]): Promise<void> => {
        try {
          await method(...args);
        } catch (err) {
          onError(err);
        }
      };
    },
  });
}
/** True when a (retried) read shows every offset the failed run asked for. */
async function writeShows(req: RecoveryRequest): Promise<boolean> {
  try {
    return (await readBackUntilMatch(req.http, req.run.clusterUrl, req.run.connector, offsetEntries(req.inputs.offsets ?? []), { timeoutMs: Math.min(5_000, req.verifyTimeoutMs ?? 5_000) })).length === 0;
  } catch {
    return false;
  }
}

/**
 * True when a read shows every planned partition already as planned; false when unsure. A read
 * that fails is tried again for a few seconds: right after a refused change Connect may answer
 * one read with an error, and "unsure" means writing offsets that may be refused the same way.
 */
async function stillAsPlanned(req: RecoveryRequest, planned: OffsetEntry[]): Promise<boolean> {
  const deadline = Date.now() + 5_000;
  for (let pause = 250; ; pause = Math.min(pause * 2, 1_000)) {
    try {
      const current = offsetEntries(await getOffsets(req.http, req.run.clusterUrl, req.run.connector));
      return findMismatches(planned, current).length === 0;
    } catch {
      if (Date.now() + pause > deadline) return false;
      await sleep(pause);
    }
  }
}
