// The history commands (snapshots, runs): what the store holds, as tables or JSON. The store is
// read through its interface; ids that do not exist are refusals (exit 2).
import type { ConnectionOptions } from '../connection.js';
import type { RunRecord, SnapshotRecord, Store } from '../../store/index.js';
import { OpsError } from '../../ops/errors.js';
import { describeActor, parseAge, snapshotsToPrune } from '../../store/index.js';
import { stdout } from './say.js';
import { journalLines } from '../render/journal.js';
import { currentIO } from '../io.js';
import { historyStoreChoice } from '../history-store.js';
import { openCommandStore } from '../store-choice.js';
import { registerCredentials } from '../connection.js';
import { renderTable } from '../render/table.js';

export async function openHistory(opts: ConnectionOptions): Promise<{ store: Store; json: boolean }> {
  await registerCredentials(opts);
  const output = opts.output ?? 'text';
  return { store: await openCommandStore(await historyStoreChoice(opts)), json: output === 'json' };
}

export async function listSnapshots(connector: string | undefined, opts: ConnectionOptions): Promise<void> {
  const { store, json } = await openHistory(opts);
  try {
    const snapshots = await store.listSnapshots(connector ? { connector } : {});
    // Who took each: the actor of the run that took it (a snapshot has none of its own), as `runs` shows it.
    const runIds = [...new Set(snapshots.map((s) => s.runId).filter((id): id is string => id !== undefined))];
    const actors = new Map((await Promise.all(runIds.map(async (id) => [id, (await store.getRun(id).catch(() => undefined))?.actor] as const))));
    const list = snapshots.map((s) => {
      const actor = s.runId ? actors.get(s.runId) : undefined;
      return { ...snapshotSummary(s), ...(actor ? { by: actor } : {}) };
    });
    if (json) return void stdout(`${JSON.stringify(list, null, 2)}\n`);
    stdout(`${list.length === 0 ? `no snapshots in ${store.location}` : renderTable(
      ['ID', 'CONNECTOR', 'TYPE', 'STATE BEFORE', 'PARTITIONS', 'TAKEN AT', 'BY', 'RUN', 'CLUSTER'],
      list.map((s) => [
        s.id, s.connector, s.type, s.stateBefore, String(s.partitions), s.takenAt, s.by ? `${s.by.user}@${s.by.host}` : '-', s.runId ?? '', s.clusterUrl,
      ]),
      ['left', 'left', 'left', 'left', 'right'],
    )}\n`);
  } finally {
    await store.close();
  }
}

export async function showSnapshot(id: string, opts: ConnectionOptions): Promise<void> {
  const { store, json } = await openHistory(opts);
  try {
    let snapshot: SnapshotRecord;
    try {
      snapshot = await store.getSnapshot(id);
    } catch (err) {
      throw refusal(err);
    }
    if (json) return void stdout(`${JSON.stringify({ ...snapshotSummary(snapshot), offsets: snapshot.offsets }, null, 2)}\n`);
    const lines = [
      `snapshot ${snapshot.id}`,
      `  connector    ${snapshot.connector} (${snapshot.connectorType}) on ${snapshot.clusterUrl}`,
      `  taken at     ${snapshot.takenAt}${snapshot.runId ? ` by run ${snapshot.runId}` : ''}`,
      `  state before ${snapshot.stateBefore}`,
      `  partitions   ${snapshot.partitions}`,
      ...snapshot.offsets.map((e) => `    ${JSON.stringify((e as { partition?: unknown }).partition)} → ${JSON.stringify((e as { offset?: unknown }).offset)}`),
      `restore it with: offsetctl rollback ${snapshot.connector} --snapshot ${snapshot.id}`,
    ];
    stdout(`${lines.join('\n')}\n`);
  } finally {
    await store.close();
  }
}

