// The changing commands (rewind, reset, rollback) and the history commands (snapshots, runs).
// Registration is eager and cheap; the ops layer, the store and the engine load only inside the
// action handlers. Exit statuses: 0 done, 1 the run failed (the message names the connector's
// state), 2 refused before any change (pre-flight, lock, no confirmation).
import type { Command } from 'commander';
import type { RunEvent } from '../../arazzo/index.js';
import type { OperationOutcome } from '../../ops/run-operation.js';
import type { OpsConnection, OpsIO } from '../../ops/begin-change.js';
import type { RunRecord, SnapshotRecord } from '../../store/index.js';
import { addConnectionOptions, type Connection, type ConnectionOptions } from '../connection.js';

interface ChangeOptions extends ConnectionOptions {
  yes?: boolean;
  dryRun?: boolean;
  leaveStopped?: boolean;
  resume?: boolean;
}

const EXIT_HELP = '\nExit status: 0 done, 1 the run failed (the message says which state the connector is in), 2 refused before anything changed.';

export function register(program: Command): void {
  withLimitFlags(withChangeFlags(addConnectionOptions(
    program
      .command('rewind')
      .argument('<connector>', 'connector name')
      .option('--bootstrap <host:port,...>', 'Kafka bootstrap servers, to check sink partitions and log ends in pre-flight (env OFFSETCTL_BOOTSTRAP; PLAINTEXT)')
      .option('--allow-forward', 'write targets beyond a partition\'s end without asking (scripts); they are always shown')
      .requiredOption('--offsets <file|->', 'target offsets: {"offsets": [...]} or a bare list, from a file or - for stdin (the output of `offsetctl offsets get --output json` fits)')
      .description('alter a connector\'s offsets safely: pre-flight, diff, confirm, stop, snapshot, PATCH, verify, restore its state'),
  ))).addHelpText('after', EXIT_HELP)
    .action(async (connector: string, opts: ChangeOptions & LimitOptions & { offsets: string; bootstrap?: string; allowForward?: boolean }) => {
      await runChange(opts, async (conn, io) => (await import('../../ops/rewind.js')).rewindConnector(conn, {
        ...changeFlags(opts), ...limitFlags(opts), connector, offsets: opts.offsets, allowForward: opts.allowForward === true, ...(opts.bootstrap ? { bootstrap: opts.bootstrap } : {}),
      }, io));
    });

  withChangeFlags(addConnectionOptions(
    program
      .command('reset')
      .argument('<connector>', 'connector name')
      .description('delete every offset of a connector (a snapshot is kept for rollback)'),
  )).addHelpText('after', EXIT_HELP)
    .action(async (connector: string, opts: ChangeOptions) => {
      await runChange(opts, async (conn, io) => (await import('../../ops/reset.js')).resetConnector(conn, { ...changeFlags(opts), connector }, io));
    });

  withLimitFlags(withChangeFlags(addConnectionOptions(
    program
      .command('rollback')
      .argument('<connector>', 'connector name')
      .option('--snapshot <id>', 'snapshot to restore (default: the connector\'s latest on this cluster)')
      .description('restore a snapshot exactly (partitions not in it are removed) and the state the connector had when it was taken'),
  ))).addHelpText('after', EXIT_HELP)
    .action(async (connector: string, opts: ChangeOptions & LimitOptions & { snapshot?: string }) => {
      await runChange(opts, async (conn, io) => (await import('../../ops/rollback.js')).rollbackConnector(conn, { ...changeFlags(opts), ...limitFlags(opts), connector, ...(opts.snapshot ? { snapshotId: opts.snapshot } : {}) }, io));
    });

  const snapshots = addConnectionOptions(
    program
      .command('snapshots')
      .argument('[connector]', 'only this connector')
      .description('list stored snapshots, newest first (JSON: an array of {"id", "connector", "clusterUrl", "type", "stateBefore", "partitions", "takenAt", "runId"})'),
  ).action(async (connector: string | undefined, opts: ConnectionOptions) => listSnapshots(connector, opts));
  addConnectionOptions(snapshots.command('show').argument('<id>', 'snapshot id').description('show a snapshot with its offsets (JSON: the snapshot with "offsets")'))
    .action(async (id: string, _opts: ConnectionOptions, cmd: Command) => showSnapshot(id, withParentOptions(cmd)));

  addConnectionOptions(snapshots.command('prune').argument('[connector]', 'only this connector')
    .option('--keep <n>', 'keep the N newest snapshots of each connector')
    .option('--older-than <age>', 'prune only snapshots older than this: 30d, 12h, 90m, 2w')
    .option('--dry-run', 'list what would be pruned, delete nothing')
    .description('delete old snapshots (at least one of --keep / --older-than; both: a snapshot must be beyond the N newest and older than the age); a running run\'s snapshot is always kept'))
    .action(async (connector: string | undefined, _opts: ConnectionOptions, cmd: Command) => pruneSnapshots(connector, cmd.optsWithGlobals() as PruneOptions));

  const runs = addConnectionOptions(
    program
      .command('runs')
      .option('--connector <name>', 'only runs on this connector')
      .option('--limit <n>', 'only the N newest runs (default 1000)')
      .description('list runs, newest first (JSON: an array of {"id", "connector", "operation", "status", "clusterUrl", "startedAt", ...})'),
  ).action(async (opts: ConnectionOptions & { connector?: string; limit?: string }) => listRuns(opts));
  addConnectionOptions(runs.command('show').argument('<id>', 'run id').description('show a run: its steps and journal'))
    .action(async (id: string, _opts: ConnectionOptions, cmd: Command) => showRun(id, withParentOptions(cmd)));
  addConnectionOptions(runs.command('resume').argument('<id>', 'run id').option('--yes', 'do not ask for confirmation (scripts)').option('--dry-run', 'show what the run would still change, change nothing').description('finish an interrupted run from its last finished step (shows the diff and asks, like any change)'))
    .addHelpText('after', EXIT_HELP)
    .action(async (id: string, _opts: ConnectionOptions, cmd: Command) => {
      const opts = withParentOptions(cmd) as ChangeOptions;
      // The run knows its cluster: --url is only needed to override it.
      const { resolveStateDir } = await import('../connection.js');
      const { openStore } = await import('../../store/index.js');
      const store = openStore(resolveStateDir(opts.stateDir));
      let clusterUrl: string;
      try {
        clusterUrl = store.getRun(id).clusterUrl;
      } catch (err) {
        throw refusal(err);
      } finally {
        store.close();
      }
      await runChange(opts, async (conn, io) => (await import('../../ops/resume-run.js')).resumeRun(conn, id, io, changeFlags(opts)), clusterUrl);
    });
}

