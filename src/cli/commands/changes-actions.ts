// The actions of `offsetctl changes` (registered in changes.ts): read and move change requests in
// the store, and apply an approved one through the same path as a saved plan.
import type { ChangeRequestRecord } from '../../store/index.js';
import type { OperationOutcome } from '../../ops/index.js';
import { OpsError } from '../../ops/errors.js';
import type { ConnectionOptions } from '../connection.js';
import type { ApplyOptions } from './apply.js';
import { currentIO } from '../io.js';
import { historyStoreChoice } from '../history-store.js';
import { openCommandStore } from '../store-choice.js';
import { renderTable } from '../render/table.js';
import { REQUEST_COLUMNS, historyLines, requestHeading, requestRow, statusText } from '../../present/index.js';
import { isAbandonRequest, isExportRequest, isImportRequest, isImportUndoRequest, isMoveRequest, requestedPlan, reviewChange } from '../../ops/changes/index.js';
import { renderDiff } from '../render/diff.js';
import { acceptMoved, applyChecked, showMoved, withChangeConnection } from './apply-actions.js';
import { runChange } from './ops-actions.js';
import { preflightKafkaSettings } from '../kafka-settings.js';
import { resolveLimits } from '../../ops/index.js';
import { limitFlags } from './change-flags.js';
import { profileOptionsFor } from '../source-db.js';
import { applyImportRequest } from './import-request.js';
import { applyAbandonRequest } from './abandon-request.js';
import { applyImportUndoRequest } from './import-undo-request.js';
import { runExport } from './move-backup.js';
import { applyMoveUndoRequest } from './move-undo-request.js';
import { applyMoveRequest } from './move-request.js';
import * as ops from '../../ops/index.js';

const STATUSES = ['pending', 'approved', 'rejected', 'applying', 'applied', 'failed'] as const;

async function openRequests(opts: ConnectionOptions) {
  const store = await openCommandStore(await historyStoreChoice(opts));
  return { store, json: (opts.output ?? 'text') === 'json' };
}

function refusal(err: unknown): unknown {
  if ((err as { code?: string }).code === 'E_NOT_FOUND') return new OpsError('E_PREFLIGHT', (err as Error).message, { field: 'id', cause: err });
  return err;
}

export async function listChanges(opts: ConnectionOptions & { status?: string; connector?: string }): Promise<void> {
  if (opts.status !== undefined && !(STATUSES as readonly string[]).includes(opts.status)) {
    throw new OpsError('E_USAGE', `--status ${opts.status}: must be one of ${STATUSES.join(', ')}`, { field: 'status' });
  }
  const { store, json } = await openRequests(opts);
  try {
    const list = await store.listChangeRequests({ ...(opts.status ? { status: opts.status as (typeof STATUSES)[number] } : {}), ...(opts.connector ? { connector: opts.connector } : {}) });
    if (json) {
      currentIO().stdout.write(`${JSON.stringify(list.map(summary), null, 2)}\n`);
      return;
    }
    if (list.length === 0) {
      currentIO().stdout.write(`No change requests in ${store.location}.\n`);
      return;
    }
    currentIO().stdout.write(`${renderTable(REQUEST_COLUMNS, list.map(requestRow))}\n`);
  } finally {
    await store.close();
  }
}

