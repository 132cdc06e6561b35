// `offsetctl changes list | show <id> | approve <id> | reject <id> --reason … | apply <id>`: change
// requests (four-eyes approval) in the store, made by a change command where the context says
// `approval: required`. The approver is another identity than the requester, as the store
// authenticated them (the team store's database login). Registration only; changes-actions.ts acts.
import { withSourceDbFlags } from '../source-db.js';
import type { Command } from 'commander';
import { addConnectionOptions, type ConnectionOptions } from '../connection.js';
import { addKafkaOptions } from '../kafka-settings.js';
import { withLimitFlags } from './change-flags.js';
import * as load from '../load.js';

const actions = load.changesActions;

export function register(program: Command): void {
  const changes = program
    .command('changes')
    .description('change requests: changes waiting for someone else\'s approval (contexts with approval: required)')
    .addHelpText('after', '\nA request is approved by another identity than the one that made it (the team store\'s database user), then applied: re-checked against the cluster like a saved plan, snapshot first. A request expires after 24 h.\nExit status: 0 done, 1 a run failed, 2 refused before anything changed.');
  addConnectionOptions(changes.command('list')
    .option('--status <status>', 'only requests in this status: pending, approved, rejected, applying, applied, failed')
    .option('--connector <name>', 'only requests that change this connector')
    .description('list change requests, newest first'))
    .action(async (opts: ConnectionOptions & { status?: string; connector?: string }, cmd: Command) => (await actions()).listChanges({ ...cmd.optsWithGlobals(), ...opts }));
  addConnectionOptions(changes.command('show').argument('<id>', 'change request id')
    .description('show a request: who asked, its history, and the diff of every connector'))
    .action(async (id: string, _opts: ConnectionOptions, cmd: Command) => (await actions()).showChange(id, cmd.optsWithGlobals()));
  addConnectionOptions(changes.command('approve').argument('<id>', 'change request id')
    .description('approve a pending request (not your own)'))
    .action(async (id: string, _opts: ConnectionOptions, cmd: Command) => (await actions()).reviewChangeCommand(id, 'approve', cmd.optsWithGlobals()));
  addConnectionOptions(changes.command('reject').argument('<id>', 'change request id')
    .requiredOption('--reason <text>', 'why (recorded with the request)')
    .description('reject a pending request'))
    .action(async (id: string, _opts: ConnectionOptions, cmd: Command) => (await actions()).reviewChangeCommand(id, 'reject', cmd.optsWithGlobals()));
  withSourceDbFlags(addKafkaOptions(withLimitFlags(addConnectionOptions(changes.command('apply').argument('<id>', 'change request id')
    .option('--accept-moved-offsets', 'apply even though the starting offsets moved in a way that changes what the plan does (shown first)')
    .option('--yes', 'do not ask for confirmation (scripts); does not accept moved offsets')
    .option('--dry-run', 'check the approved plan against the cluster and show it, change nothing')
    .option('--allow-forward', 'write targets beyond a partition\'s end without asking')
    .option('--concurrency <n>', 'several connectors: changed at once (default 4)')
    .option('--backup <file>', 'an import request: the backup it was requested with (not stored with the request)')
    .option('--secrets-file <file>', 'an import request: the secrets the backup left out, as for `offsetctl import`')
    .description('apply an approved request exactly as approved, after checking it still fits')))))
    .action(async (id: string, _opts: ConnectionOptions, cmd: Command) => (await actions()).applyChange(id, cmd.optsWithGlobals()));
}
