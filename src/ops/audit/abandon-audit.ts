// `runs abandon` through ops' door: abandoning a run changes the record of what happened (the run
// reads abandoned, its lock is freed), so it is gated and audited as any change is. A policy
// covers it when its actions name `abandon`, or when it names no actions (every offset change:
// abandoning one is part of it). Abandoning cannot be requested yet: under such a policy it is
// refused (E_APPROVAL_REQUIRED, exit 2, audited, nothing recorded) until the team's admin narrows
// or lifts the policy (`offsetctl policy set … --no-require-approval --actions abandon`).
import type { RunRecord } from '../../store/index.js';
import type { OpsContext } from '../context.js';
import { abandonRun, type AbandonPlan, type AbandonRequest } from '../run/index.js';
import { runAudited, type AuditScope } from './audit.js';

export async function abandonAudited(ctx: OpsContext, scope: AuditScope, plan: AbandonPlan, req: AbandonRequest): Promise<RunRecord> {
  const run = plan.run;
  let done: RunRecord | undefined;
  await runAudited(ctx, scope, {
    action: 'abandon', connector: run.connector, clusterUrl: run.clusterUrl, clusterKey: run.clusterKey, runId: run.id,
    message: `abandoning run ${run.id} (${run.operation} of ${run.connector}): ${req.reason.trim()}`,
    policy: { reviewed: false, clusterKeys: [run.clusterKey] },
  }, async (started) => {
    started(run.id);
    done = await abandonRun(ctx, plan, req);
    return { status: 'succeeded', message: done.message ?? `run ${run.id} abandoned`, warnings: [], runId: run.id };
  });
  return done!;
}
