// The operations core, one API for every face (the CLI, the web console): reads, plan → apply
// for each change, and the data types they exchange. Data in, events and results out; nothing
// here prompts, prints, reads files or stdin, or touches process state. Each room's own door
// (./<room>/index.ts) serves a face that needs only that room (docs/design.md).
export type { OpsContext } from './context.js';
export { OpsError, type OpsErrorCode, type OpsHint } from './errors.js';
export * from './offsets/index.js';
export * from './connect/index.js';
export * from './cluster/index.js';
export * from './lifecycle/index.js';
export * from './positions/index.js';
export * from './plan/index.js';
export * from './run/index.js';
export * from './batch/index.js';
export * from './changes/index.js';
export * from './audit/index.js';
export type {
  Store, RunRecord, SnapshotRecord, StepRecord, EventRecord, LockRecord, ChangeRequestRecord, ChangeRequestEvent, AuditActor, AuditRecord, AuditFilter, NewAuditEntry,
  Actor, ActorSource,
} from '../store/index.js';
/** How records name who acted (the same words in both faces). */
export { actorName, describeActor } from '../store/index.js';
