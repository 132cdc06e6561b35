// Applying a reviewed plan: each connector's checked plan handed to applyPlan with the plan's
// digest (recorded in the run, so the plan is found applied and not applied twice). Many
// connectors go through the batch room: every one was checked before any starts, then they are
// applied a few at a time under one batch id, recorded first.
import type { ConnectorOps } from '../batch/index.js';
import { getConnectorInfo } from '../connect/index.js';
import type { OpsContext } from '../context.js';
import { OpsError } from '../errors.js';
import type { Plan } from '../plan/index.js';
import { applyPlan, type ApplyOptions } from '../run/index.js';
import { applyAudited, type AuditScope } from '../audit/index.js';
import type { CheckedPlan } from './check.js';

/** The refusal of a plan whose starting offsets moved in a way that changes what it does; `how` is the face's way to say yes to it. */
export function movedRefusal(checked: CheckedPlan, how: string): OpsError {
  const lines = checked.connectors.flatMap((c) => c.movement.partitions.filter((m) => m.changesMeaning).map((m) =>
    `${c.saved.connector} ${m.key}: ${offsetText(m.planned)} when planned, ${offsetText(m.now)} now, target ${offsetText(m.target)}: ${m.reason}`));
  return new OpsError('E_PLAN_MOVED', `the starting offsets moved since the plan was made, and that changes what it does (nothing was changed):\n  ${lines.join('\n  ')}\n` +
    `Apply it anyway only after checking these partitions (${how}), or make a new plan.`, { field: 'offsets' });
}

function offsetText(offset: Record<string, unknown> | null): string {
  return offset === null ? 'none' : JSON.stringify(offset);
}

/** The per-connector operations of a reviewed plan, for the batch room (and for one connector alike). */
export function reviewedOps(ctx: OpsContext, checked: CheckedPlan, face: Pick<ApplyOptions, 'beforeStep'> & { requestId?: string; audit?: AuditScope } = {}): ConnectorOps<Plan> {
  const plans = new Map(checked.connectors.map((c) => [c.plan.connector, c.plan] as const));
  const reviewed = { planDigest: checked.saved.digest, ...(face.requestId ? { requestId: face.requestId } : {}) };
  return {
    plan: async (connector) => {
      const plan = plans.get(connector);
      if (!plan) throw new OpsError('E_PLAN_INVALID', `${connector} is not in the plan`, { field: 'connector' });
      return plan;
    },
    apply: (plan, options) => {
      const applyOptions: ApplyOptions = {
        batchId: options.batchId, reviewed,
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(face.beforeStep ? { beforeStep: face.beforeStep } : {}),
      };
      // Each connector's run in the audit trail, under whoever applies, like any other change.
      return face.audit ? applyAudited(ctx, plan, face.audit, applyOptions) : applyPlan(ctx, plan, applyOptions);
    },
    state: async (connector) => (await getConnectorInfo(ctx.http, ctx.url, connector)).state,
    // Recorded before the first connector starts, like any batch: a kill half-way leaves the
    // members that never started findable, and `runs resume --batch` runs them (a plan applied
    // in part is not applied again: its digest is in the started runs).
    record: async (batchId, members) => {
      const first = members[0];
      if (!first) return;
      await ctx.store.saveBatch({
        id: batchId, clusterUrl: first.clusterUrl, clusterKey: first.clusterKey, operation: checked.saved.operation, resumeAfter: first.resumeAfter ?? 'auto',
        members: members.map((p) => ({ connector: p.connector, ...(p.operation === 'rewind' ? { offsets: p.targetOffsets } : {}) })),
      });
    },
  };
}
