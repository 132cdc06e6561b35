// The plan room: every change planned before anything changes, as plain data (diff, warnings,
// the state the connector is left in, the workflow inputs); planning only reads.
import { refusedBeforeAnyChange } from '../errors.js';
import { planReset as resetPlan, planResume as resumePlan, planRewind as rewindPlan, planRollback as rollbackPlan } from './plan.js';

export { resumePointFor } from './plan.js';
export { lockKeyOf } from './lock-key.js';
// Planning changes nothing: an error answer of Kafka Connect while planning exits 2.
export const planRewind = refusedBeforeAnyChange(rewindPlan);
export const planReset = refusedBeforeAnyChange(resetPlan);
export const planRollback = refusedBeforeAnyChange(rollbackPlan);
export const planResume = refusedBeforeAnyChange(resumePlan);
export type { Plan, ResumeAfter, TargetState, RewindRequest, ResetRequest, RollbackRequest, ResumeRequest } from './plan.js';
export { changesNothing } from './empty-change.js';
export { connectorIdentity, type ConnectorIdentity } from './identity.js';