export async function listRuns(opts: ConnectionOptions & { connector?: string; batch?: string; limit?: string }): Promise<void> {
  const limit = opts.limit === undefined ? undefined : wholeNumber(opts.limit, '--limit');
  const { store, json } = await openHistory(opts);
  try {
    const list: Array<ReturnType<typeof runSummary> | NotStarted> = (await store.listRuns({ ...(opts.connector ? { connector: opts.connector } : {}), ...(opts.batch ? { batchId: opts.batch } : {}), ...(limit !== undefined ? { limit } : {}) })).map(runSummary);
    // A batch's members that never started have no run: they are listed from the batch's record.
    const recorded = opts.batch ? await store.getBatch(opts.batch) : undefined;
    if (recorded) {
      const started = new Set(list.map((r) => r.connector));
      for (const m of recorded.members) {
        if (started.has(m.connector) || (opts.connector && m.connector !== opts.connector)) continue;
        list.push({ id: null, connector: m.connector, operation: recorded.operation, status: 'not started', batchId: recorded.id, startedAt: null });
      }
    }
    if (opts.batch && list.length === 0) throw new OpsError('E_USAGE', `no runs of batch ${opts.batch} in ${store.location}`, { field: 'batch' });
    if (json) return void stdout(`${JSON.stringify(list, null, 2)}\n`);
    stdout(`${list.length === 0 ? `no runs in ${store.location}` : renderTable(
      ['ID', 'CONNECTOR', 'OPERATION', 'STATUS', 'STARTED', 'BY', 'LAST STEP', 'CONNECTOR STATE'],
      list.map((r) => [r.id ?? '-', r.connector, r.operation, r.status, r.startedAt ?? '-', r.actor ? `${r.actor.user}@${r.actor.host}` : '-', r.lastStep ?? '', r.connectorState ?? '']),
    )}\n`);
  } finally {
    await store.close();
  }
}

/** A member of a batch that never started (runs --batch lists it from the batch's record). */
interface NotStarted {
  id: null;
  connector: string;
  operation: string;
  status: 'not started';
  batchId: string;
  startedAt: null;
  lastStep?: undefined;
  connectorState?: undefined;
  actor?: undefined;
}

export interface PruneOptions extends ConnectionOptions {
  keep?: string;
  olderThan?: string;
  dryRun?: boolean;
}

/** `snapshots prune`: the store decides nothing; src/store/prune.ts selects, deleteSnapshots deletes. */
export async function pruneSnapshots(connector: string | undefined, opts: PruneOptions): Promise<void> {
  if (opts.keep === undefined && opts.olderThan === undefined) {
    throw new OpsError('E_USAGE', 'snapshots prune needs --keep <n> or --older-than <age> (or both); nothing was deleted', { field: 'keep' });
  }
  const keep = opts.keep === undefined ? undefined : wholeNumber(opts.keep, '--keep', 0);
  const age = opts.olderThan === undefined ? undefined : parseAge(opts.olderThan);
  if (opts.olderThan !== undefined && age === undefined) {
    throw new OpsError('E_USAGE', `--older-than ${JSON.stringify(opts.olderThan)}: give an age like 30d, 12h, 90m or 2w; nothing was deleted`, { field: 'olderThan' });
  }
  const { store, json } = await openHistory(opts);
  try {
    const doomed = await snapshotsToPrune(store, { ...(keep !== undefined ? { keep } : {}), ...(age !== undefined ? { olderThan: new Date(currentIO().now() - age) } : {}), ...(connector ? { connector } : {}) });
    if (!opts.dryRun) await store.deleteSnapshots(doomed.map((s) => s.id));
    const list = doomed.map(snapshotSummary);
    if (json) return void stdout(`${JSON.stringify({ dryRun: opts.dryRun === true, pruned: list }, null, 2)}\n`);
    const verb = opts.dryRun ? 'would prune' : 'pruned';
    stdout(`${verb} ${list.length} snapshot(s)${list.length > 0 ? `:\n${list.map((s) => `  ${s.id}  ${s.connector}  ${s.takenAt}  ${s.partitions} partition(s)`).join('\n')}` : ''}\n`);
  } finally {
    await store.close();
  }
}

/** A whole number ≥ min from an option, else a usage error (exit 2). */
function wholeNumber(text: string, flag: string, min = 1): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min) throw new OpsError('E_USAGE', `${flag} must be a whole number ≥ ${min}, not ${JSON.stringify(text)}`, { field: flag.replace(/^--/, '') });
  return n;
}

