// The changing commands (rewind, reset, rollback, runs resume) and the registration of the
// history commands (snapshots, runs; history-actions.ts). Registration is eager and cheap; the ops
// layer, the store and the engine load only inside the action handlers. Exit statuses: 0 done, 1 the run failed (the message names the connector's
// state), 2 refused before any change (pre-flight, lock, no confirmation).
import type { Command } from 'commander';
import type { OperationOutcome, OpsContext, OpsEvent, Plan, ResumeAfter } from '../../ops/index.js';
import { OpsError } from '../../ops/errors.js';
import { stdout, stderr } from './say.js';
import { ReportedFailure } from '../exit-status.js';
import { addConnectionOptions, type Connection, type ConnectionOptions } from '../connection.js';
import { isBatch, type BatchCliOptions } from './batch.js';
import { addPositionOptions, wantsPosition, type PositionOptions } from './rewind-positions.js';

interface ChangeOptions extends ConnectionOptions {
  yes?: boolean;
  dryRun?: boolean;
  leaveStopped?: boolean;
  resume?: boolean;
  allowForward?: boolean;
}

interface LimitOptions {
  maxPartitions?: string;
  maxOffsetsBytes?: string;
  chunkSize?: string;
}

const EXIT_HELP = '\nExit status: 0 done, 1 the run failed (the message says which state the connector is in), 2 refused before anything changed.';

