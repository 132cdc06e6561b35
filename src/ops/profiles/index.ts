// The profiles room: per connector class, what its offsets mean and where the rest of its
// position lives (docs/connectors.md). Planning (ops/plan, ops/move) and the lifecycle verbs ask
// `checkProfile` before anything changes: it reads what it needs, returns facts and warnings for
// the dry run, and refuses with an OpsError (exit 2) a change that would lose or duplicate data.
import { profileFor } from './registry.js';
import type { ProfileCheck, ProfileReport } from './profile.js';

export type { ExclusiveHold, ProfileCheck, ProfileOperation, ProfileOptions, ProfileReport, Replayed, SourceIdentity } from './profile.js';
export type { SourceDbSettings } from './source-db.js';
// The verify room reads the slot after a resume (--verify).
export { capturedRowChanges, readSourceDb } from './source-db.js';
// A move waits for a Debezium source's slot to be let go before it starts the new connector.
export { awaitSlotReleased, SLOT_RELEASE_WAIT_MS, type SlotRelease } from './slot-release.js';
export { profileFor } from './registry.js';
export { replayedRecords } from './replayed.js';
export { classifyTarget, debeziumPosition, parseLsn, pgLsn, showLsn, usecTime, type Lsn, type SlotWindow, type TargetClass } from './lsn.js';
export { DEBEZIUM_POSTGRES, debeziumOptions, refusalFor, resetOutcome } from './debezium-postgres.js';
export { ICEBERG_SINK, JDBC_SINK } from './sinks.js';
export { catalogRefusal, chooseSnapshot, type IcebergPlan, type IcebergTableStep, type RecordedTable } from './iceberg.js';
export { parseExact } from './iceberg-catalog.js';

/** The connector's profile asked about one change: facts and warnings for the plan, or a refusal (OpsError, exit 2). */
export async function checkProfile(check: ProfileCheck): Promise<ProfileReport> {
  return profileFor(check.connector.config).check(check);
}