/**
 * `snapshots show <id> --state-dir d`: the parent command defines the same options and, as
 * commander parses them wherever they appear, takes them; merge both levels.
 */
function withParentOptions(cmd: Command): ConnectionOptions {
  return cmd.optsWithGlobals() as ConnectionOptions;
}

function withChangeFlags(cmd: Command): Command {
  return cmd
    .option('--yes', 'do not ask for confirmation (scripts)')
    .option('--dry-run', 'run the pre-flight checks and show the diff, change nothing')
    .option('--leave-stopped', 'leave the connector STOPPED afterwards')
    .option('--resume', 'resume the connector afterwards even if it was PAUSED or STOPPED before');
}

interface LimitOptions {
  maxPartitions?: string;
  maxOffsetsBytes?: string;
  chunkSize?: string;
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

function changeFlags(opts: ChangeOptions): { yes: boolean; dryRun: boolean; leaveStopped: boolean; resume: boolean } {
  return { yes: opts.yes === true, dryRun: opts.dryRun === true, leaveStopped: opts.leaveStopped === true, resume: opts.resume === true };
}

/** Resolves the connection, runs the change, prints the outcome; a failed run exits 1. */
async function runChange(opts: ConnectionOptions, change: (conn: OpsConnection, io: OpsIO) => Promise<OperationOutcome>, fallbackUrl?: string): Promise<void> {
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
  const io: OpsIO = {
    // Human lines go to stdout in text mode; with --output json stdout carries only the result.
    info: (text) => (json ? process.stderr : process.stdout).write(`${text}\n`),
    color: !json && process.stdout.isTTY === true,
    onProgress: progressPrinter(),
  };
  try {
    const outcome = await change(conn, io);
    if (json) process.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
    else {
      for (const w of outcome.warnings) process.stderr.write(`warning: ${w}\n`);
      if (outcome.status !== 'failed') process.stdout.write(`${outcome.message}\n`);
    }
    if (outcome.status === 'failed') {
      if (json) process.exitCode = 1;
      else throw Object.assign(new Error(outcome.message), { code: 'E_RUN_FAILED' });
    }
  } finally {
    await conn.http.close();
  }
}

/** One stderr line per finished step, per start of a polling wait, and per step that failed for good. */
function progressPrinter(): (event: RunEvent) => void {
  let waiting = '';
  let retrying = '';
  return (event) => {
    if (event.type === 'workflow.started') process.stderr.write(`workflow ${event.workflowId}\n`);
    if (event.type === 'action.taken' && event.action.type === 'retry') {
      retrying = event.stepId;
      if (waiting !== event.stepId) process.stderr.write(`  … ${event.stepId}: waiting (${event.action.name})\n`);
      waiting = event.stepId;
    }
    if (event.type === 'step.finished') {
      if (event.status === 'passed') process.stderr.write(`  ✓ ${event.stepId}\n`);
      else if (retrying !== event.stepId) process.stderr.write(`  ✗ ${event.stepId}${event.error ? `: ${event.error.message}` : ''}\n`);
      if (event.status === 'passed') waiting = '';
      retrying = '';
    }
  };
}

async function openHistory(opts: ConnectionOptions): Promise<{ store: import('../../store/index.js').Store; json: boolean }> {
  const { resolveStateDir } = await import('../connection.js');
  const { openStore } = await import('../../store/index.js');
  const output = opts.output ?? 'text';
  return { store: openStore(resolveStateDir(opts.stateDir)), json: output === 'json' };
}

async function listSnapshots(connector: string | undefined, opts: ConnectionOptions): Promise<void> {
  const { store, json } = await openHistory(opts);
  try {
    const list = store.listSnapshots(connector ? { connector } : {}).map(snapshotSummary);
    if (json) return void process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    const { renderTable } = await import('../render/table.js');
    process.stdout.write(`${list.length === 0 ? `no snapshots in ${store.file}` : renderTable(
      ['ID', 'CONNECTOR', 'TYPE', 'STATE BEFORE', 'PARTITIONS', 'TAKEN AT', 'RUN', 'CLUSTER'],
      list.map((s) => [s.id, s.connector, s.type, s.stateBefore, String(s.partitions), s.takenAt, s.runId ?? '', s.clusterUrl]),
      ['left', 'left', 'left', 'left', 'right'],
    )}\n`);
  } finally {
    store.close();
  }
}

async function showSnapshot(id: string, opts: ConnectionOptions): Promise<void> {
  const { store, json } = await openHistory(opts);
  try {
    let snapshot: SnapshotRecord;
    try {
      snapshot = store.getSnapshot(id);
    } catch (err) {
      throw refusal(err);
    }
    if (json) return void process.stdout.write(`${JSON.stringify({ ...snapshotSummary(snapshot), offsets: snapshot.offsets }, null, 2)}\n`);
    const lines = [
      `snapshot ${snapshot.id}`,
      `  connector    ${snapshot.connector} (${snapshot.connectorType}) on ${snapshot.clusterUrl}`,
      `  taken at     ${snapshot.takenAt}${snapshot.runId ? ` by run ${snapshot.runId}` : ''}`,
      `  state before ${snapshot.stateBefore}`,
      `  partitions   ${snapshot.partitions}`,
      ...snapshot.offsets.map((e) => `    ${JSON.stringify((e as { partition?: unknown }).partition)} → ${JSON.stringify((e as { offset?: unknown }).offset)}`),
      `restore it with: offsetctl rollback ${snapshot.connector} --snapshot ${snapshot.id}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    store.close();
  }
}

async function listRuns(opts: ConnectionOptions & { connector?: string; limit?: string }): Promise<void> {
  const limit = opts.limit === undefined ? undefined : positiveInteger(opts.limit, '--limit');
  const { store, json } = await openHistory(opts);
  try {
    const list = store.listRuns({ ...(opts.connector ? { connector: opts.connector } : {}), ...(limit ? { limit } : {}) }).map(runSummary);
    if (json) return void process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    const { renderTable } = await import('../render/table.js');
    process.stdout.write(`${list.length === 0 ? `no runs in ${store.file}` : renderTable(
      ['ID', 'CONNECTOR', 'OPERATION', 'STATUS', 'STARTED', 'LAST STEP', 'CONNECTOR STATE'],
      list.map((r) => [r.id, r.connector, r.operation, r.status, r.startedAt, r.lastStep ?? '', r.connectorState ?? '']),
    )}\n`);
  } finally {
    store.close();
  }
}

interface PruneOptions extends ConnectionOptions {
  keep?: string;
  olderThan?: string;
  dryRun?: boolean;
}

async function pruneSnapshots(connector: string | undefined, opts: PruneOptions): Promise<void> {
  const { parseAge, snapshotsToPrune } = await import('../../store/index.js');
  if (opts.keep === undefined && opts.olderThan === undefined) {
    throw Object.assign(new Error('snapshots prune needs --keep <n> or --older-than <age> (or both); nothing was deleted'), { code: 'E_USAGE' });
  }
  const keep = opts.keep === undefined ? undefined : positiveInteger(opts.keep, '--keep', 0);
  const age = opts.olderThan === undefined ? undefined : parseAge(opts.olderThan);
  if (opts.olderThan !== undefined && age === undefined) {
    throw Object.assign(new Error(`--older-than ${JSON.stringify(opts.olderThan)}: give an age like 30d, 12h, 90m or 2w; nothing was deleted`), { code: 'E_USAGE' });
  }
  const { store, json } = await openHistory(opts);
  try {
    const doomed = snapshotsToPrune(store, { ...(keep !== undefined ? { keep } : {}), ...(age !== undefined ? { olderThan: new Date(Date.now() - age) } : {}), ...(connector ? { connector } : {}) });
    if (!opts.dryRun) store.deleteSnapshots(doomed.map((s) => s.id));
    const list = doomed.map(snapshotSummary);
    if (json) return void process.stdout.write(`${JSON.stringify({ dryRun: opts.dryRun === true, pruned: list }, null, 2)}\n`);
    const verb = opts.dryRun ? 'would prune' : 'pruned';
    process.stdout.write(`${verb} ${list.length} snapshot(s)${list.length > 0 ? `:\n${list.map((s) => `  ${s.id}  ${s.connector}  ${s.takenAt}  ${s.partitions} partition(s)`).join('\n')}` : ''}\n`);
  } finally {
    store.close();
  }
}

/** A whole number ≥ min from an option, else a usage error (exit 2). */
function positiveInteger(text: string, flag: string, min = 1): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min) throw Object.assign(new Error(`${flag} must be a whole number ≥ ${min}, not ${JSON.stringify(text)}`), { code: 'E_USAGE' });
  return n;
}

async function showRun(id: string, opts: ConnectionOptions): Promise<void> {
  const { store, json } = await openHistory(opts);
  try {
    let run: RunRecord;
    try {
      run = store.getRun(id);
    } catch (err) {
      throw refusal(err);
    }
    const steps = store.stepsOf(id).map((s) => ({ seq: s.seq, workflowId: s.workflowId, stepId: s.stepId, status: s.status, finishedAt: s.finishedAt, ...(s.error ? { error: s.error } : {}) }));
    const events = store.eventsOf(id);
    if (json) return void process.stdout.write(`${JSON.stringify({ ...runSummary(run), inputs: run.inputs, context: run.context, steps, events }, null, 2)}\n`);
    const lines = [
      `run ${run.id}: ${run.operation} of ${run.connector} on ${run.clusterUrl}`,
      `  status      ${run.displayStatus}${run.displayStatus === 'interrupted' ? ` (pid ${run.pid} is gone; finish with \`offsetctl runs resume ${run.id}\` or undo with \`offsetctl rollback ${run.connector}\`)` : ''}`,
      `  started     ${run.startedAt}${run.finishedAt ? `, finished ${run.finishedAt}` : ''} (pid ${run.pid})`,
      `  workflow    ${run.workflowId} (${run.workflowFile})`,
      `  last step   ${run.lastStep ?? '(none finished)'}`,
      ...(run.context.snapshotId ? [`  snapshot    ${run.context.snapshotId}`] : []),
      ...(run.connectorState ? [`  connector   ${run.connectorState}`] : []),
      ...(run.message ? [`  message     ${run.message}`] : []),
      '  journal:',
      ...events.map((e) => `    ${e.at} ${e.type}${e.stepId ? ` ${e.stepId}` : ''} ${eventText(e.detail)}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    store.close();
  }
}

function eventText(detail: Record<string, unknown>): string {
  const d = detail as { method?: string; url?: string; status?: unknown; passed?: boolean; condition?: string; action?: { type?: string; name?: string }; error?: { message?: string }; attempt?: number };
  if (d.method) return `${d.method} ${d.url}`;
  if (d.condition !== undefined) return `${d.passed ? 'passed' : 'failed'}: ${d.condition}`;
  if (d.action) return `${d.action.type} (${d.action.name})`;
  if (d.error) return `${String(d.status ?? '')} ${d.error.message ?? ''}`.trim();
  if (d.attempt !== undefined) return `attempt ${d.attempt}`;
  return d.status === undefined ? '' : String(d.status);
}

function runSummary(r: RunRecord): Record<string, unknown> & { id: string; connector: string; operation: string; status: string; startedAt: string; lastStep?: string; connectorState?: string } {
  return {
    id: r.id, connector: r.connector, operation: r.operation, status: r.displayStatus, clusterUrl: r.clusterUrl, clusterKey: r.clusterKey,
    startedAt: r.startedAt, ...(r.finishedAt ? { finishedAt: r.finishedAt } : {}),
    ...(r.lastStep ? { lastStep: r.lastStep } : {}), ...(r.connectorState ? { connectorState: r.connectorState } : {}),
    ...(r.context.snapshotId ? { snapshotId: r.context.snapshotId } : {}), pid: r.pid, ...(r.message ? { message: r.message } : {}),
  };
}

function snapshotSummary(s: SnapshotRecord): { id: string; connector: string; clusterUrl: string; clusterKey: string; type: string; stateBefore: string; partitions: number; takenAt: string; runId?: string } {
  return { id: s.id, connector: s.connector, clusterUrl: s.clusterUrl, clusterKey: s.clusterKey, type: s.connectorType, stateBefore: s.stateBefore, partitions: s.partitions, takenAt: s.takenAt, ...(s.runId ? { runId: s.runId } : {}) };
}

/** An unknown id is a refusal (exit 2), not a failed run. */
function refusal(err: unknown): unknown {
  const e = err as { code?: string; message?: string };
  return e.code === 'E_NOT_FOUND' ? Object.assign(new Error(e.message), { code: 'E_USAGE' }) : err;
}
