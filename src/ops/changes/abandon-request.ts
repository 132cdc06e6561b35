// `runs abandon` as a change request (issue 32): where a policy covers `abandon`, abandoning an
// interrupted run records the run (id, connector, cluster, its status when requested) and the
// reason, with a digest; nothing is abandoned and the run keeps its lock. Once someone else
// approves, `changes apply <id>` abandons that very run through the door (abandonAudited: past the
// policy only for a request the store has as being applied, for that run), which frees the lock.
import type { RunRecord } from '../../store/index.js';
import { OpsError } from '../errors.js';
import { contentDigest, withCheckedDigest } from './request-digest.js';
import type { PlannedBy } from './saved-plan.js';

const ABANDON_REQUEST_FORMAT = 'offsetctl-abandon-request/1';

export interface AbandonRequestDoc {
  format: typeof ABANDON_REQUEST_FORMAT;
  plannedAt: string;
  plannedBy: PlannedBy;
  operation: 'abandon';
  clusterUrl: string;
  clusterKey: string;
  connector: string;
  /** The interrupted run to abandon. */
  runId: string;
  /** What that run was doing (rewind, move, …), for the reviewer. */
  runOperation: string;
  runLastStep?: string;
  reason: string;
  digest: string;
}

export function isAbandonRequest(doc: unknown): doc is AbandonRequestDoc {
  return typeof doc === 'object' && doc !== null && (doc as { format?: unknown }).format === ABANDON_REQUEST_FORMAT;
}

export function abandonRequestDoc(run: RunRecord, reason: string, meta: { plannedBy: PlannedBy; now?: Date }): AbandonRequestDoc {
  const content: Omit<AbandonRequestDoc, 'digest'> = {
    format: ABANDON_REQUEST_FORMAT,
    plannedAt: (meta.now ?? new Date()).toISOString(),
    plannedBy: meta.plannedBy,
    operation: 'abandon',
    clusterUrl: run.clusterUrl,
    clusterKey: run.clusterKey,
    connector: run.connector,
    runId: run.id,
    runOperation: String(run.operation),
    ...(run.lastStep ? { runLastStep: run.lastStep } : {}),
    reason: reason.trim(),
  };
  return { ...content, digest: contentDigest(content) };
}

export function readAbandonRequest(doc: unknown, where: string): AbandonRequestDoc {
  if (!isAbandonRequest(doc) || typeof doc.digest !== 'string') throw new OpsError('E_PLAN_INVALID', `${where} holds no abandon request`, { field: 'plan' });
  return withCheckedDigest(doc, where);
}

/**
 * The run to abandon now against the approved request: the same run, of the same connector on the
 * same cluster, and no further along than when it was requested (a run resumed meanwhile and
 * interrupted again at a later step is another situation to review); else refused, nothing changed.
 */
export function checkAbandonRequest(doc: AbandonRequestDoc, run: RunRecord): void {
  const problems: string[] = [];
  if (run.id !== doc.runId) problems.push(`the run is ${run.id}, the request was for run ${doc.runId}`);
  if (run.connector !== doc.connector) problems.push(`run ${run.id} is of ${run.connector}, the request names ${doc.connector}`);
  if (run.clusterKey !== doc.clusterKey) problems.push(`run ${run.id} is on ${run.clusterKey}, the request names ${doc.clusterKey}`);
  if ((run.lastStep ?? undefined) !== doc.runLastStep) {
    problems.push(`run ${run.id} is at step ${run.lastStep ?? '(none)'} now, it was at ${doc.runLastStep ?? '(none)'} when requested`);
  }
  if (problems.length > 0) {
    throw new OpsError('E_PLAN_STALE', `change request to abandon run ${doc.runId} no longer fits, nothing was changed: ${problems.join('; ')}; request it again`, { field: 'run' });
  }
}
