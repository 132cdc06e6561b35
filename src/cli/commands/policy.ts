// `offsetctl policy set <context> …` and `offsetctl policy show`: the team's rules for a Connect
// cluster, kept in the team store, binding every operator and console on it (ops/audit/policy.ts).
// Only the team's admin role may set one (the database refuses the others); each is audited.
import type { Command } from 'commander';
import { addConnectionOptions, type ConnectionOptions, resolveConnection } from '../connection.js';
import { addKafkaOptions, type KafkaFlags, resolveKafkaAccess } from '../kafka-settings.js';
import { currentIO } from '../io.js';
import { OpsError } from '../../ops/errors.js';
import * as load from '../load.js';

interface PolicyFlags extends ConnectionOptions, KafkaFlags {
  requireApproval?: boolean;
  connectors?: string;
  actions?: string;
}

export function register(program: Command): void {
  const policy = program.command('policy').description('the team store\'s rules per Connect cluster: which changes need someone else\'s approval');
  addKafkaOptions(addConnectionOptions(policy.command('set').argument('<context>', 'the context whose cluster and team store the policy is for')
    .option('--require-approval', 'changes covered need an approved change request')
    .option('--no-require-approval', 'changes covered apply after the usual confirmation (removes the rule of that scope)')
    .option('--connectors <regex>', 'only connectors whose name matches (default: every connector)')
    .option('--actions <list>', 'comma-separated: rewind, reset, rollback, move, copy, import, abandon, stop, pause, resume, restart, export (a consistent export) '
      + '(default: every offset change, and abandon)')
    .description('set the policy of a cluster (admin role only; audited); with a bootstrap, marks the cluster as governed in Kafka')))
    .action(async (context: string, _o: PolicyFlags, cmd: Command) => setPolicy(context, cmd.optsWithGlobals() as PolicyFlags));
  addConnectionOptions(policy.command('show').description('list the team store\'s policies (-o json: an array)'))
    .action(async (_o: ConnectionOptions, cmd: Command) => showPolicies(cmd.optsWithGlobals() as ConnectionOptions));
}

async function setPolicy(context: string, opts: PolicyFlags): Promise<void> {
  const { POLICY_ACTIONS, describePolicy, setPolicyAudited } = await load.opsAudit();
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
  const { isTeamStore } = await load.store();
  if (!isTeamStore(conn.store)) {
    await conn.http.close();
    throw new OpsError('E_USAGE', `context ${context} has no team store: policies live in the team store, where they bind every operator (offsetctl config set-context ${context} --store postgres://…)`, { field: 'context' });
  }
  const { clusterIdentity, WorkerRoot } = await load.opsCluster();
  const identity = await clusterIdentity(new WorkerRoot(conn.http, conn.url), { members: true });
  await conn.http.close();
  if (!identity.kafkaClusterId) throw new OpsError('E_UNREACHABLE', `context ${context}: ${conn.url} did not say which cluster it is (GET /): nothing was set`, { field: 'context' });
  const { openCommandStore } = await load.storeChoice();
  const store = await openCommandStore(conn.store);
  try {
    const actor = await (await load.actor()).cliActorFor(store);
    const set = await setPolicyAudited(store, actor, {
      clusterKey: identity.key, clusterUrl: conn.url, context, requireApproval: opts.requireApproval,
      ...(opts.connectors !== undefined ? { connectors: opts.connectors } : {}), ...(actions ? { actions } : {}),
    });
    const { stdout, stderr } = await load.say();
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
async function markGoverned(
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
  const { storeWithoutSecrets } = await load.governanceCheck();
  const { writeGovernanceMarker } = await load.kafkaGovernanceMarker();
  const policies = (await store.listPolicies({ clusterKeys: [clusterKey] })).filter((p) => p.requireApproval).map(describe);
  try {
    // The last policy removed, the marker goes too (a tombstone): the cluster has no rules left to tell of.
    await writeGovernanceMarker(await access.settingsFor(access.bootstrap), {
      clusterKey, store: storeWithoutSecrets(conn.store.store ?? ''), ...(conn.contextName ? { context: conn.contextName } : {}), connectUrl: conn.url,
      members, policies, writtenAt: new Date(currentIO().now()).toISOString(), writtenBy: by,
    }, policies.length === 0);
    return undefined;
  } catch (err) {
    return { text: `the policy is set, but ${clusterKey} could not be marked as governed in Kafka: ${(err as Error).message}`, failed: true };
  }
}

async function showPolicies(opts: ConnectionOptions): Promise<void> {
  const { openHistory } = await load.historyActions();
  const { stdout } = await load.say();
  const { store, json } = await openHistory(opts);
  try {
    const list = await store.listPolicies();
    if (json) return void stdout(`${JSON.stringify(list, null, 2)}\n`);
    if (list.length === 0) return void stdout(`no policies in ${store.location}\n`);
    const { renderTable } = await load.renderTable();
    stdout(`${renderTable(['CLUSTER', 'CONNECTORS', 'ACTIONS', 'APPROVAL', 'CONTEXT', 'SET BY', 'SET AT'],
      list.map((p) => [p.clusterKey, p.connectors ?? '(all)', (p.actions ?? ['(offset changes)']).join(','), p.requireApproval ? 'required' : 'not required', p.context ?? '', p.setBy.user, p.setAt]))}\n`);
  } finally {
    await store.close();
  }
}
