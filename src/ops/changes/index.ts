// The changes room: changes that can be reviewed. A plan saved as data (digest, who planned it),
// checked against the cluster again when it is applied (identity, age, offsets that moved), and
// applied exactly as saved; a change request is the same document waiting for someone else's yes.
export { savePlan, readSavedPlan, type SavedPlan, type SavedPlanContent, type PlannedBy, type SavedOperation } from './saved-plan.js';
export { checkSavedPlan, ago, DEFAULT_MAX_AGE_MS, type CheckOptions, type CheckedPlan, type CheckedConnector } from './check.js';
export type { Movement, PartitionMovement } from './movement.js';
export { movedRefusal, reviewedOps } from './apply-reviewed.js';
export { requestChange, reviewChange, checkApprovedChange, startApplying, finishApplying, requestedPlan, requestedMove, approvedMove, approvedAbandon, approvedImportUndo, approvedImport, approvedExport, sameIdentity, type RequestOptions, type ReviewOptions, type ApplyCheck } from './requests.js';
export { moveRequestDoc, checkMoveRequest, moveUndoRequestDoc, checkMoveUndoRequest, isMoveRequest, type MoveRequestDoc, type MoveChoices, type MovePlanFacts, type MoveUndoFacts } from './move-request.js';
export { importRequestDoc, checkImportRequest, isImportRequest, type ImportChoices, type ImportPlanFacts } from './import-request.js';
export { exportRequestDoc, checkExportRequest, isExportRequest } from './export-request.js';
export { abandonRequestDoc, checkAbandonRequest, isAbandonRequest } from './abandon-request.js';
export { importUndoRequestDoc, checkImportUndoRequest, isImportUndoRequest } from './import-undo-request.js';
