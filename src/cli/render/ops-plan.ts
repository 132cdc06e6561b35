// The text of a plan: the heading above the diff, and the question before a change.
import type { Plan } from '../../ops/index.js';
import { describeState } from '../../ops/index.js';

/**
 * `answeredBy`: the worker that answered the plan's reads. With several URLs it is the one failed
 * over to, named first: the heading named the first URL, a worker that had not answered at all.
 */
export function planHeading(plan: Plan, answeredBy: string = plan.clusterUrl): string {
  // FAILED tasks are shown in the heading: `(sink, RUNNING with task 0 FAILED)`, not `(sink, RUNNING)`.
  const where = answeredBy === plan.clusterUrl ? plan.clusterUrl : `${answeredBy} (${plan.clusterUrl} did not answer)`;
  const at = `Connector ${plan.connector} (${plan.connectorType}, ${describeState({ state: plan.stateBefore, tasks: plan.tasks })}) on ${where}`;
  switch (plan.operation) {
    case 'rewind':
      // Said before the diff: an empty diff writes nothing (the run is not started).
      return plan.nothingToChange ? `${at}: nothing to write, its ${plan.targetOffsets.length} partition(s) already hold the target` : `${at}: ${plan.targetOffsets.length} partition(s) to write`;
    case 'reset':
      return `${at}: every offset will be deleted`;
    case 'rollback': {
      const s = plan.snapshot;
      // The state it is in now → the state it is left in (not the snapshot's state → target).
      return `${at}: back to snapshot ${s?.id} taken ${s?.takenAt} (${s?.partitions} partition(s), state ${plan.stateBefore} → ${plan.stateAfter})`;
    }
    case 'resume':
      return `Resuming run ${plan.runId} (${plan.runOperation} of ${plan.connector} on ${where}) at step ${plan.resumeAt}`;
  }
}

export function planQuestion(plan: Plan): string {
  switch (plan.operation) {
    case 'rewind': {
      const then = plan.resumeAfter === 'never' ? 'left STOPPED' : plan.resumeAfter === 'always' ? 'resumed' : `put back to ${plan.stateBefore}`;
      return `Rewind ${plan.connector}? It is stopped while its offsets change, then ${then}.`;
    }
    case 'reset':
      return `Reset ${plan.connector}? All ${plan.diff.entries.length} partition offset(s) are deleted (a snapshot is kept for rollback).`;
    case 'rollback':
      return `Roll ${plan.connector} back to snapshot ${plan.snapshotId}? It is stopped while its offsets change, then left ${plan.stateAfter}.`;
    case 'resume':
      return `Resume run ${plan.runId}?`;
  }
}
