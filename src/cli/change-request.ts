// Where a context says `approval: required`, a change command records a change request instead of
// changing anything: the plan as saved (the same document `--plan-out` writes), who asked (the
// store's own actor: the database login on a team store), when it expires. Someone else approves
// it (`offsetctl changes approve`), then it is applied (`offsetctl changes apply`).
import type { OpsContext, Plan } from '../ops/index.js';
import type { SavedPlan } from '../ops/changes/index.js';
import type { Connection } from './connection.js';
import { storeActor } from './plan-file.js';

export async function requestInstead(conn: Connection, ctx: OpsContext, plans: readonly Plan[] | SavedPlan, info: (text: string) => unknown, selection?: string): Promise<void> {
  const { requestChange, savePlan } = await import('../ops/changes/index.js');
  const saved = Array.isArray(plans) ? savePlan(plans as Plan[], { plannedBy: await storeActor(ctx.store), ...(selection ? { selection } : {}) }) : plans as SavedPlan;
  const by = conn.context?.approval === 'required' ? conn.contextName : conn.governedBy?.[0] ?? conn.contextName;
  const request = await requestChange(ctx, saved, { ...(by ? { contextName: by } : {}) });
  if (request.auditWarning) process.stderr.write(`warning: ${request.auditWarning}\n`);
  const what = request.connectors.length === 1 ? `${request.operation} of ${request.connectors[0]}` : `${request.operation} of ${request.connectors.length} connectors`;
  if (conn.output === 'json') {
    process.stdout.write(`${JSON.stringify({ status: 'requested', request: { id: request.id, status: request.status, operation: request.operation, connectors: request.connectors, requestedBy: request.requestedBy.user, requestedAt: request.requestedAt, expiresAt: request.expiresAt, digest: request.digest } }, null, 2)}\n`);
  }
  const rule = by === undefined ? 'This cluster requires approval' : by === conn.contextName ? `Context ${by} requires approval` : `${conn.url} is a worker of the cluster context ${by} governs, which requires approval`;
  info(`${rule}: change request ${request.id} (${what}) recorded in ${ctx.store.location} by ${request.requestedBy.user}; nothing was changed.\n` +
    `It needs the approval of someone other than ${request.requestedBy.user} before ${request.expiresAt}: \`offsetctl changes approve ${request.id}\`, then \`offsetctl changes apply ${request.id}\`.`);
}
