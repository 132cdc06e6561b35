// Every step of a change request in the audit trail (the one trail, src/ops/audit): requested,
// approved, rejected, applying and how applying ended, and a refused step (approving one's own
// request, one already moved on or expired). One entry per connector the request covers, so the
// audit of a connector shows the requests that touched it. The actor is the face's (the console's
// signed-in user, with issuer and groups) or else the one the store authenticated for this very
// step (the database login on a team store): never a name sent along.
import type { Actor, AuditActor, AuditOutcome, ChangeRequestRecord } from '../../store/index.js';
import type { AuditScope } from '../audit/index.js';
import type { OpsContext } from '../context.js';
import { redactText } from '../../http/redact.js';

/** The audit actor of a step the store recorded with this actor, unless the face gave its own. */
export function stepActor(actor: Actor, scope?: AuditScope): AuditActor {
  if (scope) return scope.actor;
  return { user: actor.user, via: 'cli', osUser: actor.osUser, host: actor.host, ...(actor.dbUser !== undefined ? { dbUser: actor.dbUser } : {}) };
}

export type RequestStep = 'requested' | 'approved' | 'rejected' | 'applying' | 'applied' | 'failed' | 'refused';

const OUTCOME: Record<RequestStep, AuditOutcome> = {
  requested: 'requested', approved: 'approved', rejected: 'rejected', applying: 'started', applied: 'succeeded', failed: 'failed', refused: 'refused',
};

/**
 * Writes the step's entries. A store that cannot write them (a full disk) must not undo the step
 * the store already recorded: the words of the failure are returned for the face to show.
 */
export async function auditRequestStep(ctx: Pick<OpsContext, 'store'>, request: ChangeRequestRecord, step: RequestStep, actor: AuditActor, detail: { message?: string; runIds?: string[]; context?: string } = {}): Promise<string | undefined> {
  const what = `change request ${request.id} (${request.operation} of ${request.connectors.length === 1 ? request.connectors[0] : `${request.connectors.length} connectors`})`;
  const message = redactText(`${what} ${step}${detail.message ? `: ${detail.message}` : ''}`);
  const context = detail.context ?? request.contextName;
  try {
    for (const connector of request.connectors) {
      await ctx.store.recordAudit({
        actor, action: 'change-request', outcome: OUTCOME[step], connector, clusterUrl: request.clusterUrl, clusterKey: request.clusterKey, message,
        ...(context ? { context } : {}),
        ...(detail.runIds?.length === 1 ? { runId: detail.runIds[0]! } : {}),
      });
    }
    return undefined;
  } catch (err) {
    return `the audit entry (${step}) of change request ${request.id} could not be written to ${ctx.store.location}: ${redactText((err as Error).message)}`;
  }
}
