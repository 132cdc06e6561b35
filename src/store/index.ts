// The store's public surface: snapshots, the run journal and the per-connector lock.
export { openStore, Store, STORE_FILE } from './store.js';
export { StoreError, type StoreErrorCode } from './errors.js';
export { isProcessAlive } from './process.js';
export { urlKey } from './schema.js';
export { parseAge, snapshotsToPrune, type PruneRule } from './prune.js';
export type { EventRecord, LockRecord, NewRun, NewSnapshot, Operation, RunContext, RunRecord, RunStatus, SnapshotRecord, StepRecord } from './types.js';
