// The store's public surface: the Store interface (snapshots, the run journal, the per-connector
// lock) and its SQLite backend, the default. Faces open a store and pass it in (OpsContext).
import { openSqliteStore } from './sqlite/index.js';
import type { Store, StoreOptions } from './types.js';

export { openSqliteStore, SqliteStore, STORE_FILE, sqliteDriver } from './sqlite/index.js';
export { StoreError, type StoreErrorCode } from './errors.js';
export { urlKey } from './ids.js';
export { parseAge, snapshotsToPrune, type PruneRule } from './prune.js';
export { isProcessAlive, localHolderAlive, thisProcess } from './process.js';
export { actorName, describeActor } from './actor.js';
export { canonicalJson, verifyStoreAudit, verifyAuditChain, type AuditChainReport } from './audit-chain.js';
export { lockedError } from './lock-text.js';
export { connectGroupLockKey, groupLockKey, isGroupKey, lockBase, offsetsTopicLockKey } from './lock-scope.js';
export { openChosenStore, isTeamStore, type StoreChoice } from './open.js';
export type {
  Actor, ActorSource, AuditAction, AuditActor, AuditChainRow, AuditDiffEntry, AuditFilter, AuditOutcome, AuditRecord, NewAuditEntry, SignIn,
  BatchMember, BatchRecord, ChangeOperation, ImportCounts, StoreDescription, EventRecord, LockHolder, LockRecord, NewBatch, NewRun, NewSnapshot, Operation, RunContext, RunFilter, RunOutcome, RunRecord, RunStatus,
  SharedConsoleState, SnapshotFilter, SnapshotRecord, StepRecord, Store, StoreOptions,
  // The store by concern, for callers that need one part (Store is all of them).
  RunsStore, LocksStore, SnapshotsStore, AuditStore, PoliciesStore, ChangeRequestsStore, BatchesStore, StoreAdmin,
  ChangeRequestStatus, ChangeRequestEvent, NewChangeRequest, ChangeRequestRecord, ChangeRequestFilter, ChangeRequestMove, NewPolicy, PolicyRecord,
} from './types.js';

/** Opens the default store (SQLite) in a state folder. */
export function openStore(stateDir: string, options: StoreOptions = {}): Store {
  return openSqliteStore(stateDir, options);
}
export type { PgPool, PgSettings } from './postgres/index.js';
import * as load from './load.js';

/**
 * The team store's reading of a libpq URL and its driver, loaded on first use: ops' connector
 * profiles read a Debezium source's replication slot with them (src/ops/profiles/source-db.ts).
 */
export async function postgresDriver(): Promise<Pick<typeof import('./postgres/index.js'), 'pgSettings' | 'loadPg'>> {
  const { pgSettings, loadPg } = await load.postgresBackend();
  return { pgSettings, loadPg };
}
