// The operations core, one API for every face (the CLI, the web console): reads, plan → apply
// for each change, and the data types they exchange. Data in, events and results out; nothing
// here prompts, prints, reads files or stdin, or touches process state.
export type { OpsContext } from './context.js';
export { planRewind, planReset, planRollback, planResume, dryRunOutcome, unchangedOutcome, resumePointFor } from './plan.js';
export type { Plan, ResumeAfter, TargetState, RewindRequest, ResetRequest, RollbackRequest, ResumeRequest } from './plan.js';
export { applyPlan } from './apply.js';
export type { ApplyOptions, OpsEvent, OpsRunEvent } from './apply.js';
export type { OperationOutcome } from './run-operation.js';
export type { RecoveryOutcome } from './recover.js';
export { changeConnectorState } from './lifecycle.js';
export type { LifecycleVerb, LifecycleOptions, LifecycleWait, LifecycleResult } from './lifecycle.js';
export { getConnectorInfo, getOffsets, listConnectors, listConnectorNames } from './connect-client.js';
export type { ConnectorInfo, ConnectorSummary, TaskState } from './connect-client.js';
export { offsetEntries, partitionKey, sameOffset, offsetKey, canonicalJson } from './offsets.js';
export type { OffsetEntry, ConnectorOffsets, ConnectorType } from './offsets.js';
export { validateOffsetsShape } from './offsets-shape.js';
export { diffOffsets } from './diff.js';
export type { OffsetDiff, OffsetDiffEntry, DiffKind, DiffOptions } from './diff.js';
export { OpsError, type OpsErrorCode } from './errors.js';
export { planBatch, applyBatch, summarize, newBatchId, parseConcurrency, DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './batch.js';
export type { BatchPlan, BatchApplyOptions, ConnectorOps, BatchRow, BatchRowStatus, BatchSummary, BatchEvent, BatchOptions, PlannedBatch } from './batch.js';
export { selectConnectors, checkSelection, type BatchSelection } from './batch-select.js';
export { changeOps, resumeOps, type ChangeRequest, type BatchOperation, type BatchFaceOptions } from './batch-ops.js';
export { hasPosition, parsePosition, parseTime, planPositions, describePosition } from './positions.js';
export type { Position, PositionFlags, PartitionFacts, PositionNote, PositionRow, PositionPlan } from './positions.js';
export { positionScope, positionTargets } from './positions-targets.js';
export type { PositionScope, PositionTargets, TargetsConnection } from './positions-targets.js';
export { DEFAULT_LIMITS, resolveLimits, type OffsetLimits, type LimitFlags } from './limits.js';
export { DEFAULT_VERIFY_TIMEOUT_MS, verifyTimeoutMs } from './verify-read.js';
export type { ForwardTarget } from './forward-targets.js';
export type { Store, RunRecord, SnapshotRecord, StepRecord, EventRecord, LockRecord } from '../store/index.js';
