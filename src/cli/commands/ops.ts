// The registration of the changing commands (rewind, reset, rollback, runs resume; their actions in
// ops-actions.ts) and of the history commands (snapshots, runs; history-actions.ts). Registration is
// eager and cheap: options and help. Each action reaches its module through one door (src/cli/load.ts).
// Exit statuses: 0 done, 1 the run failed (the message names the connector's state), 2 refused before
// any change (pre-flight, lock, no confirmation).
import type { Command } from 'commander';
import { addConnectionOptions, type ConnectionOptions } from '../connection.js';
import type { BatchCliOptions } from './batch.js';
import { withChangeFlags, withLimitFlags, type ChangeOptions, type LimitOptions } from './change-flags.js';
import { addPositionOptions, type PositionOptions } from './rewind-positions.js';
import { withSourceDbFlags, type SourceDbOptions } from '../source-db.js';
import { withVerifyFlags } from './verify-after.js';
import { addKafkaOptions } from '../kafka-settings.js';
import * as load from '../load.js';

const EXIT_HELP = '\nExit status: 0 done, 1 the run failed (the message says which state the connector is in), 2 refused before anything changed.';

export function register(program: Command): void {
  addPositionOptions(withVerifyFlags(withSourceDbFlags(withLimitFlags(withChangeFlags(addConnectionOptions(
    program
      .command('rewind')
      .argument('[connectors...]', 'connector name(s); several, --selector or --all make a batch')
      .option('--allow-forward', 'write targets beyond a partition\'s end without asking (scripts); they are always shown')
      .option('--time-column <column>', 'a Debezium source: --to-time becomes `offsetctl replay --table <t>` of rows with <column> >= the time')
      .option('--table <schema.table>', 'with --time-column: the table to read again')
      .option('--offsets <file|->', 'target offsets: {"offsets": [...]} or a bare list, from a file or - for stdin (the output of `offsetctl offsets get --output json` fits); or a position, below')
      .description('alter a connector\'s offsets safely: pre-flight, diff, confirm, stop, snapshot, PATCH, verify, restore its state'),
  )))))).addHelpText('after', EXIT_HELP)
    .action(async (names: string[], opts: ChangeOptions & LimitOptions & PositionOptions & BatchCliOptions & SourceDbOptions, cmd: Command) => {
      return (await load.opsActions()).rewind(names, opts, cmd);
    });

  withVerifyFlags(withSourceDbFlags(withChangeFlags(addKafkaOptions(addConnectionOptions(
    program
      .command('reset')
      .argument('[connectors...]', 'connector name(s); several, --selector or --all make a batch')
      .description('delete every offset of a connector (a snapshot is kept for rollback)'),
  ))))).addHelpText('after', EXIT_HELP)
    .action(async (names: string[], opts: ChangeOptions & BatchCliOptions & SourceDbOptions) => {
      return (await load.opsActions()).reset(names, opts);
    });

  withVerifyFlags(withSourceDbFlags(withLimitFlags(withChangeFlags(addKafkaOptions(addConnectionOptions(
    program
      .command('rollback')
      .argument('[connectors...]', 'connector name(s); several, --selector or --all make a batch')
      .option('--snapshot <id>', 'snapshot to restore (default: the connector\'s latest on this cluster)')
      .option('--to <context|url>', 'after a move, copy or import: the connection to its other cluster (default: its recorded URL)')
      .description('restore a snapshot exactly (partitions not in it are removed) and the state the connector had when it was taken; after a move, copy or import: undo it'),
  )))))).addHelpText('after', EXIT_HELP)
    .action(async (names: string[], opts: ChangeOptions & LimitOptions & BatchCliOptions & SourceDbOptions & { snapshot?: string }) => {
      return (await load.opsActions()).rollback(names, opts);
    });

  const snapshots = addConnectionOptions(
    program
      .command('snapshots')
      .argument('[connector]', 'only this connector')
      .description('list stored snapshots, newest first (JSON: an array of {"id", "connector", "clusterUrl", "type", "stateBefore", "partitions", "takenAt", "runId"})'),
  ).action(async (connector: string | undefined, opts: ConnectionOptions) => (await load.historyActions()).listSnapshots(connector, opts));
  addShowCommand(snapshots, 'snapshot id', 'show a snapshot with its offsets (JSON: the snapshot with "offsets")', async (id, opts) => (await load.historyActions()).showSnapshot(id, opts));
  addConnectionOptions(snapshots.command('prune').argument('[connector]', 'only this connector')
    .option('--keep <n>', 'keep the N newest snapshots of each connector')
    .option('--older-than <age>', 'prune only snapshots older than this: 30d, 12h, 90m, 2w')
    .option('--dry-run', 'list what would be pruned, delete nothing')
    .description('delete old snapshots (at least one of --keep / --older-than; both: a snapshot must be beyond the N newest and older than the age); a running run\'s snapshot is always kept'))
    .action(async (connector: string | undefined, _opts: ConnectionOptions, cmd: Command) => (await load.historyActions()).pruneSnapshots(connector, cmd.optsWithGlobals()));

  const runs = addConnectionOptions(
    program
      .command('runs')
      .option('--connector <name>', 'only runs on this connector')
      .option('--batch <id>', 'only the runs of this batch')
      .option('--limit <n>', 'only the N newest runs (default 1000)')
      .description('list runs, newest first (JSON: an array of {"id", "connector", "operation", "status", "clusterUrl", "startedAt", ...})'),
  ).action(async (opts: ConnectionOptions & { connector?: string; batch?: string; limit?: string }) => (await load.historyActions()).listRuns(opts));
  addConnectionOptions(runs.command('show').argument('<id>', 'run id').description('show a run: its steps and journal')
    .option('--evidence', 'the run\'s evidence as JSON: plan and snapshot digests, approvals, lock holder, audit entries with their chain digests'))
    .action(async (id: string, _opts: ConnectionOptions, cmd: Command) => {
      const opts = withParentOptions(cmd) as ConnectionOptions & { evidence?: boolean };
      if (opts.evidence) return (await load.runEvidence()).showRunEvidence(id, opts);
      return (await load.historyActions()).showRun(id, opts);
    });
  addConnectionOptions(runs.command('abandon').argument('<id>', 'run id')
    .option('--reason <text>', 'why the run is abandoned (required; recorded with the run and who abandoned it)')
    .option('--yes', 'do not ask for confirmation (scripts)')
    .description('give up an interrupted run without changing any offset: shows the connector\'s live state, records who and why, frees its lock'))
    .addHelpText('after', EXIT_HELP)
    .action(async (id: string, _own: unknown, cmd: Command) => (await load.abandon()).abandonCommand(id, withParentOptions(cmd)));
  addConnectionOptions(withSourceDbFlags(runs.command('resume').argument('[id]', 'run id'))
    .option('--yes', 'do not ask for confirmation (scripts)')
    .option('--dry-run', 'show what the run would still change, change nothing')
    .option('--plan-out <file>', 'not for resume: an interrupted run is finished now or undone (see docs/reviewed-changes.md)')
    .option('--chunk-size <n>', 'partitions per PATCH (env OFFSETCTL_CHUNK_SIZE; default 10000)')
    .option('--batch <id>', 'finish every interrupted run of this batch').option('--concurrency <n>', 'with --batch: runs resumed at once (default 4)')
    .option('--to <context|url>', 'a move or copy: the connection to its other cluster (default: its recorded URL)')
    .description('finish an interrupted run (or every interrupted run of a batch) from its last finished step (shows the diff and asks, like any change)'))
    .addHelpText('after', EXIT_HELP)
    .action(async (id: string | undefined, own: BatchCliOptions & { batch?: string }, cmd: Command) => {
      const opts = withParentOptions(cmd) as ChangeOptions & LimitOptions;
      return (await load.opsActions()).resume(id, own, opts);
    });
}

/**
 * `snapshots show <id> --state-dir d`: the parent command defines the same options and, as
 * commander parses them wherever they appear, takes them; merge both levels.
 */
function withParentOptions(cmd: Command): ConnectionOptions {
  return cmd.optsWithGlobals() as ConnectionOptions;
}

/** `<parent> show <id>`: one stored record, with the connection options read at either level. */
function addShowCommand(parent: Command, idDescription: string, description: string, show: (id: string, opts: ConnectionOptions) => Promise<void>): void {
  addConnectionOptions(parent.command('show').argument('<id>', idDescription).description(description))
    .action(async (id: string, _opts: ConnectionOptions, cmd: Command) => show(id, withParentOptions(cmd)));
}
