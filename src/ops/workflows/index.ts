// The workflows room: the shipped workflow documents (workflows/*.arazzo.yaml) as ops runs them:
// where they are, loading and checking them, and for each the map from its step ids to the safety
// rules (which step snapshots, which changes offsets, which read-back is verified).
export { useDocumentCache } from './document-cache.js';
export { loadOpsWorkflow, loadShippedDocument, WORKFLOW_FILES, WORKFLOWS_DIR, type OpsWorkflow, type WorkflowKind } from './workflow-files.js';
export { REWIND, RESET, ROLLBACK, RECOVERY, EXPORT, specFor, targetStateFor } from './operations.js';
export type { OperationSpec, ResumeAfter, TargetState } from './operations.js';
export { criterionWords, describeCriterion, type CriterionText } from './criteria-words.js';
