// `offsetctl store import`: copies one store's runs (with their journal), snapshots, batches and audit
// trail into another, ids and times kept. Read through the source's Store interface; written through the target's
// ImportSink, which inserts a row only when its id is new, so a second import adds nothing.
import type { AuditRecord, BatchRecord, EventRecord, ImportCounts, RunRecord, SnapshotRecord, StepRecord, Store } from './types.js';

export interface ImportSink {
  /** Inserts the run and its journal in one transaction; false when a run with that id exists. */
  importRun(run: RunRecord, steps: StepRecord[], events: EventRecord[]): Promise<boolean>;
  /** False when a snapshot with that id exists. */
  importSnapshot(snapshot: SnapshotRecord): Promise<boolean>;
  /** False when an audit entry with that id exists (the trail stays append-only: nothing is replaced). */
  importAudit(entry: AuditRecord): Promise<boolean>;
  /** False when a batch with that id exists; its members and creation time are kept. */
  importBatch(batch: BatchRecord): Promise<boolean>;
}

export async function importStore(source: Store, target: ImportSink): Promise<ImportCounts> {
  const counts: ImportCounts = { runs: 0, snapshots: 0, audit: 0, batches: 0, skippedRuns: 0, skippedSnapshots: 0, skippedAudit: 0, skippedBatches: 0 };
  // Oldest first, so the target's insertion order (its tie-break for equal times) matches the source's.
  const runs = (await source.listRuns({ limit: Number.MAX_SAFE_INTEGER })).reverse();
  for (const run of runs) {
    const added = await target.importRun(run, await source.stepsOf(run.id), await source.eventsOf(run.id));
    if (added) counts.runs += 1;
    else counts.skippedRuns += 1;
  }
  for (const listed of (await source.listSnapshots()).reverse()) {
    const added = await target.importSnapshot(await source.getSnapshot(listed.id));
    if (added) counts.snapshots += 1;
    else counts.skippedSnapshots += 1;
  }
  // A batch's members, so `runs --batch` and `runs resume --batch` there know the ones that never started.
  for (const batch of await source.listBatches()) {
    if (await target.importBatch(batch)) counts.batches += 1;
    else counts.skippedBatches += 1;
  }
  // Oldest first, as runs: the target's tie-break for entries of one instant keeps their order.
  for (const entry of (await source.listAudit({ limit: Number.MAX_SAFE_INTEGER })).reverse()) {
    if (await target.importAudit(entry)) counts.audit += 1;
    else counts.skippedAudit += 1;
  }
  return counts;
}
