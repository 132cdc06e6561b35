// A change that changes nothing is not run at all: no stop, no snapshot, no journal entry.
// Stopping and restarting a connector to write the offsets it already has only costs a
// rebalance, and an empty snapshot would become the default rollback target.
import type { SnapshotRecord, Store } from '../store/index.js';
import type { ResumeAfter } from './begin-change.js';
import type { OffsetDiff } from './diff.js';
import { targetStateFor } from './operations.js';
import type { OperationOutcome } from './run-operation.js';

/**
 * True when the diff has nothing changed, added or removed and the run would leave the connector
 * in the state it is in (`--resume` on a PAUSED connector, or `--leave-stopped` on a RUNNING one,
 * is still a change).
 */
export function changesNothing(diff: OffsetDiff, state?: { now: string; resumeAfter: ResumeAfter }): boolean {
  const same = diff.counts.changed + diff.counts.added + diff.counts.removed === 0;
  if (!same || !state) return same;
  const end = state.resumeAfter === 'never' ? 'STOPPED' : state.resumeAfter === 'always' ? 'RUNNING' : targetStateFor(state.now);
  return end === state.now;
}

/** The outcome of a change with nothing to do: status `unchanged`, exit 0. */
export function nothingToChange(base: Pick<OperationOutcome, 'operation' | 'connector' | 'clusterUrl'>, diff: OffsetDiff, why: string): OperationOutcome {
  return {
    ...base, status: 'unchanged', warnings: [], diff: { ...diff.counts },
    message: `nothing to change: ${why}; ${base.connector} was not stopped and no snapshot was taken`,
  };
}

/**
 * The snapshot `rollback` restores by default: the newest one, except that empty snapshots taken
 * by a reset are skipped (a reset of a connector that had no offsets changed nothing, so there is
 * nothing to go back to; older stores have such snapshots). An empty snapshot taken by a rewind or
 * rollback is a real "no offsets before" and stays a target, with a warning from the caller.
 */
export function defaultRollbackSnapshot(store: Store, candidates: SnapshotRecord[]): { snapshot: SnapshotRecord | undefined; skipped: SnapshotRecord[] } {
  const skipped: SnapshotRecord[] = [];
  for (const s of candidates) {
    if (s.partitions === 0 && takenByReset(store, s)) {
      skipped.push(s);
      continue;
    }
    return { snapshot: store.getSnapshot(s.id), skipped };
  }
  return { snapshot: undefined, skipped };
}

function takenByReset(store: Store, s: SnapshotRecord): boolean {
  if (!s.runId) return true;
  try {
    return store.getRun(s.runId).operation === 'reset';
  } catch {
    return true;
  }
}
