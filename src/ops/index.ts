// The operations core, one API for every face (the CLI, the web console): reads, plan → apply
// for each change, and the data types they exchange. Data in, events and results out; nothing
// here prompts, prints, reads files or stdin, or touches process state. Each room's own door
// (./<room>/index.ts) serves a face that needs only that room (docs/design.md).
// The door names what it exports (no `export *`): what the faces and tests use from each room, so a
// room's new export is a decision here, not a side effect.
export type { OpsContext } from './context.js';
export { OpsError, type ConnectorRefusal, type OpsErrorCode, type OpsHint } from './errors.js';
export { diffOffsets, offsetEntries, parseOffsetsJson, resolveLimits, validateOffsetsShape } from './offsets/index.js';
export type { OffsetDiffEntry, OffsetEntry } from './offsets/index.js';
export { getConnectorInfo, getOffsets, listConnectorNames, listConnectors } from './connect/index.js';
export type { ConnectorInfo, ConnectorSummary, TaskState } from './connect/index.js';
export { WorkerRoot, clusterIdentity, lookupKeys } from './cluster/index.js';
// The lifecycle and run rooms' changes are applied through ops/audit (the one door: policy,
// approval, lock, audit): only what reads or describes is exported from them here.
export type { LifecycleVerb, LifecycleOptions, LifecycleWait, LifecycleResult } from './lifecycle/index.js';
export { hasPosition, parsePosition, planPositions, positionScope, positionTargets } from './positions/index.js';
export type { PartitionFacts, PositionFlags, PositionNote, PositionPlan, PositionRow, PositionTargets } from './positions/index.js';
export { checkProfile, profileFor } from './profiles/index.js';
export type { ProfileOptions } from './profiles/index.js';
export { planReset, planResume, planRewind, planRollback } from './plan/index.js';
export type { Plan, ResumeAfter, TargetState } from './plan/index.js';
export { dryRunOutcome, unchangedOutcome, planAbandon, verifyTimeoutMs, describeState } from './run/index.js';
export type { ApplyOptions, OpsEvent, OpsRunEvent, AbandonPlan, AbandonRequest, OperationOutcome, RecoveryOutcome } from './run/index.js';
export { applyBatch, incompleteCount, newBatchId, outcomeSentence, planBatch, summarize } from './batch/index.js';
export type { BatchEvent, BatchFaceOptions, BatchRow } from './batch/index.js';
export {
  checkApprovedChange, checkSavedPlan, finishApplying, requestChange, requestedPlan, reviewChange, reviewedOps, sameIdentity, savePlan, startApplying,
  // Moves, copies, imports and consistent exports as change requests.
  approvedExport, approvedImport, approvedMove, checkExportRequest, checkImportRequest, checkMoveRequest, checkMoveUndoRequest,
  isExportRequest, isImportRequest, isMoveRequest, requestedMove,
  // `runs abandon` as a change request.
  approvedAbandon, checkAbandonRequest, isAbandonRequest,
  // The undo of an import as a change request.
  approvedImportUndo, checkImportUndoRequest, isImportUndoRequest,
} from './changes/index.js';
export type { CheckedConnector, CheckedPlan, SavedPlan } from './changes/index.js';
export { abandonAudited, applyAudited, approvalRule, auditRefusal, runAudited, verifyAuditTrail, wasAudited } from './audit/index.js';
export type { AuditScope, AuditedRun } from './audit/index.js';
export type {
  Store, RunRecord, SnapshotRecord, StepRecord, EventRecord, LockRecord, ChangeRequestRecord, ChangeRequestEvent, AuditActor, AuditRecord, AuditFilter, NewAuditEntry,
  Actor, ActorSource, SharedConsoleState,
} from '../store/index.js';
/** How records name who acted (the same words in both faces). */
export { actorName, describeActor } from '../store/index.js';
