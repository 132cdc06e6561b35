// `runs abandon` through ops' door: abandoning a run changes the record of what happened (the run
// reads abandoned, its lock is freed), so it is gated and audited as any change is. A policy
// covers it when its actions name `abandon`, or when it names no actions (every offset change:
// abandoning one is part of it). Under such a policy the face makes it a change request
// (ops/changes/abandon-request.ts); the door lets it through only with `requestId`, a request the
// store has as being applied, to abandon this very run — else E_APPROVAL_REQUIRED, exit 2,
// audited, nothing recorded.
import type { RunRecord } from '../../store/index.js';
import type { OpsContext } from '../context.js';
import { abandonRun, type AbandonPlan, type AbandonRequest } from '../run/index.js';
import { runAudited, type AuditScope } from './audit.js';

export async function abandonAudited(ctx: OpsContext, scope: AuditScope, plan: AbandonPlan, req: AbandonRequest, requestId?: string): Promise<RunRecord> {
  const run = plan.run;
  const reviewed = requestId !== undefined && (await abandoning(ctx, requestId, run));
  let done: RunRecord | undefined;
  await runAudited(ctx, scope, {
    action: 'abandon', connector: run.connector, clusterUrl: run.clusterUrl, clusterKey: run.clusterKey, runId: run.id,
    message: `abandoning run ${run.id} (${run.operation} of ${run.connector}): ${req.reason.trim()}${reviewed ? `, change request ${requestId}` : ''}`,
    policy: { reviewed, clusterKeys: [run.clusterKey] },
  }, async (started) => {
    started(run.id);
    done = await abandonRun(ctx, plan, req);
    return { status: 'succeeded', message: done.message ?? `run ${run.id} abandoned`, warnings: [], runId: run.id };
  });
  return done!;
}

/** Is `id` a request the store has as being applied, to abandon this run? (What the door trusts, not the face's word.) */
async function abandoning(ctx: Pick<OpsContext, 'store'>, id: string, run: RunRecord): Promise<boolean> {
  const request = await ctx.store.getChangeRequest(id).catch(() => undefined);
  const doc = request?.plan as { runId?: unknown } | undefined;
  return (
    request?.status === 'applying' && request.operation === 'abandon' && request.connectors.includes(run.connector) &&
    request.clusterKey === run.clusterKey && doc?.runId === run.id
  );
}
