// `offsetctl policy set <context> …` and `offsetctl policy show`: the team's rules for a Connect
// cluster, kept in the team store, binding every operator and console on it (ops/audit/policy.ts).
// Only the team's admin role may set one (the database refuses the others); each is audited.
import type { Command } from 'commander';
import { addConnectionOptions, type ConnectionOptions } from '../connection.js';
import { addKafkaOptions, type KafkaFlags } from '../kafka-settings.js';
import * as load from '../load.js';

export interface PolicyFlags extends ConnectionOptions, KafkaFlags {
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
    .action(async (context: string, _o: PolicyFlags, cmd: Command) => (await load.policyActions()).setPolicy(context, cmd.optsWithGlobals() as PolicyFlags));
  addConnectionOptions(policy.command('show').description('list the team store\'s policies (-o json: an array)'))
    .action(async (_o: ConnectionOptions, cmd: Command) => (await load.policyActions()).showPolicies(cmd.optsWithGlobals() as ConnectionOptions));
}
