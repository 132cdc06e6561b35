// The first and last sentences of a run's report: which step really failed (or that the operator
// cancelled it), and the state the connector ends in compared with the state it had before, so
// a connector that is back exactly as it was is not reported as a failed recovery.
import type { TaskState } from './connect-client.js';
import { describeState } from './failure-text.js';
import type { RecoveryOutcome } from './recover.js';

export interface Headline {
  operation: string;
  connector: string;
  /** Ctrl-C / SIGTERM: the operator stopped the run, nothing failed. */
  cancelledByUser: boolean;
  /** The step that failed for good (retried attempts are not failures). */
  failedStep: string | undefined;
  /** The step that was running when the run ended. */
  currentStep: string | undefined;
  why: string;
}

/** "rewind of c failed at step rewindOffsets: …." or "rewind of c was cancelled by you during step rewindOffsets." */
export function failureHeadline(h: Headline): string {
  if (h.cancelledByUser) return `${h.operation} of ${h.connector} was cancelled by you during step ${h.currentStep ?? '(before the first step)'}.`;
  const step = h.failedStep ?? h.currentStep;
  return `${h.operation} of ${h.connector} failed${step ? ` at step ${step}` : ''}: ${h.why}.`;
}

/** The state text read at the start of the run (`RUNNING with task 0 FAILED`), from readInitialState's outputs. */
export function stateTextBefore(state: string | undefined, tasks: unknown): string | undefined {
  if (state === undefined) return undefined;
  const list = Array.isArray(tasks) ? (tasks as Array<Partial<TaskState>>) : [];
  return describeState({ state, tasks: list.map((t) => ({ id: Number(t.id ?? 0), state: String(t.state ?? '') })) });
}

/**
 * A recovery whose restore workflow "failed" only because a task that had already FAILED before
 * the run fails again is, for the operator, a recovery that put the connector back as it was.
 */
export function recoveryAsBefore(recovery: RecoveryOutcome | undefined, nowText: string | undefined, beforeText: string | undefined): RecoveryOutcome | undefined {
  if (!recovery || recovery.succeeded || !nowText || nowText !== beforeText) return recovery;
  const { error: _error, ...rest } = recovery;
  return { ...rest, succeeded: true };
}

/** "The connector is now RUNNING with task 0 FAILED, exactly as before the run." */
export function endStateSentence(nowText: string | undefined, beforeText: string | undefined): string {
  if (!nowText) return 'The connector is now in an unknown state (Kafka Connect did not answer).';
  return `The connector is now ${nowText}${beforeText && nowText === beforeText ? ', exactly as before the run' : ''}.`;
}
