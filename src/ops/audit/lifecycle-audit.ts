// The lifecycle verbs (stop, pause, resume, restart) leave the audit entries a change does: who,
// the connector and its cluster, the state before → after. A stopped production connector is as
// much a change as a rewind; who stopped it must be findable.
import { redactText } from '../../http/redact.js';
import type { NewAuditEntry } from '../../store/index.js';
import { clusterIdentity, WorkerRoot } from '../cluster/index.js';
import type { OpsContext } from '../context.js';
import { changeConnectorState, type LifecycleOptions, type LifecycleResult, type LifecycleVerb } from '../lifecycle/index.js';
import type { AuditScope } from './audit.js';
import { requireNoPolicy } from './policy.js';

/** Codes that mean nothing was sent (bad input, unknown connector, an unreachable worker). */
const REFUSALS = new Set(['E_USAGE', 'E_CONNECTOR_NOT_FOUND', 'E_PREFLIGHT', 'E_UNREACHABLE', 'E_CONFIG', 'E_APPROVAL_REQUIRED']);

/**
 * changeConnectorState with an audit entry of its outcome: `done` (before → after), `unchanged`
 * (already there, nothing sent), `refused` or `failed` (the state was not reached). A store that
 * cannot write does not undo what Connect did: the result carries a warning instead.
 */
export async function changeStateAudited(
  ctx: OpsContext, scope: AuditScope, connector: string, verb: LifecycleVerb, options: LifecycleOptions = {},
): Promise<LifecycleResult & { warnings: string[] }> {
  const identity = await clusterIdentity(new WorkerRoot(ctx.http, ctx.url)).catch(() => undefined);
  const base: Omit<NewAuditEntry, 'outcome'> = {
    actor: scope.actor, action: verb, connector, clusterUrl: ctx.url,
    ...(identity ? { clusterKey: identity.key } : {}), ...(scope.context ? { context: scope.context } : {}),
  };
  const warnings: string[] = [];
  const write = (entry: NewAuditEntry): Promise<void> => ctx.store.recordAudit(entry).then(() => undefined, (err: unknown) => {
    warnings.push(`the audit entry (${entry.outcome}) could not be written to ${ctx.store.location}: ${redactText((err as Error).message)}`);
  });
  let result: LifecycleResult;
  try {
    // Gated only where a policy names the verb (policy.ts): a stop cannot be a change request yet.
    if (identity?.kafkaClusterId) await requireNoPolicy(ctx.store, { clusterKey: identity.key, connector, action: verb }, false);
    result = await changeConnectorState(ctx, connector, verb, options);
  } catch (err) {
    const e = err as { code?: string; message?: string };
    await write({ ...base, outcome: e.code && REFUSALS.has(e.code) ? 'refused' : 'failed', message: redactText(`${e.code ? `[${e.code}] ` : ''}${e.message ?? String(err)}`) });
    throw err;
  }
  const tasks = result.tasks.length === 0 ? '' : ` (tasks ${result.tasks.map((t) => `${t.id}:${t.state}`).join(' ')})`;
  await write({
    ...base, outcome: result.unchanged ? 'unchanged' : 'done',
    message: result.unchanged ? `already ${result.state}; nothing sent` : `${result.before} → ${result.state}${tasks}`,
  });
  return { ...result, warnings };
}
