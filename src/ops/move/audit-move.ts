// Moves, copies and imports in the audit trail like every other change (the audit room's
// runAudited): an entry when the run opens, saying where the connector goes and how many
// partitions it carries, and one with the outcome. The actor is the face's.
import { runAudited, type AuditScope } from '../audit/index.js';
import type { OpsContext } from '../context.js';
import { applyMove, type ApplyMoveOptions, type MoveOutcome } from './apply-move.js';
import type { ClusterRef } from './clusters.js';
import { applyImportItem, rollbackImport, type ImportItem, type ImportOptions, type ImportOutcome, type ImportPlan } from './import.js';
import type { RunRecord } from '../../store/index.js';
import type { MovePlan } from './plan-move.js';
import { applyMoveRollback, type MoveRollbackPlan } from './recover-move.js';

/**
 * applyMove with its audit entries, under the original's cluster (where its lock and run are).
 * `requestId`: the approved change request it applies; the policy lets it through only when the
 * store has that request being applied, for this move of this connector (a face cannot name any id).
 */
export async function applyMoveAudited(
  from: OpsContext,
  to: ClusterRef,
  plan: MovePlan,
  scope: AuditScope,
  options: ApplyMoveOptions = {},
  requestId?: string,
): Promise<MoveOutcome> {
  const as = plan.targetName !== plan.connector ? ` as ${plan.targetName}` : '';
  const reviewed = requestId !== undefined && (await beingApplied(from, requestId, plan));
  return runAudited(
    from,
    scope,
    {
      action: plan.operation,
      connector: plan.connector,
      clusterUrl: plan.from.url,
      clusterKey: plan.from.key,
      message:
        `${plan.operation} to ${plan.to.url}${as} (${plan.currentOffsets.length} partition(s) when planned)` +
        `${reviewed ? `, change request ${requestId}` : ''}`,
      // From the target's side every partition is added; their values are read after the stop.
      counts: { added: plan.currentOffsets.length },
      policy: { reviewed, clusterKeys: [...new Set([plan.from.key, plan.to.key])] },
    },
    (started) =>
      applyMove(from, to, plan, {
        ...options,
        onEvent: (event) => {
          if (event.type === 'ops.run.started') started(event.runId);
          options.onEvent?.(event);
        },
      }),
  );
}

/**
 * Is `id` a change request the store has as being applied, for this operation of this connector
 * on this cluster? (What the door trusts, not the face's word.)
 */
export async function beingApplied(
  ctx: Pick<OpsContext, 'store'>,
  id: string,
  plan: { operation: string; connector: string; from: { key: string } },
): Promise<boolean> {
  const request = await ctx.store.getChangeRequest(id).catch(() => undefined);
  return (
    request?.status === 'applying' &&
    request.operation === plan.operation &&
    request.connectors.includes(plan.connector) &&
    request.clusterKey === plan.from.key
  );
}

/**
 * The undo of a move (`rollback` of a moved connector) through the door: gated by the policy of
 * both clusters like the move itself (`requestId`: an approved request the store has as being
 * applied), its entries naming the run it undoes.
 */
export async function applyMoveRollbackAudited(
  from: OpsContext,
  to: ClusterRef,
  plan: MoveRollbackPlan,
  keys: { from: string; to: string },
  scope: AuditScope,
  options: ApplyMoveOptions = {},
  requestId?: string,
): Promise<Awaited<ReturnType<typeof applyMoveRollback>>> {
  const reviewed =
    requestId !== undefined && (await beingApplied(from, requestId, { operation: 'rollback', connector: plan.connector, from: { key: keys.from } }));
  return runAudited(
    from,
    scope,
    {
      action: 'rollback',
      connector: plan.connector,
      clusterUrl: plan.fromUrl,
      clusterKey: keys.from,
      runId: plan.runId,
      message: `undo of the ${plan.operation} to ${plan.toUrl}${reviewed ? `, change request ${requestId}` : ''}`,
      policy: { reviewed, clusterKeys: [...new Set([keys.from, keys.to])] },
    },
    (started) => {
      started(plan.runId);
      return applyMoveRollback(from, to, plan, options);
    },
  );
}

/** applyImportItem with its audit entries, under the target cluster (where the connector is created); `requestId` as for a move. */
export async function applyImportItemAudited(
  ctx: OpsContext,
  plan: ImportPlan,
  item: ImportItem,
  scope: AuditScope,
  options: ImportOptions = {},
  requestId?: string,
): Promise<ImportOutcome> {
  const reviewed =
    requestId !== undefined && (await beingApplied(ctx, requestId, { operation: 'import', connector: item.connector, from: { key: plan.to.key } }));
  return runAudited(
    ctx,
    scope,
    {
      action: 'import',
      connector: item.connector,
      clusterUrl: plan.to.url,
      clusterKey: plan.to.key,
      message:
        `import to ${plan.to.url}${item.replaces ? ', replacing the connector of that name' : ''} ` +
        `(${item.offsets.length} partition(s), then ${item.stateAfter})` +
        `${reviewed ? `, change request ${requestId}` : ''}`,
      counts: { added: item.offsets.length },
      policy: { reviewed },
    },
    (started) =>
      applyImportItem(ctx, plan, item, {
        ...options,
        onRunStarted: (runId) => {
          started(runId);
          options.onRunStarted?.(runId);
        },
      }),
  );
}

/**
 * The undo of an import (`rollback` of the connector it created: deleted, its offsets kept in a
 * snapshot) through the door: gated by the cluster's policy for `rollback` like any rollback.
 * `requestId`: an approved request (ops/changes/import-undo-request.ts) the store has as being
 * applied, to undo this very import run; else a covered undo is refused (E_APPROVAL_REQUIRED,
 * audited, nothing deleted).
 */
export async function rollbackImportAudited(
  ctx: OpsContext,
  clusterKey: string,
  imported: RunRecord,
  scope: AuditScope,
  options: ImportOptions = {},
  requestId?: string,
): Promise<Awaited<ReturnType<typeof rollbackImport>> & { warnings: string[] }> {
  const reviewed =
    requestId !== undefined &&
    (await beingApplied(ctx, requestId, { operation: 'rollback', connector: imported.connector, from: { key: clusterKey } })) &&
    ((await ctx.store.getChangeRequest(requestId)).plan as { undoes?: unknown }).undoes === imported.id;
  return runAudited(
    ctx,
    scope,
    {
      action: 'rollback',
      connector: imported.connector,
      clusterUrl: ctx.url,
      clusterKey,
      runId: imported.id,
      message: `undo of the import: the connector it created is deleted${reviewed ? `, change request ${requestId}` : ''}`,
      policy: { reviewed, clusterKeys: [clusterKey] },
    },
    async (started) => {
      started(imported.id);
      return { ...(await rollbackImport(ctx, clusterKey, imported, options)), warnings: [] };
    },
  );
}
