// A change that changes nothing is not run at all: no stop, no snapshot, no journal entry.
// Stopping and restarting a connector to write the offsets it already has only costs a
// rebalance, and an empty snapshot would become the default rollback target.
import type { SnapshotRecord, Store } from '../../store/index.js';
import type { OffsetDiff } from '../offsets/index.js';
import { targetStateFor, type ResumeAfter } from '../workflows/index.js';

/**
 * True when the diff has nothing changed, added or removed and the run would leave the connector
 * in the state it is in (`--resume` on a PAUSED connector, or `--leave-stopped` on a RUNNING one,
 * is still a change; so is a FAILED connector, which the run would restart).
 */
export function changesNothing(diff: OffsetDiff, state?: { now: string; resumeAfter: ResumeAfter }): boolean {
  const same = diff.counts.changed + diff.counts.added + diff.counts.removed === 0;
  if (!same || !state) return same;
  const end = state.resumeAfter === 'never' ? 'STOPPED' : state.resumeAfter === 'always' ? 'RUNNING' : targetStateFor(state.now);
  return end === state.now;
}

/**
 * The snapshot `rollback` restores by default: the newest one, except that empty snapshots taken
 * by a reset are skipped (a reset of a connector that had no offsets changed nothing, so there is
 * nothing to go back to; older stores have such snapshots). An empty snapshot taken by a rewind or
 * rollback is a real "no offsets before" and stays a target, with a warning from the planner.
 */
export async function defaultRollbackSnapshot(store: Store, candidates: SnapshotRecord[]): Promise<{ snapshot: SnapshotRecord | undefined; skipped: SnapshotRecord[] }> {
  const skipped: SnapshotRecord[] = [];
  for (const s of candidates) {
    if (s.partitions === 0 && await takenByReset(store, s)) {
      skipped.push(s);
      continue;
    }
    return { snapshot: await store.getSnapshot(s.id), skipped };
  }
  return { snapshot: undefined, skipped };
}

async function takenByReset(store: Store, s: SnapshotRecord): Promise<boolean> {
  if (!s.runId) return true;
  try {
    return (await store.getRun(s.runId)).operation === 'reset';
  } catch {
    return true;
  }
}
