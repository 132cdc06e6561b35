// Where a context says `approval: required`, a change command records a change request instead of
// changing anything: the plan as saved (the same document `--plan-out` writes), who asked (the
// store's own actor: the database login on a team store), when it expires. Someone else approves
// it (`offsetctl changes approve`), then it is applied (`offsetctl changes apply`). A move or copy
// is requested the same way, with its own document (ops/changes/move-request.ts).
import type { OpsContext, Plan } from '../ops/index.js';
import type { ImportChoices, ImportPlanFacts, MoveChoices, MovePlanFacts, MoveUndoFacts, SavedPlan } from '../ops/changes/index.js';
import type { MoveRun } from '../ops/move/index.js';
import type { Connection } from './connection.js';
import { storeActor } from './plan-file.js';
import { currentIO } from './io.js';
import { approvalRule, describePolicy } from '../ops/audit/index.js';
import { abandonRequestDoc, exportRequestDoc, importRequestDoc, importUndoRequestDoc, moveRequestDoc, moveUndoRequestDoc, requestChange, savePlan } from '../ops/changes/index.js';
import { WorkerRoot, clusterIdentity } from '../ops/cluster/index.js';

/**
 * Why these plans need someone else's approval, or undefined: the context that applies (or one
 * that governs the cluster) says `approval: required`, or the team store's policy covers one of
 * them. A resumed run is not gated (its start was).
 */
export async function approvalReason(
  conn: Connection,
  store: OpsContext['store'],
  plans: ReadonlyArray<Pick<Plan, 'clusterKey' | 'connector' | 'operation' | 'runId'>>,
): Promise<string | undefined> {
  if (conn.approval === 'required') return 'context';
  for (const p of plans) {
    if (p.runId !== undefined) continue;
    const rule = await approvalRule(store, { clusterKey: p.clusterKey, connector: p.connector, action: p.operation });
    if (rule) return `the team's policy: ${describePolicy(rule)}`;
  }
  return undefined;
}

export async function requestInstead(
  conn: Connection,
  ctx: OpsContext,
  plans: readonly Plan[] | SavedPlan,
  info: (text: string) => unknown,
  selection?: string,
  reason?: string,
): Promise<void> {
  const saved = Array.isArray(plans)
    ? savePlan(plans as Plan[], { plannedBy: await storeActor(ctx.store), ...(selection ? { selection } : {}) })
    : (plans as SavedPlan);
  const by = conn.context?.approval === 'required' ? conn.contextName : (conn.governedBy?.[0] ?? conn.contextName);
  const request = await requestChange(ctx, saved, { ...(by ? { contextName: by } : {}) });
  announceRequest(conn, ctx, request, by, info, reason);
}

/** Why a move or copy (or its undo) needs approval (the context, or the policy of either cluster), or undefined. */
export async function moveApprovalReason(
  conn: Connection,
  store: OpsContext['store'],
  plan: Pick<MovePlanFacts, 'connector' | 'targetName' | 'from' | 'to'> & { operation: string },
): Promise<string | undefined> {
  if (conn.approval === 'required') return 'context';
  for (const [clusterKey, connector] of [
    [plan.from.key, plan.connector],
    [plan.to.key, plan.targetName],
  ] as const) {
    const rule = await approvalRule(store, { clusterKey, connector, action: plan.operation });
    if (rule) return `the team's policy: ${describePolicy(rule)}`;
  }
  return undefined;
}

/** A move or copy recorded as a change request (the plan as shown, both clusters' identities), nothing moved. */
export async function requestMoveInstead(
  conn: Connection,
  ctx: OpsContext,
  to: { http: Connection['http'] },
  plan: MovePlanFacts,
  choices: MoveChoices,
  info: (text: string) => unknown,
  reason: string,
): Promise<void> {
  const doc = await moveRequestDoc(plan, { from: ctx.http, to: to.http }, choices, { plannedBy: await storeActor(ctx.store) });
  const by = conn.context?.approval === 'required' ? conn.contextName : (conn.governedBy?.[0] ?? conn.contextName);
  const request = await requestChange(ctx, doc, { ...(by ? { contextName: by } : {}) });
  announceRequest(conn, ctx, request, by, info, reason);
}

