// The team's rules for a cluster, kept in the team store (Store.setPolicy): which changes need
// someone else's approval. They bind whoever applies a change on that store, whatever their local
// config says: `applyAudited`, `runAudited` and `changeStateAudited` — the doors every face applies
// through — refuse a change a policy covers unless it is an approved request (E_APPROVAL_REQUIRED,
// exit 2, nothing changed); faces ask `approvalRule` first to turn such a change into a request.
import type { AuditActor, NewPolicy, PolicyRecord, Store } from '../../store/index.js';
import { OpsError } from '../errors.js';

/** The actions a policy without `actions` governs: every change of offsets or of where a connector runs. */
export const OFFSET_ACTIONS = ['rewind', 'reset', 'rollback', 'move', 'copy', 'import'] as const;
/** Every action a policy may name. */
/** Every action a policy may name (`export`: a consistent export, which stops each running connector for a moment). */
export const POLICY_ACTIONS = [...OFFSET_ACTIONS, 'abandon', 'stop', 'pause', 'resume', 'restart', 'export'] as const;
/** A policy without `actions` covers the offset changes and abandoning a run of one (`runs abandon` changes their record). */
const DEFAULT_ACTIONS: readonly string[] = [...OFFSET_ACTIONS, 'abandon'];

/** Does this policy cover a change of `action` to `connector`? */
export function covers(policy: Pick<PolicyRecord, 'connectors' | 'actions'>, connector: string, action: string): boolean {
  const actions: readonly string[] = policy.actions ?? DEFAULT_ACTIONS;
  if (!actions.includes(action)) return false;
  if (policy.connectors === undefined) return true;
  try {
    return new RegExp(policy.connectors).test(connector);
  } catch {
    return true; // a pattern that no longer compiles covers everything: never less than was meant
  }
}

/** The policy that requires approval for this change, if any (the first that does). */
export async function approvalRule(store: Pick<Store, 'listPolicies'>, change: { clusterKey: string; connector: string; action: string }): Promise<PolicyRecord | undefined> {
  const policies = await store.listPolicies({ clusterKeys: [change.clusterKey] });
  return policies.find((p) => p.requireApproval && covers(p, change.connector, change.action));
}

/** In words, for refusals and `policy show`: "rewind, reset … of ^orders- on kafka:…". */
export function describePolicy(p: Pick<PolicyRecord, 'connectors' | 'actions' | 'clusterKey' | 'context' | 'requireApproval'>): string {
  const what = (p.actions ?? ['every offset change']).join(', ');
  const which = p.connectors === undefined ? 'every connector' : `connectors matching ${p.connectors}`;
  return `${p.requireApproval ? 'approval required' : 'no approval required'} for ${what} of ${which} on ${p.clusterKey}${p.context ? ` (set through context ${p.context})` : ''}`;
}

/** Refuses a change a policy covers, unless it is an approved request being applied. */
export async function requireNoPolicy(
  store: Pick<Store, 'listPolicies' | 'location'>, change: { clusterKey: string; connector: string; action: string }, reviewed: boolean,
): Promise<void> {
  if (reviewed) return;
  const rule = await approvalRule(store, change);
  if (!rule) return;
  const how = 'make it a change request (the change commands do so where they can: rewind, reset, rollback, apply, batches, move, copy, import, export --consistent, '
    + 'runs abandon) and have someone else approve it';
  throw new OpsError('E_APPROVAL_REQUIRED', `${change.action} of ${change.connector}: the team's policy in ${store.location} requires approval (${describePolicy(rule)}); nothing was changed: ${how}`, { field: 'policy' });
}

/**
 * Sets a policy and records who did it in the audit (an admin's act, enforced by the store: only
 * the team's admin role may write policies); a refusal is audited too, then thrown.
 */
export async function setPolicyAudited(
  store: Pick<Store, 'setPolicy' | 'recordAudit'>, actor: AuditActor, policy: NewPolicy,
): Promise<PolicyRecord> {
  const base = { actor, action: 'policy', ...(policy.clusterUrl ? { clusterUrl: policy.clusterUrl } : {}), clusterKey: policy.clusterKey, ...(policy.context ? { context: policy.context } : {}) };
  let set: PolicyRecord;
  try {
    set = await store.setPolicy(policy);
  } catch (err) {
    await store.recordAudit({ ...base, outcome: 'refused', message: `${describePolicy(policy)}: ${(err as Error).message}` }).catch(() => undefined);
    throw err;
  }
  await store.recordAudit({ ...base, outcome: 'done', message: describePolicy(set) });
  return set;
}