export async function showRun(id: string, opts: ConnectionOptions): Promise<void> {
  const { store, json } = await openHistory(opts);
  try {
    let run: RunRecord;
    try {
      run = await store.getRun(id);
    } catch (err) {
      throw refusal(err);
    }
    const steps = (await store.stepsOf(id)).map((s) => ({ seq: s.seq, workflowId: s.workflowId, stepId: s.stepId, status: s.status, finishedAt: s.finishedAt, ...(s.error ? { error: s.error } : {}) }));
    const events = await store.eventsOf(id);
    if (json) return void stdout(`${JSON.stringify({ ...runSummary(run), inputs: run.inputs, context: run.context, steps, events }, null, 2)}\n`);
    const lines = [
      `run ${run.id}: ${run.operation} of ${run.connector} on ${run.clusterUrl}`,
      `  status      ${run.displayStatus}${run.displayStatus === 'interrupted' ? ` (pid ${run.pid} is gone; ${interruptedChoices(run)})` : ''}`,
      `  started     ${run.startedAt}${run.finishedAt ? `, finished ${run.finishedAt}` : ''} (pid ${run.pid})`,
      `  started by  ${describeActor(run.actor)}`,
      ...(run.resumedBy
        ? [`  ${takenOverAs(run)} ${describeActor(run.resumedBy)}${run.takenOverFrom ? `, taking it over from ${describeActor(run.takenOverFrom)}` : ''}`]
        : []),
      `  workflow    ${run.workflowId} (${run.workflowFile})`,
      `  last step   ${run.lastStep ?? '(none finished)'}`,
      ...(run.context.snapshotId ? [`  snapshot    ${run.context.snapshotId}`] : []),
      ...(run.context.batchId ? [`  batch       ${run.context.batchId} (\`offsetctl runs --batch ${run.context.batchId}\`)`] : []),
      ...(run.connectorState ? [`  connector   ${run.connectorState}`] : []),
      ...(run.message ? [`  message     ${run.message}`] : []),
      '  journal:',
      ...journalLines(events),
    ];
    stdout(`${lines.join('\n')}\n`);
  } finally {
    await store.close();
  }
}

/**
 * What frees an interrupted run, as the refusals say it: one that stored its snapshot can be
 * rolled back; one interrupted before its snapshot changed nothing, and rollback refuses it ("nothing of it
 * to roll back"), so its choices are resume or abandon (issue 30).
 */
function interruptedChoices(run: RunRecord): string {
  const resume = `finish with \`offsetctl runs resume ${run.id}\``;
  const ownSnapshot = run.context.snapshotId || (run.operation === 'rollback' && run.context.restoringSnapshotId);
  if (ownSnapshot) return `${resume} or undo with \`offsetctl rollback ${run.connector}\``;
  return `${resume}, or give it up without changing anything with \`offsetctl runs abandon ${run.id} --reason <why>\`` +
    ' (it stored no snapshot and changed no offsets, so there is nothing to roll back)';
}

/** A run taken over to be given up (`runs abandon`) was not resumed: its line says so. */
function takenOverAs(run: RunRecord): string {
  return run.status === 'abandoned' && run.context.abandoned ? 'abandoned by' : 'resumed by ';
}

function runSummary(r: RunRecord): Record<string, unknown> & { id: string; connector: string; operation: string; status: string; startedAt: string; lastStep?: string; connectorState?: string; actor: RunRecord['actor'] } {
  return {
    id: r.id, connector: r.connector, operation: r.operation, status: r.displayStatus, clusterUrl: r.clusterUrl, clusterKey: r.clusterKey,
    startedAt: r.startedAt, ...(r.finishedAt ? { finishedAt: r.finishedAt } : {}),
    ...(r.lastStep ? { lastStep: r.lastStep } : {}), ...(r.connectorState ? { connectorState: r.connectorState } : {}),
    ...(r.context.snapshotId ? { snapshotId: r.context.snapshotId } : {}), ...(r.context.batchId ? { batchId: r.context.batchId } : {}), pid: r.pid, hostname: r.hostname, actor: r.actor,
    ...(r.resumedBy ? { resumedBy: r.resumedBy } : {}), ...(r.takenOverFrom ? { takenOverFrom: r.takenOverFrom } : {}), ...(r.message ? { message: r.message } : {}),
  };
}

function snapshotSummary(s: SnapshotRecord): { id: string; connector: string; clusterUrl: string; clusterKey: string; type: string; stateBefore: string; partitions: number; takenAt: string; runId?: string } {
  return { id: s.id, connector: s.connector, clusterUrl: s.clusterUrl, clusterKey: s.clusterKey, type: s.connectorType, stateBefore: s.stateBefore, partitions: s.partitions, takenAt: s.takenAt, ...(s.runId ? { runId: s.runId } : {}) };
}

/** An unknown id is a refusal (exit 2), not a failed run. */
export function refusal(err: unknown): unknown {
  const e = err as { code?: string; message?: string };
  return e.code === 'E_NOT_FOUND' ? Object.assign(new Error(e.message), { code: 'E_USAGE' }) : err;
}