function announceRequest(
  conn: Connection,
  ctx: OpsContext,
  request: Awaited<ReturnType<typeof import('../ops/changes/index.js').requestChange>>,
  by: string | undefined,
  info: (text: string) => unknown,
  reason?: string,
  applyArgs = '',
): void {
  if (request.auditWarning) currentIO().stderr.write(`warning: ${request.auditWarning}\n`);
  const what =
    request.connectors.length === 1 ? `${request.operation} of ${request.connectors[0]}` : `${request.operation} of ${request.connectors.length} connectors`;
  if (conn.output === 'json') {
    currentIO().stdout.write(
      `${JSON.stringify({ status: 'requested', request: requestJson(request) }, null, 2)}\n`,
    );
  }
  const rule =
    reason !== undefined && reason !== 'context'
      ? `This change requires approval (${reason})`
      : by === undefined
        ? 'This cluster requires approval'
        : by === conn.contextName
          ? `Context ${by} requires approval`
          : `${conn.url} is a worker of the cluster context ${by} governs, which requires approval`;
  info(
    `${rule}: change request ${request.id} (${what}) recorded in ${ctx.store.location} by ${request.requestedBy.user}; nothing was changed.\n` +
      `It needs the approval of someone other than ${request.requestedBy.user} before ${request.expiresAt}: ` +
      `\`offsetctl changes approve ${request.id}\`, then \`offsetctl changes apply ${request.id}${applyArgs}\`.`,
  );
}

/** What the undo of a move run names (its connector on both clusters), for its request and the check on apply. */
export function undoFacts(run: MoveRun): MoveUndoFacts {
  const { main, move } = run;
  return {
    runId: main.id,
    connector: main.connector,
    targetName: move.targetName,
    connectorType: String(main.context.connectorType ?? ''),
    ...(typeof main.context.stateBefore === 'string' ? { stateBefore: main.context.stateBefore } : {}),
    from: { url: move.fromUrl, key: main.clusterKey },
    to: { url: move.toUrl, key: move.toKey },
  };
}

/** The undo of a move recorded as a change request, nothing changed. */
export async function requestUndoInstead(
  conn: Connection,
  ctx: OpsContext,
  to: { http: Connection['http'] },
  facts: MoveUndoFacts,
  info: (text: string) => unknown,
  reason: string,
): Promise<void> {
  const doc = await moveUndoRequestDoc(facts, { from: ctx.http, to: to.http }, { plannedBy: await storeActor(ctx.store) });
  const by = conn.context?.approval === 'required' ? conn.contextName : (conn.governedBy?.[0] ?? conn.contextName);
  const request = await requestChange(ctx, doc, { ...(by ? { contextName: by } : {}) });
  announceRequest(conn, ctx, request, by, info, reason);
}

/** Why an import needs approval (the context, or the target cluster's policy for one of its connectors), or undefined. */
export async function importApprovalReason(conn: Connection, store: OpsContext['store'], plan: ImportPlanFacts): Promise<string | undefined> {
  if (conn.approval === 'required') return 'context';
  for (const item of plan.items) {
    const rule = await approvalRule(store, { clusterKey: plan.to.key, connector: item.connector, action: 'import' });
    if (rule) return `the team's policy: ${describePolicy(rule)}`;
  }
  return undefined;
}

/** An import recorded as a change request (the plan as shown, the backup's digest; not the backup), nothing created. */
export async function requestImportInstead(
  conn: Connection,
  ctx: OpsContext,
  plan: ImportPlanFacts,
  backup: unknown,
  choices: ImportChoices,
  info: (text: string) => unknown,
  reason: string,
): Promise<void> {
  const doc = await importRequestDoc(plan, ctx.http, backup, choices, { plannedBy: await storeActor(ctx.store) });
  const by = conn.context?.approval === 'required' ? conn.contextName : (conn.governedBy?.[0] ?? conn.contextName);
  const request = await requestChange(ctx, doc, { ...(by ? { contextName: by } : {}) });
  announceRequest(conn, ctx, request, by, info, reason, ' --backup <the same file>');
}

