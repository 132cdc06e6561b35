// The run room: a plan applied. The journaled workflow run under the connector's lock, the
// snapshot before any change, read-back verification, chunked writes, recovery after a failure,
// and the run's account (the sentences stored with it).
export { applyPlan, dryRunOutcome, unchangedOutcome } from './apply.js';
export type { ApplyOptions, OpsEvent, OpsRunEvent } from './apply.js';
export { planAbandon, abandonRun, type AbandonPlan, type AbandonRequest } from './abandon.js';
export type { OperationOutcome } from './run-operation.js';
export type { RecoveryOutcome } from './recover.js';
export { verifyTimeoutMs } from './verify-read.js';
export { describeState } from './failure-text.js';
// What the move room builds its runs of (src/ops/move): the journal, the account of a failed
// step, and the bounded read-back.
export { RunJournal, type JournalOptions } from './journal.js';
export { describeFailure } from './failure-text.js';
export { readBackUntilMatch } from './verify-read.js';
