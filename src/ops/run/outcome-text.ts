// The sentences of a failed run's account (OperationOutcome.message, stored with the run): which
// step really failed (or that the operator cancelled it), what the recovery did, the state the
// connector ends in compared with the state it had before (a connector back exactly as it was is
// not reported as a failed recovery), and the command that brings back one left STOPPED.
import type { RunRecord } from '../../store/index.js';
import type { RecoveryOutcome } from './recover.js';

export interface Headline {
  operation: string;
  connector: string;
  /** Ctrl-C / SIGTERM: the operator stopped the run, nothing failed. */
  cancelledByUser: boolean;
  /** Why it was cancelled when not by the operator ("the console shut down"): said instead of "by you". */
  cancelledBecause?: string | undefined;
  /** The step that failed for good (retried attempts are not failures). */
  failedStep: string | undefined;
  /** The step that was running when the run ended. */
  currentStep: string | undefined;
  why: string;
}

/** "rewind of c failed at step rewindOffsets: …." or "rewind of c was cancelled by you during step rewindOffsets." */
export function failureHeadline(h: Headline): string {
  const during = `during step ${h.currentStep ?? '(before the first step)'}`;
  if (h.cancelledByUser && h.cancelledBecause) return `${h.operation} of ${h.connector} was cancelled: ${h.cancelledBecause}, ${during}.`;
  if (h.cancelledByUser) return `${h.operation} of ${h.connector} was cancelled by you ${during}.`;
  const step = h.failedStep ?? h.currentStep;
  return `${h.operation} of ${h.connector} failed${step ? ` at step ${step}` : ''}: ${h.why}.`;
}

/** "The connector is now RUNNING with task 0 FAILED, exactly as before the run." */
export function endStateSentence(nowText: string | undefined, beforeText: string | undefined): string {
  if (!nowText) return 'The connector is now in an unknown state (Kafka Connect did not answer).';
  return `The connector is now ${nowText}${beforeText && nowText === beforeText ? ', exactly as before the run' : ''}.`;
}

/** A connector left STOPPED that was not STOPPED before: say so, with the exact command that brings it back. */
export function leftStoppedAdvice(run: RunRecord, now: string | undefined, before: string | undefined, recovery: RecoveryOutcome | undefined): string {
  if (now !== 'STOPPED' || before === 'STOPPED' || (recovery?.succeeded && recovery.targetState === 'STOPPED')) return '';
  const verb = before === 'PAUSED' ? 'pause' : 'resume';
  return `THE CONNECTOR IS LEFT STOPPED: bring it back with \`offsetctl ${verb} ${run.connector} --url ${run.clusterUrl}\`${verb === 'pause' ? ' (it was PAUSED before)' : ''}.`;
}

/** What the recovery did, for the run's account ("Recovery put the connector back (RUNNING). …"). */
export function describeRecovery(recovery: RecoveryOutcome | undefined, stopped: boolean): string {
  if (!stopped) return 'Nothing had been changed yet.';
  if (!recovery) return '';
  const offsets = recovery.offsetsKept
    ? 'The offsets read back as written after all, so they were kept (not undone).'
    : recovery.offsetsUnrecoverable
    ? 'Offsets may have changed but no snapshot was stored, so they could not be restored.'
    : recovery.offsetsUnchanged
      ? `Offsets had not changed (they still match snapshot ${recovery.snapshotId}).`
      : recovery.restoredOffsets.length === 0
        ? 'Offsets had not been changed.'
        : recovery.offsetsWritten
          ? `Offsets of ${recovery.restoredOffsets.length} partition(s) were written back from snapshot ${recovery.snapshotId}.`
          : `Writing back the offsets of ${recovery.restoredOffsets.length} partition(s) from snapshot ${recovery.snapshotId} did not succeed.`;
  const unjournaled = recovery.journalError ? ` The recovery could not be journaled (${recovery.journalError}), so \`offsetctl runs show\` lacks its steps.` : '';
  return recovery.succeeded
    ? `Recovery put the connector back (${recovery.targetState}). ${offsets}${unjournaled}`
    : `Recovery failed: ${recovery.error}. ${offsets}${unjournaled}`;
}

/**
 * The store failed after a change Connect took and a read shows (issue 30): the change stays, and
 * the connector is brought where the plan said. "Offsets had not been changed" would be false.
 */
export function changeKeptSentence(partitions: number, recovery: RecoveryOutcome): string {
  const change = `The change itself was made: the offsets of ${partitions} partition(s) read back as the target, so they were kept (not undone).`;
  return recovery.succeeded
    ? `${change} The connector was put back as the plan said (${recovery.targetState}).`
    : `${change} Bringing the connector to ${recovery.targetState}, as the plan said, failed: ${recovery.error}.`;
}

/**
 * The run's end could not be recorded (the store did not answer again in time): it will read
 * interrupted and hold the connector's lock once the store is back. `runs abandon` frees it and
 * changes nothing (the connector was already put back); `runs resume` would make the change.
 */
export function unrecordedSentence(run: Pick<RunRecord, 'id' | 'connector'>, why: string, changedWithSnapshot?: string): string {
  return `The run's end could not be recorded (${why}): ` +
    `once the store answers again, run ${run.id} reads interrupted and holds the lock on ${run.connector}; ` +
    `see it with \`offsetctl runs show ${run.id}\` and free the lock without changing anything with \`offsetctl runs abandon ${run.id} --reason <why>\`` +
    (changedWithSnapshot ? `, or undo the change with \`offsetctl rollback ${run.connector}\` (snapshot ${changedWithSnapshot}).` : '.');
}