/** The cluster a URL reaches, as its key (`kafka:<id>`): what a consistent export's policy and request name. */
export async function clusterKeyOf(http: OpsContext['http'], url: string): Promise<string> {
  return (await clusterIdentity(new WorkerRoot(http, url))).key;
}

/**
 * A consistent export where the context requires approval or a policy names `export` for one of
 * its connectors: recorded as a change request (the cluster, the connectors), nothing stopped.
 * Returns false when no approval is needed.
 */
export async function requestExportInstead(
  conn: Connection,
  ctx: OpsContext,
  connectors: readonly string[],
  includeSecrets: boolean,
  info: (text: string) => unknown,
): Promise<boolean> {
  const key = await clusterKeyOf(ctx.http, ctx.url);
  let reason: string | undefined = conn.approval === 'required' ? 'context' : undefined;
  for (const connector of connectors) {
    if (reason !== undefined) break;
    const rule = await approvalRule(ctx.store, { clusterKey: key, connector, action: 'export' });
    if (rule) reason = `the team's policy: ${describePolicy(rule)}`;
  }
  if (reason === undefined) return false;
  const doc = await exportRequestDoc({ url: ctx.url, key }, ctx.http, connectors, includeSecrets, { plannedBy: await storeActor(ctx.store) });
  const by = conn.context?.approval === 'required' ? conn.contextName : (conn.governedBy?.[0] ?? conn.contextName);
  const request = await requestChange(ctx, doc, { ...(by ? { contextName: by } : {}) });
  announceRequest(conn, ctx, request, by, info, reason, ' > <backup file>');
  return true;
}

function requestJson(r: Awaited<ReturnType<typeof import('../ops/changes/index.js').requestChange>>): Record<string, unknown> {
  const { id, status, operation, connectors, requestedAt, expiresAt, digest } = r;
  return { id, status, operation, connectors, requestedBy: r.requestedBy.user, requestedAt, expiresAt, digest };
}

/**
 * The undo of an import (`rollback` of the connector it created) where approval is required (the
 * context, or the cluster's policy for `rollback`): recorded as a change request (the import run it
 * undoes, the connector, the cluster), nothing deleted. Returns false when no approval is needed.
 */
export async function requestImportUndoInstead(
  conn: Connection,
  ctx: OpsContext,
  imported: import('../store/index.js').RunRecord,
  info: (text: string) => unknown,
): Promise<boolean> {
  const rule = await approvalRule(ctx.store, { clusterKey: imported.clusterKey, connector: imported.connector, action: 'rollback' });
  const reason = rule ? `the team's policy: ${describePolicy(rule)}` : conn.approval === 'required' ? 'context' : undefined;
  if (reason === undefined) return false;
  const doc = importUndoRequestDoc(imported, { plannedBy: await storeActor(ctx.store) });
  const by = conn.context?.approval === 'required' ? conn.contextName : (conn.governedBy?.[0] ?? conn.contextName);
  const request = await requestChange(ctx, doc, { ...(by ? { contextName: by } : {}) });
  announceRequest(conn, ctx, request, by, info, reason);
  return true;
}

/**
 * `runs abandon` where the team's policy covers it: recorded as a change request (the run, its
 * connector and cluster, the reason), nothing abandoned. Returns false when no policy covers it.
 */
export async function requestAbandonInstead(
  conn: Connection,
  ctx: OpsContext,
  run: import('../store/index.js').RunRecord,
  reason: string,
  info: (text: string) => unknown,
): Promise<boolean> {
  const rule = await approvalRule(ctx.store, { clusterKey: run.clusterKey, connector: run.connector, action: 'abandon' });
  if (!rule) return false;
  const doc = abandonRequestDoc(run, reason, { plannedBy: await storeActor(ctx.store) });
  const by = conn.governedBy?.[0] ?? conn.contextName;
  const request = await requestChange(ctx, doc, { ...(by ? { contextName: by } : {}) });
  announceRequest(conn, ctx, request, by, info, `the team's policy: ${describePolicy(rule)}`);
  return true;
}
