// The batch room: many connectors as many plans. Select them, plan every one first, then apply
// the plans a few at a time under one batch id, and sum up what happened to each.
export { planBatch, applyBatch, summarize, incompleteCount, outcomeSentence, newBatchId, parseConcurrency } from './batch.js';
export type { BatchPlan, BatchApplyOptions, ConnectorOps, BatchRow, BatchRowStatus, BatchSummary, BatchEvent, BatchOptions, PlannedBatch } from './batch.js';
export { selectConnectors, checkSelection, type BatchSelection } from './batch-select.js';
export { changeOps, resumeOps, type ChangeRequest, type BatchOperation, type BatchFaceOptions } from './batch-ops.js';
