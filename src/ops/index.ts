// The operations core, one API for every face (the CLI, the web console): reads, plan → apply
// for each change, and the data types they exchange. Data in, events and results out; nothing
// here prompts, prints, reads files or stdin, or touches process state. Each room's own door
// (./<room>/index.ts) serves a face that needs only that room (docs/design.md).
export type { OpsContext } from './context.js';
export { OpsError, type ConnectorRefusal, type OpsErrorCode, type OpsHint } from './errors.js';
export * from './offsets/index.js';
export * from './connect/index.js';
export * from './cluster/index.js';
// The lifecycle and run rooms' changes are applied through ops/audit (the one door: policy,
// approval, lock, audit): only what reads or describes is exported from them here.
export type { LifecycleVerb, LifecycleOptions, LifecycleWait, LifecycleResult } from './lifecycle/index.js';
export * from './positions/index.js';
export * from './profiles/index.js';
export * from './plan/index.js';
export { dryRunOutcome, unchangedOutcome, planAbandon, verifyTimeoutMs, describeState } from './run/index.js';
export type { ApplyOptions, OpsEvent, OpsRunEvent, AbandonPlan, AbandonRequest, OperationOutcome, RecoveryOutcome } from './run/index.js';
export * from './batch/index.js';
export * from './changes/index.js';
export * from './audit/index.js';
export type {
  Store, RunRecord, SnapshotRecord, StepRecord, EventRecord, LockRecord, ChangeRequestRecord, ChangeRequestEvent, AuditActor, AuditRecord, AuditFilter, NewAuditEntry,
  Actor, ActorSource, SharedConsoleState,
} from '../store/index.js';
/** How records name who acted (the same words in both faces). */
export { actorName, describeActor } from '../store/index.js';
