// Moves, copies, exports and imports of connectors with their offsets, across Connect clusters:
// plan → apply like every change (data in, events and results out), journaled and resumable.
export type { ClusterRef, ClusterFacts } from './clusters.js';
export { planMove, type MovePlan, type MoveRequest, type MoveTargetState } from './plan-move.js';
export type { ApplyMoveOptions, MoveOutcome, MoveContext } from './apply-move.js';
export { isMoveRun, moveRunOf, moveToUndo, planMoveResume, applyMoveResume, planMoveRollback, type MoveRun, type MoveResumePlan, type MoveRollbackPlan } from './recover-move.js';
export { applyMoveAudited, applyMoveRollbackAudited, applyImportItemAudited, rollbackImportAudited } from './audit-move.js';
export type { UndoOutcome } from './undo-move.js';
export { exportConnectors, type ExportRequest, type ExportResult } from './export.js';
export { planImport, applyImportResume, importToUndo, type ImportPlan, type ImportItem, type ImportRequest, type ImportOutcome } from './import.js';
export { parseBackup, type Backup, type BackupConnector } from './backup.js';
export type { TranslationRow } from './translate.js';