export async function showChange(id: string, opts: ConnectionOptions): Promise<void> {
  const { store, json } = await openRequests(opts);
  try {
    const request = await store.getChangeRequest(id).catch((err: unknown) => { throw refusal(err); });
    if (json) {
      currentIO().stdout.write(`${JSON.stringify({ ...summary(request), history: request.history, plan: request.plan }, null, 2)}\n`);
      return;
    }
    const lines = [requestHeading(request), ...historyLines(request).map((l) => `  ${l}`)];
    if (isImportUndoRequest(request.plan)) {
      const u = request.plan;
      lines.push('', `undo of the import run ${u.undoes}: ${u.connector} deleted from ${u.clusterUrl} (${u.clusterKey}), its offsets kept in a snapshot`);
      process.stdout.write(`${lines.join('\n')}\n`);
      return;
    }
    if (isAbandonRequest(request.plan)) {
      const a = request.plan;
      lines.push('', `abandon run ${a.runId} (${a.runOperation} of ${a.connector}, interrupted ${a.runLastStep ? `after step ${a.runLastStep}` : 'before its first step'}) `
        + `on ${a.clusterUrl} (${a.clusterKey}): ${a.reason}`);
      process.stdout.write(`${lines.join('\n')}\n`);
      return;
    }
    if (isExportRequest(request.plan)) {
      const e = request.plan;
      lines.push('', `consistent export of ${e.connectors.join(', ')} from ${e.clusterUrl} (${e.clusterKey})${e.includeSecrets ? ', literal secrets kept' : ''}`);
      currentIO().stdout.write(`${lines.join('\n')}\n`);
      return;
    }
    if (isImportRequest(request.plan)) {
      const m = request.plan;
      lines.push('', `import to ${m.clusterUrl} (${m.clusterKey}) of a backup with digest ${m.backupDigest}:`);
      for (const c of m.connectors) {
        const replaces = c.replaces ? '; REPLACES the connector of that name' : '';
        lines.push(`  ${c.name} (${c.connectorType}, ${c.connectorClass}): ${c.offsets.length} partition(s), then ${c.stateAfter}${replaces}; configuration ${c.configDigest}`);
      }
      currentIO().stdout.write(`${lines.join('\n')}\n`);
      return;
    }
    if (isMoveRequest(request.plan)) {
      const m = request.plan;
      lines.push('', `${m.operation} of ${m.connector} (${m.connectorType}, ${m.connectorClass}, ${m.stateBefore} when requested) `
        + `from ${m.from.url} (${m.from.key}) to ${m.to.url} (${m.to.key})${m.targetName !== m.connector ? ` as ${m.targetName}` : ''}: `
        + `${m.currentOffsets.length} partition(s) when requested; configuration ${m.configDigest}; afterwards ${m.stateAfter} there`);
      currentIO().stdout.write(`${lines.join('\n')}\n`);
      return;
    }
    const saved = requestedPlan(request);
    for (const p of saved.plans) {
      lines.push('', `${p.connector} (${p.connectorType}, ${p.stateBefore} when planned) on ${p.clusterUrl}:`);
      for (const w of p.warnings) lines.push(`warning: ${w}`);
      lines.push(renderDiff(p.diff, { color: false, showUnchanged: p.diff.entries.length <= 50 }).trimEnd());
    }
    currentIO().stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await store.close();
  }
}

export async function reviewChangeCommand(id: string, decision: 'approve' | 'reject', opts: ConnectionOptions & { reason?: string }): Promise<void> {
  const { store, json } = await openRequests(opts);
  try {
    const ctx = { url: '', http: undefined as never, store };
    const request = await reviewChange(ctx, id, decision, { ...(opts.reason !== undefined ? { reason: opts.reason } : {}) });
    const last = request.history.at(-1)!;
    if (request.auditWarning) currentIO().stderr.write(`warning: ${request.auditWarning}\n`);
    if (json) currentIO().stdout.write(`${JSON.stringify(summary(request), null, 2)}\n`);
    else if (decision === 'approve') currentIO().stdout.write(`Change request ${id} approved by ${last.actor.user} (requested by ${request.requestedBy.user}); apply it with \`offsetctl changes apply ${id}\` before ${request.expiresAt}.\n`);
    else {
      const verb = statusText(request) === 'withdrawn' ? 'withdrawn by its requester' : 'rejected by';
      currentIO().stdout.write(`Change request ${id} ${verb} ${last.actor.user}: ${last.reason}\n`);
    }
  } finally {
    await store.close();
  }
}