export function register(program: Command): void {
  addPositionOptions(withLimitFlags(withChangeFlags(addConnectionOptions(
    program
      .command('rewind')
      .argument('[connectors...]', 'connector name(s); several, --selector or --all make a batch')
      .option('--allow-forward', 'write targets beyond a partition\'s end without asking (scripts); they are always shown')
      .option('--offsets <file|->', 'target offsets: {"offsets": [...]} or a bare list, from a file or - for stdin (the output of `offsetctl offsets get --output json` fits); or a position, below')
      .description('alter a connector\'s offsets safely: pre-flight, diff, confirm, stop, snapshot, PATCH, verify, restore its state'),
  )))).addHelpText('after', EXIT_HELP)
    .action(async (names: string[], opts: ChangeOptions & LimitOptions & PositionOptions & BatchCliOptions, cmd: Command) => {
      // --offsets is required unless a position says where to go: a usage error like commander's own.
      if (opts.offsets === undefined && !(await import('../../ops/positions.js')).hasPosition(opts)) {
        cmd.error("error: required option '--offsets <file|->' not specified (or give a position: --to-time, --to-earliest, --to-latest, --shift-by, --to-offset)", { exitCode: 2, code: 'commander.missingMandatoryOptionValue' });
      }
      if (isBatch(names, opts)) {
        if (wantsPosition(opts)) throw new OpsError('E_USAGE', 'positions (--to-time, --to-earliest, ...) move one connector at a time: name one connector, or give a batch an --offsets file', { field: 'connectors' });
        if (opts.offsets === undefined) throw new OpsError('E_USAGE', 'a batch rewind needs --offsets <file|->', { field: 'offsets' });
        return (await import('./batch.js')).runBatch('rewind', names, opts as typeof opts & { offsets: string });
      }
      const connector = names[0]!;
      await runChange(opts, async (ops, ctx, conn) => {
        const resumeAfter = resumeAfterFrom(opts);
        const limits = ops.resolveLimits(limitFlags(opts), process.env);
        if (wantsPosition(opts)) {
          // Positions (issue 8): target offsets computed from Kafka instead of read from a file;
          // the per-partition table travels in the plan (plan.positions).
          const positions = await (await import('./rewind-positions.js')).positionTargetsFor(conn, connector, opts);
          return ops.planRewind(ctx, { connector, offsets: positions.offsets, resumeAfter, limits, positions });
        }
        // The sink pre-flight's broker checks use the same Kafka settings as positions: --bootstrap,
        // else OFFSETCTL_BOOTSTRAP, else the context's, with their security settings.
        const { preflightKafkaSettings } = await import('../kafka-settings.js');
        const kafka = await preflightKafkaSettings(opts, conn.context);
        // The size limit is checked before the file is read, and stdin is cut off past it.
        const offsetsArg = opts.offsets as string;
        const { readOffsetsInput } = await import('../offsets-input.js');
        const { boundedStdin, checkInputSize } = await import('../offsets-limits.js');
        await checkInputSize(offsetsArg, limits);
        const offsets = offsetsArg === '-' ? await readOffsetsInput('-', boundedStdin(limits)) : await readOffsetsInput(offsetsArg);
        return ops.planRewind(ctx, { connector, offsets, resumeAfter, limits, ...(kafka ? { kafka } : {}) });
      });
    });

  withChangeFlags(addConnectionOptions(
    program
      .command('reset')
      .argument('[connectors...]', 'connector name(s); several, --selector or --all make a batch')
      .description('delete every offset of a connector (a snapshot is kept for rollback)'),
  )).addHelpText('after', EXIT_HELP)
    .action(async (names: string[], opts: ChangeOptions & BatchCliOptions) => {
      if (isBatch(names, opts)) return (await import('./batch.js')).runBatch('reset', names, opts);
      const connector = names[0]!;
      await runChange(opts, async (ops, ctx) => ops.planReset(ctx, { connector, resumeAfter: resumeAfterFrom(opts) }));
    });

  withLimitFlags(withChangeFlags(addConnectionOptions(
    program
      .command('rollback')
      .argument('[connectors...]', 'connector name(s); several, --selector or --all make a batch')
      .option('--snapshot <id>', 'snapshot to restore (default: the connector\'s latest on this cluster)')
      .description('restore a snapshot exactly (partitions not in it are removed) and the state the connector had when it was taken'),
  ))).addHelpText('after', EXIT_HELP)
    .action(async (names: string[], opts: ChangeOptions & LimitOptions & BatchCliOptions & { snapshot?: string }) => {
      if (isBatch(names, opts)) return (await import('./batch.js')).runBatch('rollback', names, opts);
      const connector = names[0]!;
      await runChange(opts, async (ops, ctx) => {
        const after = resumeAfterFrom(opts);
        const targetState = after === 'never' ? 'STOPPED' : after === 'always' ? 'RUNNING' : undefined;
        const limits = ops.resolveLimits(limitFlags(opts), process.env);
        return ops.planRollback(ctx, { connector, limits, ...(opts.snapshot ? { snapshotId: opts.snapshot } : {}), ...(targetState ? { targetState } : {}) });
      });
    });

  const snapshots = addConnectionOptions(
    program
      .command('snapshots')
      .argument('[connector]', 'only this connector')
      .description('list stored snapshots, newest first (JSON: an array of {"id", "connector", "clusterUrl", "type", "stateBefore", "partitions", "takenAt", "runId"})'),
  ).action(async (connector: string | undefined, opts: ConnectionOptions) => (await import('./history-actions.js')).listSnapshots(connector, opts));
  addShowCommand(snapshots, 'snapshot id', 'show a snapshot with its offsets (JSON: the snapshot with "offsets")', async (id, opts) => (await import('./history-actions.js')).showSnapshot(id, opts));
  addConnectionOptions(snapshots.command('prune').argument('[connector]', 'only this connector')
    .option('--keep <n>', 'keep the N newest snapshots of each connector')
    .option('--older-than <age>', 'prune only snapshots older than this: 30d, 12h, 90m, 2w')
    .option('--dry-run', 'list what would be pruned, delete nothing')
    .description('delete old snapshots (at least one of --keep / --older-than; both: a snapshot must be beyond the N newest and older than the age); a running run\'s snapshot is always kept'))
    .action(async (connector: string | undefined, _opts: ConnectionOptions, cmd: Command) => (await import('./history-actions.js')).pruneSnapshots(connector, cmd.optsWithGlobals()));

  const runs = addConnectionOptions(
    program
      .command('runs')
      .option('--connector <name>', 'only runs on this connector')
      .option('--batch <id>', 'only the runs of this batch')
      .option('--limit <n>', 'only the N newest runs (default 1000)')
      .description('list runs, newest first (JSON: an array of {"id", "connector", "operation", "status", "clusterUrl", "startedAt", ...})'),
  ).action(async (opts: ConnectionOptions & { connector?: string; batch?: string; limit?: string }) => (await import('./history-actions.js')).listRuns(opts));
  addShowCommand(runs, 'run id', 'show a run: its steps and journal', async (id, opts) => (await import('./history-actions.js')).showRun(id, opts));
  addConnectionOptions(runs.command('resume').argument('[id]', 'run id')
    .option('--yes', 'do not ask for confirmation (scripts)')
    .option('--dry-run', 'show what the run would still change, change nothing')
    .option('--chunk-size <n>', 'partitions per PATCH (env OFFSETCTL_CHUNK_SIZE; default 10000)')
    .option('--batch <id>', 'finish every interrupted run of this batch').option('--concurrency <n>', 'with --batch: runs resumed at once (default 4)')
    .description('finish an interrupted run (or every interrupted run of a batch) from its last finished step (shows the diff and asks, like any change)'))
    .addHelpText('after', EXIT_HELP)
    .action(async (id: string | undefined, own: BatchCliOptions & { batch?: string }, cmd: Command) => {
      const opts = withParentOptions(cmd) as ChangeOptions & LimitOptions;
      // Commander may hand --batch to the parent `runs`, which defines it too: read both levels.
      const batchId = own.batch ?? (opts as { batch?: string }).batch;
      if (batchId !== undefined) return (await import('./batch.js')).resumeBatch(batchId, { ...own, ...opts });
      if (id === undefined) throw new OpsError('E_USAGE', 'runs resume needs a run id (`offsetctl runs` lists them), or --batch <id>', { field: 'id' });
      // The run knows its cluster: --url is only needed to override it.
      const { openHistory, refusal } = await import('./history-actions.js');
      const { store } = await openHistory(opts);
      let clusterUrl: string;
      try {
        clusterUrl = (await store.getRun(id)).clusterUrl;
      } catch (err) {
        throw refusal(err);
      } finally {
        await store.close();
      }
      await runChange(opts, async (ops, ctx) => ops.planResume(ctx, { runId: id, limits: ops.resolveLimits(limitFlags(opts), process.env) }), clusterUrl);
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

function withChangeFlags(cmd: Command): Command {
  return cmd
    .option('--selector <regex>', 'batch: every connector whose name matches this regular expression')
    .option('--all', 'batch: every connector of the cluster')
    .option('--concurrency <n>', 'batch: connectors changed at once (default 4)')
    .option('--skip-invalid', 'batch: leave out (and list) connectors refused in pre-flight instead of refusing the batch')
    .option('--yes', 'do not ask for confirmation (scripts)')
    .option('--dry-run', 'run the pre-flight checks and show the diff, change nothing')
    .option('--leave-stopped', 'leave the connector STOPPED afterwards')
    .option('--resume', 'resume the connector afterwards even if it was PAUSED or STOPPED before');
}

/** The pre-flight limits (src/ops/limits.ts, docs/limits.md). */
function withLimitFlags(cmd: Command): Command {
  return cmd
    .option('--max-partitions <n>', 'refuse a change that writes more partitions (env OFFSETCTL_MAX_PARTITIONS; default 100000)')
    .option('--max-offsets-bytes <bytes>', 'refuse a larger offsets file (env OFFSETCTL_MAX_OFFSETS_BYTES; default 33554432 = 32 MiB)')
    .option('--chunk-size <n>', 'partitions per PATCH; larger sets are written and verified chunk by chunk (env OFFSETCTL_CHUNK_SIZE; default 10000)');
}

function limitFlags(opts: LimitOptions): LimitOptions {
  return {
    ...(opts.maxPartitions !== undefined ? { maxPartitions: opts.maxPartitions } : {}),
    ...(opts.maxOffsetsBytes !== undefined ? { maxOffsetsBytes: opts.maxOffsetsBytes } : {}),
    ...(opts.chunkSize !== undefined ? { chunkSize: opts.chunkSize } : {}),
  };
}

/** `--leave-stopped` / `--resume` → what happens to the connector after the change. */
export function resumeAfterFrom(opts: ChangeOptions): ResumeAfter {
  if (opts.leaveStopped && opts.resume) {
    throw new OpsError('E_USAGE', '--leave-stopped and --resume contradict each other: pass at most one', { field: 'resume' });
  }
  return opts.leaveStopped ? 'never' : opts.resume ? 'always' : 'auto';
}

type OpsModule = typeof import('../../ops/index.js');

/**
 * The CLI face of a change: connect, plan, show the plan, stop at --dry-run, ask (or --yes),
 * apply with Ctrl-C as an abort, print the outcome. A failed run exits 1 (through main).
 */
async function runChange(opts: ChangeOptions, makePlan: (ops: OpsModule, ctx: OpsContext, conn: Connection) => Promise<Plan>, fallbackUrl?: string): Promise<void> {
  const { resolveConnection } = await import('../connection.js');
  let conn: Connection;
  try {
    conn = await resolveConnection(opts);
  } catch (err) {
    // `runs resume` knows the run's cluster: no URL configured anywhere is fine there.
    if ((err as { code?: string }).code !== 'E_CONFIG' || !fallbackUrl || opts.url || opts.context) throw err;
    conn = await resolveConnection({ ...opts, url: fallbackUrl });
  }
  const json = conn.output === 'json';
  // Human lines go to stdout in text mode; with --output json stdout carries only the result.
  const info = (text: string): unknown => (json ? stderr : stdout)(`${text}\n`);
  const color = !json && (await import('../render/color.js')).useColor(process.stdout);
  const ops = await import('../../ops/index.js');
  const { openStore } = await import('../../store/index.js');
  const store = openStore(conn.stateDir);
  const ctx: OpsContext = { url: conn.url, http: conn.http, store };
  try {
    const plan = await makePlan(ops, ctx, conn);
    const { planHeading, planQuestion } = await import('../render/ops-plan.js');
    info(planHeading(plan));
    if (plan.positions) info((await import('../render/positions.js')).renderPositions(plan.positions));
    // Warnings go to stderr in every mode (and into the JSON outcome), before the question.
    for (const w of plan.warnings) stderr(`warning: ${w}\n`);
    // Resuming changes offsets like any change: its diff is shown and asked about too.
    const { renderDiff } = await import('../render/diff.js');
    info(renderDiff(plan.diff, { color, showUnchanged: plan.diff.entries.length <= 50 }));
    const { describeForwardTargets, confirmForwardTargets } = await import('../render/forward-targets.js');
    for (const line of describeForwardTargets(plan.forwardTargets)) info(line);
    let outcome: OperationOutcome;
    if (plan.nothingToChange) {
      // No stop, no snapshot, no run: writing offsets the connector already has only costs a rebalance.
      outcome = ops.unchangedOutcome(plan);
    } else if (opts.dryRun) {
      outcome = ops.dryRunOutcome(plan);
    } else {
      const { confirm } = await import('../confirm.js');
      await confirm(planQuestion(plan), { yes: opts.yes === true });
      await confirmForwardTargets(plan.forwardTargets, { allowForward: opts.allowForward === true, yes: opts.yes === true });
      outcome = await applyWithSignals(ops, ctx, plan, info);
    }
    if (json) stdout(`${JSON.stringify(outcome, null, 2)}\n`);
    else {
      for (const w of outcome.warnings) if (!plan.warnings.includes(w)) stderr(`warning: ${w}\n`);
      if (outcome.status !== 'failed') stdout(`${outcome.message}\n`);
    }
    // With --output json the outcome on stdout is the whole account; in text, main prints the message.
    if (outcome.status === 'failed') throw new ReportedFailure('E_RUN_FAILED', json ? '' : outcome.message);
  } finally {
    await store.close();
    await conn.http.close();
  }
}

/** Ctrl-C (or SIGTERM) during a run cancels it; ops then puts the connector back. */
async function applyWithSignals(ops: OpsModule, ctx: OpsContext, plan: Plan, info: (text: string) => unknown): Promise<OperationOutcome> {
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const { testHooksFromEnv, killAfterSendFromEnv } = await import('../test-hooks.js');
  const beforeStep = testHooksFromEnv();
  try {
    const verifyTimeoutMs = ops.verifyTimeoutMs(process.env);
    return await ops.applyPlan({ ...ctx, http: killAfterSendFromEnv(ctx.http) }, plan, { onEvent: progressPrinter(info), signal: controller.signal, verifyTimeoutMs, ...(beforeStep ? { beforeStep } : {}) });
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

/**
 * One stderr line per finished step and per step that failed for good. A polling wait shows its
 * elapsed time and attempt count: rewritten in place on a terminal, else a line when the wait
 * starts and then every 5 s, so a long wait never looks frozen. Chunk progress is a human line
 * like the plan (stdout in text, stderr with --output json).
 */
function progressPrinter(info: (text: string) => unknown): (event: OpsEvent) => void {
  let waiting = '';
  let retrying = '';
  let since = 0;
  let attempts = 0;
  let nextLineAt = 0;
  let drawn = false;
  const tty = process.stderr.isTTY === true;
  const clear = () => {
    if (drawn) stderr('\r\x1b[2K');
    drawn = false;
  };
  return (event) => {
    if (event.type === 'ops.chunk') info(`writing chunk ${event.index}/${event.total} (${event.size} partitions)`);
    if (event.type === 'workflow.started') stderr(`workflow ${event.workflowId}\n`);
    if (event.type === 'action.taken' && event.action.type === 'retry') {
      retrying = event.stepId;
      if (waiting !== event.stepId) {
        since = performance.now();
        attempts = 0;
        nextLineAt = 0;
      }
      attempts += 1;
      waiting = event.stepId;
      const elapsed = performance.now() - since;
      const line = `  … ${event.stepId}: waiting (${event.action.name}), ${(elapsed / 1000).toFixed(1)} s, attempt ${attempts}`;
      if (tty) {
        stderr(`\r\x1b[2K${line}`);
        drawn = true;
      } else if (elapsed >= nextLineAt) {
        stderr(`${line}\n`);
        nextLineAt = elapsed + 5000;
      }
    }
    if (event.type === 'step.finished') {
      clear();
      if (event.status === 'passed') stderr(`  ✓ ${event.stepId}\n`);
      else if (retrying !== event.stepId) stderr(`  ✗ ${event.stepId}${event.error ? `: ${event.error.message}` : ''}\n`);
      if (event.status === 'passed') waiting = '';
      retrying = '';
    }
  };
}
