// The actions of `policy set|show` (registered in policy.ts). Loaded only through their door
// (load.policyActions()), so they import what they need statically.
import { type ConnectionOptions, resolveConnection } from '../connection.js';
import { resolveKafkaAccess } from '../kafka-settings.js';
import { currentIO } from '../io.js';
import { OpsError } from '../../ops/errors.js';
import type { PolicyFlags } from './policy.js';
import { POLICY_ACTIONS, describePolicy, setPolicyAudited } from '../../ops/audit/index.js';
import { isTeamStore } from '../../store/index.js';
import { WorkerRoot, clusterIdentity } from '../../ops/cluster/index.js';
import { openCommandStore } from '../store-choice.js';
import { stderr, stdout } from './say.js';
import { storeWithoutSecrets } from '../governance-check.js';
import * as load from '../load.js';
import { openHistory } from './history-actions.js';
import { renderTable } from '../render/table.js';
import { cliActorFor } from '../actor.js';

export async function setPolicy(context: string, opts: PolicyFlags): Promise<void> {
  if (opts.requireApproval === undefined) throw new OpsError('E_USAGE', 'say what the policy is: --require-approval or --no-require-approval', { field: 'require-approval' });
  if (opts.connectors !== undefined) {
    try {
      new RegExp(opts.connectors);
    } catch (err) {
      throw new OpsError('E_USAGE', `--connectors ${JSON.stringify(opts.connectors)} is not a regular expression: ${(err as Error).message}`, { field: 'connectors' });
    }
  }
  const actions = opts.actions === undefined ? undefined : opts.actions.split(',').map((a) => a.trim()).filter((a) => a !== '');
  const unknown = actions?.filter((a) => !(POLICY_ACTIONS as readonly string[]).includes(a)) ?? [];
  if (actions?.length === 0 || unknown.length > 0) {
    throw new OpsError('E_USAGE', `--actions: ${unknown.length > 0 ? `unknown ${unknown.join(', ')}` : 'empty'}; name some of ${POLICY_ACTIONS.join(', ')}`, { field: 'actions' });
  }
  const conn = await resolveConnection({ ...opts, context });
  if (!isTeamStore(conn.store)) {
    await conn.http.close();
    throw new OpsError('E_USAGE', `context ${context} has no team store: policies live in the team store, where they bind every operator (offsetctl config set-context ${context} --store postgres://…)`, { field: 'context' });
  }
  const identity = await clusterIdentity(new WorkerRoot(conn.http, conn.url), { members: true });
  await conn.http.close();
  if (!identity.kafkaClusterId) throw new OpsError('E_UNREACHABLE', `context ${context}: ${conn.url} did not say which cluster it is (GET /): nothing was set`, { field: 'context' });
  const store = await openCommandStore(conn.store);
  try {
    const actor = await cliActorFor(store);
    const set = await setPolicyAudited(store, actor, {
      clusterKey: identity.key, clusterUrl: conn.url, context, requireApproval: opts.requireApproval,
      ...(opts.connectors !== undefined ? { connectors: opts.connectors } : {}), ...(actions ? { actions } : {}),
    });
    stdout(conn.output === 'json' ? `${JSON.stringify(set, null, 2)}\n` : `policy ${set.id} in ${store.location}: ${describePolicy(set)}; set by ${set.setBy.user}\n`);
    // The marker in Kafka tells an offsetctl with no team store that this one governs the cluster.
    const marked = await markGoverned(opts, conn, store, identity.key, identity.members ?? [], set.setBy.dbUser ?? set.setBy.user, describePolicy);
    if (marked !== undefined) {
      stderr(`${marked.text}\n`);
      // Kafka refused the marker: the policy is set (never exit 2 after a change), but not all was done.
      if (marked.failed) currentIO().exitCode = 1;
    }
  } finally {
    await store.close();
  }
}

/**
 * Writes the cluster's governance marker (src/kafka/governance-marker.ts) with the policies now in
 * force; resolves with what to say: no bootstrap is a warning, a marker Kafka refused a failure (exit 1, never 2, after the change).
 */
export async function markGoverned(
  opts: PolicyFlags, conn: import('../connection.js').Connection, store: import('../../store/index.js').Store,
  clusterKey: string, members: string[], by: string, describe: (p: import('../../store/index.js').PolicyRecord) => string,
): Promise<{ text: string; failed: boolean } | undefined> {
  const access = resolveKafkaAccess(opts, conn.context);
  if (!access.bootstrap) {
    return {
      text: `warning: the policy is set, but ${clusterKey} is not marked as governed in Kafka (no bootstrap: give --bootstrap or the context's bootstrap): an offsetctl with no team store cannot learn that this store governs it`,
      failed: false,
    };
  }
  const policies = (await store.listPolicies({ clusterKeys: [clusterKey] })).filter((p) => p.requireApproval).map(describe);
  try {
    // The last policy removed, the marker goes too (a tombstone): the cluster has no rules left to tell of.
    const { writeGovernanceMarker } = await load.kafkaGovernanceMarker();
    await writeGovernanceMarker(await access.settingsFor(access.bootstrap), {
      clusterKey, store: storeWithoutSecrets(conn.store.store ?? ''), ...(conn.contextName ? { context: conn.contextName } : {}), connectUrl: conn.url,
      members, policies, writtenAt: new Date(currentIO().now()).toISOString(), writtenBy: by,
    }, policies.length === 0);
    return undefined;
  } catch (err) {
    return { text: `the policy is set, but ${clusterKey} could not be marked as governed in Kafka: ${(err as Error).message}`, failed: true };
  }
}

export async function showPolicies(opts: ConnectionOptions): Promise<void> {
  const { store, json } = await openHistory(opts);
  try {
    const list = await store.listPolicies();
    if (json) return void stdout(`${JSON.stringify(list, null, 2)}\n`);
    if (list.length === 0) return void stdout(`no policies in ${store.location}\n`);
    stdout(`${renderTable(['CLUSTER', 'CONNECTORS', 'ACTIONS', 'APPROVAL', 'CONTEXT', 'SET BY', 'SET AT'],
      list.map((p) => [p.clusterKey, p.connectors ?? '(all)', (p.actions ?? ['(offset changes)']).join(','), p.requireApproval ? 'required' : 'not required', p.context ?? '', p.setBy.user, p.setAt]))}\n`);
  } finally {
    await store.close();
  }
}