export async function applyChange(id: string, opts: ApplyOptions & { backup?: string; secretsFile?: string }): Promise<void> {
  // The request names its cluster: with no connection given, it is applied there.
  const { store } = await openRequests(opts);
  let request: ChangeRequestRecord;
  try {
    request = await store.getChangeRequest(id).catch((err: unknown) => { throw refusal(err); });
  } finally {
    await store.close();
  }
  if (ops.isImportRequest(request.plan)) return applyImportRequest(id, request, opts);
  if (ops.isAbandonRequest(request.plan)) return applyAbandonRequest(id, request, opts);
  if (ops.isImportUndoRequest(request.plan)) return applyImportUndoRequest(id, request, opts);
  if (ops.isExportRequest(request.plan)) {
    const { connectors, includeSecrets } = request.plan;
    return runExport(connectors, { ...opts, consistent: true, includeSecrets }, { id, clusterUrl: request.clusterUrl });
  }
  if (ops.isMoveRequest(request.plan)) {
    if (request.plan.operation === 'rollback') return applyMoveUndoRequest(id, request, opts);
    return applyMoveRequest(id, request, opts);
  }
  if (request.connectors.length > 1) {
    await withChangeConnection(opts, request.clusterUrl, async (conn, ctx, out) => {
      const { checked } = await ops.checkApprovedChange(ctx, id, await checkOptions(opts, conn));
      await applyChecked(conn, ctx, checked, opts, out, {
        header: async () => out(requestHeading(request)), requestId: id,
        applying: { start: async () => auditWarning(await ops.startApplying(ctx, id)), finish: async (r) => auditWarning(await ops.finishApplying(ctx, id, r)) },
      });
    });
    return;
  }
  let checked: Awaited<ReturnType<typeof ops.checkApprovedChange>>['checked'] | undefined;
  let context: import('../../ops/index.js').OpsContext | undefined;
  await runChange(opts, { action: request.operation, connector: request.connectors[0]! }, async (o, ctx, conn) => {
    context = ctx;
    checked = (await o.checkApprovedChange(ctx, id, await checkOptions(opts, conn))).checked;
    return checked.connectors[0]!.plan;
  }, request.clusterUrl, {
    before: async (_plan, info) => void info(requestHeading(request)),
    after: async (_plan, info) => showMoved(checked!, info),
    beforeConfirm: async () => acceptMoved(checked!, opts),
    reviewed: { planDigest: request.digest, requestId: id },
    applying: {
      start: async () => auditWarning(await ops.startApplying(context!, id)),
      finish: async (outcome: OperationOutcome) => auditWarning(await ops.finishApplying(context!, id, {
        succeeded: outcome.status === 'succeeded' || outcome.status === 'unchanged', runIds: outcome.runId ? [outcome.runId] : [], message: outcome.message,
      })),
    },
  });
}

async function checkOptions(opts: ApplyOptions, conn: import('../connection.js').Connection) {
  const kafka = await preflightKafkaSettings(opts, conn.context);
  const profileFor = (connector: string) => profileOptionsFor(opts, conn.context, connector);
  return { limits: resolveLimits(limitFlags(opts), currentIO().env), profileFor, ...(kafka ? { kafka } : {}) };
}

function summary(r: ChangeRequestRecord): Record<string, unknown> {
  const last = r.history.at(-1);
  return {
    id: r.id, status: r.displayStatus, operation: r.operation, connectors: r.connectors, clusterUrl: r.clusterUrl, clusterKey: r.clusterKey,
    ...(r.contextName ? { context: r.contextName } : {}), requestedBy: r.requestedBy.user, requestedAt: r.requestedAt, expiresAt: r.expiresAt, digest: r.digest,
    ...(last && last.action !== 'requested' ? { last: { action: last.action, by: last.actor.user, at: last.at, ...(last.message ? { note: last.message } : {}), ...(last.reason ? { reason: last.reason } : {}), ...(last.runIds ? { runIds: last.runIds } : {}) } } : {}),
  };
}

/** A step recorded, but its audit entry not written (a full disk, a store without the trail): said, never hidden. */
function auditWarning(step: { auditWarning?: string }): void {
  if (step.auditWarning) currentIO().stderr.write(`warning: ${step.auditWarning}\n`);
}
