// The audit room: who did what, when, on which connector, with the diff. A plan applied through
// applyAudited leaves an entry when its run opens and one with its outcome; auditRefusal records
// a refused change. The actor is the face's (the one that authenticated it).
export { applyAudited, auditRefusal, runAudited, wasAudited, type AuditedRun, type AuditScope } from './audit.js';
export { changeStateAudited } from './lifecycle-audit.js';
export { runEvidence, verifyAuditTrail, type RunEvidence } from './evidence.js';
export { approvalRule, describePolicy, setPolicyAudited, POLICY_ACTIONS } from './policy.js';
