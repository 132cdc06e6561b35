// Finishing or undoing a move or copy after its process died (`runs resume`, `rollback`), or
// undoing one that finished. A move's run is recorded on the original cluster; its companion run
// (the lock on the target) points to it, so either id, and either cluster's `rollback`, finds it.
import type { ResumePoint } from '../../arazzo/index.js';
import type { KafkaSettings } from '../../kafka/connection.js';
import { RoutingSender } from '../../http/route.js';
import type { RunRecord, Store } from '../../store/index.js';
import type { OpsContext } from '../context.js';
import { OpsError } from '../errors.js';
import { offsetEntries, type OffsetEntry } from '../offsets/index.js';
import { resumePointFor } from '../plan/index.js';
import { checkProfile, SLOT_RELEASE_WAIT_MS, type ProfileOptions } from '../profiles/index.js';
import { executeMove, targetMayHaveRun, type ApplyMoveOptions, type MoveContext, type MoveOutcome } from './apply-move.js';
import type { ClusterRef } from './clusters.js';
import { connectorExists, connectorState, readConfig } from './connect-reads.js';
import { SECRET_PLACEHOLDER, secretValues } from './config-secrets.js';
import { moveUndone } from './outcome-text.js';
import { undoMove, type UndoOutcome } from './undo-move.js';
import { releaseDbOf, withReleaseDb, type MoveRelease } from './plan-move.js';
import { ReleaseGate } from './release-gate.js';
import { loadMoveWorkflow } from './workflow.js';

export interface MoveRun {
  main: RunRecord;
  move: MoveContext;
  companion?: RunRecord;
}

export function isMoveRun(run: RunRecord): boolean {
  return typeof run.context.move === 'object' || typeof run.context.companionOf === 'string' || typeof run.context.undoes === 'string';
}

/** The move behind a run id: the run itself, or the move its companion (the target's lock) belongs to. */
export async function moveRunOf(store: Store, runId: string): Promise<MoveRun> {
  let run = await store.getRun(runId).catch((err: unknown) => {
    throw (err as { code?: string }).code === 'E_NOT_FOUND' ? new OpsError('E_PREFLIGHT', (err as Error).message, { field: 'run' }) : err;
  });
  if (typeof run.context.companionOf === 'string') run = await store.getRun(run.context.companionOf);
  const move = run.context.move as MoveContext | undefined;
  if (!move) throw new OpsError('E_PREFLIGHT', `run ${runId} is not a move or copy`, { field: 'run' });
  const companion = move.companionRunId ? await store.getRun(move.companionRunId).catch(() => undefined) : undefined;
  return { main: run, move, ...(companion ? { companion } : {}) };
}

/**
 * The move a plain `rollback <connector>` on this cluster undoes: the one whose process died
 * holding the connector's lock (here or as the target side), else the connector's latest run here
 * when that is a move or copy. Undefined when the connector's last run here was something else.
 */
export async function moveToUndo(store: Store, clusterKeys: readonly string[], connector: string): Promise<MoveRun | undefined> {
  for (const key of clusterKeys) {
    const lock = await store.lockOf(key, connector);
    if (!lock || lock.alive) continue;
    const run = await store.getRun(lock.runId).catch(() => undefined);
    if (run && run.status === 'running' && isMoveRun(run) && typeof run.context.undoes !== 'string') return moveRunOf(store, run.id);
    if (run && typeof run.context.undoes === 'string') return moveRunOf(store, run.context.undoes);
    return undefined;
  }
  const latest = (await store.listRuns({ connector, limit: 20 })).find((r) => clusterKeys.includes(r.clusterKey));
  if (!latest || !isMoveRun(latest)) return undefined;
  if (typeof latest.context.undoes === 'string') return undefined; // already undone
  const found = await moveRunOf(store, latest.id);
  // A finished move whose undo ran already is not undone twice.
  return typeof found.main.context.undoneBy === 'string' ? undefined : found;
}

/** Which move run, of which connector, from where to where: what resume and rollback plans both name. */
export interface MoveRunRef {
  runId: string;
  operation: 'move' | 'copy';
  connector: string;
  targetName: string;
  fromUrl: string;
  toUrl: string;
}

export interface MoveResumePlan extends MoveRunRef {
  /** The step it continues at. */
  resumeAt: string;
  lastStep?: string;
  warnings: string[];
  /** A Debezium source (given its source database): the new connector starts only once the slot is let go, as in the move itself. */
  release?: MoveRelease;
}

/** What finishing a move asks of the connector's profile: a Debezium source's --source-db (never required: the run must stay finishable). */
export interface MoveResumeOptions {
  profile?: ProfileOptions;
  releaseWaitMs?: number;
}

interface ResumeParts {
  plan: MoveResumePlan;
  run: MoveRun;
  inputs: Record<string, unknown>;
  secrets: string[];
  resume: ResumePoint | undefined;
}

/** Checks an interrupted move can be finished and where it continues; changes nothing. */
export async function planMoveResume(from: OpsContext, to: ClusterRef, runId: string, options: MoveResumeOptions = {}): Promise<MoveResumePlan> {
  return (await resumeParts(from, to, runId, options)).plan;
}

async function resumeParts(from: OpsContext, to: ClusterRef, runId: string, options: MoveResumeOptions = {}): Promise<ResumeParts> {
  const run = await moveRunOf(from.store, runId);
  const { main, move } = run;
  if (main.status !== 'running') throw new OpsError('E_PREFLIGHT', `run ${main.id} is ${main.status}: there is nothing to resume (see \`offsetctl runs show ${main.id}\`)`);
  if (main.context.recoveryStarted) throw new OpsError('E_PREFLIGHT', `run ${main.id} died while undoing itself after a failure; finish the undo with \`offsetctl rollback ${main.connector} --url ${move.fromUrl}\``);
  const http = new RoutingSender([{ base: from.url, sender: from.http }, { base: to.url, sender: to.http }]);
  if (to.url.replace(/\/+$/, '') !== move.toUrl) throw new OpsError('E_PREFLIGHT', `run ${main.id} moves ${main.connector} to ${move.toUrl}; resume it with that cluster as the target (--to)`, { field: 'to' });
  // The configuration with its secrets: the store has it masked. The original has it until it is
  // deleted, and by then the new connector has it.
  const stored = main.inputs.config as Record<string, string>;
  const masked = Object.values(stored).includes(SECRET_PLACEHOLDER);
  let config = stored;
  if (masked) {
    const real = (await readConfig(http, move.fromUrl, main.connector)) ?? (await readConfig(http, move.toUrl, move.targetName));
    if (!real) throw new OpsError('E_PREFLIGHT', `run ${main.id}: ${main.connector} is on neither cluster, so its configuration (whose secrets offsetctl does not store) cannot be read back; nothing was changed`);
    config = { ...real, name: move.targetName };
  }
  const workflow = await loadMoveWorkflow(move.fromUrl, move.toUrl);
  const resume = resumePointFor(workflow, await from.store.stepsOf(main.id));
  const warnings: string[] = [];
  if (!(await connectorExists(http, move.fromUrl, main.connector)) && !(await connectorExists(http, move.toUrl, move.targetName))) {
    throw new OpsError('E_PREFLIGHT', `run ${main.id}: ${main.connector} is on neither ${move.fromUrl} nor (as ${move.targetName}) ${move.toUrl}; nothing was changed`);
  }
  // A move of a Debezium source waits for its slot here too; without --source-db it is finished all the same, said in a warning.
  let release: MoveRelease | undefined;
  if (move.mode === 'move' && options.profile) {
    const connectorType = (main.context.connectorType ?? 'source') as 'source' | 'sink';
    const report = await checkProfile({
      operation: 'move', connector: { name: main.connector, type: connectorType, config, state: 'STOPPED' }, current: [],
      options: { ...options.profile, finishingRun: true },
    });
    warnings.push(...report.warnings);
    if (report.exclusive && options.profile.sourceDb) release = { ...report.exclusive, waitMs: options.releaseWaitMs ?? SLOT_RELEASE_WAIT_MS };
  }
  const plan: MoveResumePlan = {
    runId: main.id, operation: move.mode, connector: main.connector, targetName: move.targetName, fromUrl: move.fromUrl, toUrl: move.toUrl,
    resumeAt: resume?.stepId ?? workflow.stepOrder[0] ?? '', ...(main.lastStep ? { lastStep: main.lastStep } : {}), warnings, ...(release ? { release } : {}),
  };
  return {
    plan: release && options.profile?.sourceDb ? withReleaseDb(plan, options.profile.sourceDb) : plan,
    run, inputs: { ...main.inputs, config, targetMayExist: true }, secrets: secretValues(config, move.secretKeys), resume,
  };
}

/** Finishes an interrupted move from its journal (the create and writes may be sent again: they are idempotent). */
export async function applyMoveResume(from: OpsContext, to: ClusterRef, plan: MoveResumePlan, options: ApplyMoveOptions & { kafka?: KafkaSettings } = {}): Promise<MoveOutcome> {
  const db = releaseDbOf(plan);
  if (plan.release && !db) throw new OpsError('E_PREFLIGHT', `this plan waits for replication slot "${plan.release.slotName}" but no longer carries the login to read it: plan again`, { field: 'source-db' });
  const parts = await resumeParts(from, to, plan.runId);
  const main = await from.store.takeOverRun(parts.run.main.id);
  const companion = parts.run.companion?.status === 'running' ? await from.store.takeOverRun(parts.run.companion.id) : undefined;
  options.onEvent?.({ type: 'ops.run.started', at: new Date().toISOString(), runId: main.id, operation: parts.plan.operation, connector: main.connector, clusterUrl: parts.plan.fromUrl, resumeAt: parts.plan.resumeAt });
  const translated = main.context.translatedOffsets;
  const gate = plan.release && db ? new ReleaseGate(from.store, plan.release, db, { connector: main.connector, fromUrl: plan.fromUrl, toUrl: plan.toUrl }) : undefined;
  const beforeStep = gate ? gate.wrap(options.beforeStep, options.signal) : options.beforeStep;
  return executeMove({
    store: from.store, http: new RoutingSender([{ base: from.url, sender: from.http }, { base: to.url, sender: to.http }]),
    main, companion, move: parts.run.move, connector: main.connector, connectorType: (main.context.connectorType ?? 'source') as 'source' | 'sink',
    stateBefore: main.context.stateBefore, inputs: parts.inputs, secrets: parts.secrets, ...(parts.resume ? { resume: parts.resume } : {}),
    ...(Array.isArray(translated) ? { translatedOffsets: offsetEntries(translated) as OffsetEntry[] } : {}),
    ...(options.kafka ? { kafka: options.kafka } : {}), options: { ...options, ...(beforeStep ? { beforeStep } : {}) }, ...(gate ? { gate } : {}),
  });
}

/** `runId`: the move undone. */
export interface MoveRollbackPlan extends MoveRunRef {
  /** The original's state before the move: what it is put back to. */
  stateBefore?: string;
  /** What is there now, and in which state (so a dry run can say more than "it is on …"). */
  sourceExists: boolean;
  targetExists: boolean;
  sourceState?: string;
  targetState?: string;
  interrupted: boolean;
  warnings: string[];
}

export async function planMoveRollback(from: OpsContext, to: ClusterRef, run: MoveRun): Promise<MoveRollbackPlan> {
  const { main, move } = run;
  if (to.url.replace(/\/+$/, '') !== move.toUrl) throw new OpsError('E_PREFLIGHT', `run ${main.id} moved ${main.connector} to ${move.toUrl}; undo it with that cluster as the target (--to)`, { field: 'to' });
  const http = new RoutingSender([{ base: from.url, sender: from.http }, { base: to.url, sender: to.http }]);
  const [sourceState, targetState] = await Promise.all([
    connectorState(http, move.fromUrl, main.connector), connectorState(http, move.toUrl, move.targetName),
  ]);
  const [sourceExists, targetExists] = [sourceState !== undefined, targetState !== undefined];
  const warnings: string[] = [];
  if (move.translate && targetExists) warnings.push(`${move.targetName} on ${move.toUrl} read translated offsets; what it consumed there since is not carried back: the original continues from its own committed offsets on its Kafka cluster`);
  if (!sourceExists && !targetExists) throw new OpsError('E_PREFLIGHT', `${main.connector} is on neither cluster any more: nothing to bring back; recreate it from a backup (\`offsetctl import\`)`);
  return {
    runId: main.id, operation: move.mode, connector: main.connector, targetName: move.targetName, fromUrl: move.fromUrl, toUrl: move.toUrl,
    ...(main.context.stateBefore ? { stateBefore: main.context.stateBefore } : {}), sourceExists, targetExists,
    ...(sourceState ? { sourceState } : {}), ...(targetState ? { targetState } : {}), interrupted: main.status === 'running', warnings,
  };
}

/** Undoes the move in a run of its own (operation rollback), taking over the interrupted move's locks. */
export async function applyMoveRollback(from: OpsContext, to: ClusterRef, plan: MoveRollbackPlan, options: ApplyMoveOptions = {}): Promise<{ runId: string; status: 'succeeded' | 'failed'; message: string; undo: UndoOutcome; warnings: string[] }> {
  const run = await moveRunOf(from.store, plan.runId);
  const { main, move } = run;
  const http = new RoutingSender([{ base: from.url, sender: from.http }, { base: to.url, sender: to.http }]);
  // The undo locks what the move locked (its run's lockKey, when narrower than the cluster's), so it takes that lock over.
  const keyOf = (r: RunRecord | undefined): { lockKey?: string } => (typeof r?.context.lockKey === 'string' ? { lockKey: r.context.lockKey } : {});
  const movedCompanion = move.companionRunId ? await from.store.getRun(move.companionRunId).catch(() => undefined) : undefined;
  const mine = await from.store.beginRun({
    clusterUrl: move.fromUrl, clusterKey: main.clusterKey, ...keyOf(main), connector: main.connector, operation: 'rollback',
    workflowFile: main.workflowFile, workflowId: main.workflowId, inputs: {}, context: { undoes: main.id, connectorType: main.context.connectorType, stateBefore: main.context.stateBefore },
  }, { takeOverStale: true });
  let companion: RunRecord | undefined;
  if (move.toKey !== main.clusterKey || move.targetName !== main.connector) {
    companion = await from.store.beginRun({
      clusterUrl: move.toUrl, clusterKey: move.toKey, ...keyOf(movedCompanion), connector: move.targetName, operation: 'rollback',
      workflowFile: main.workflowFile, workflowId: main.workflowId, inputs: {}, context: { companionOf: mine.id, undoes: main.id },
    }, { takeOverStale: true }).catch(async (err: unknown) => {
      await from.store.finishRun(mine.id, { status: 'failed', message: `refused before anything changed: ${(err as Error).message}` });
      throw err;
    });
  }
  options.onEvent?.({ type: 'ops.run.started', at: new Date().toISOString(), runId: mine.id, operation: 'rollback', connector: main.connector, clusterUrl: move.fromUrl });
  const undo = await undoMove({
    store: from.store, http, journalRun: mine, ownRun: true, mode: move.mode, connector: main.connector, targetName: move.targetName,
    fromUrl: move.fromUrl, toUrl: move.toUrl, connectorType: (main.context.connectorType ?? 'source') as 'source' | 'sink', stateBefore: main.context.stateBefore,
    translated: Boolean(move.translate), sameConsumerGroup: move.sameConsumerGroup, secretKeys: move.secretKeys,
    targetMayHaveRun: await targetMayHaveRun(from.store, main),
    ...(options.onEvent ? { onProgress: options.onEvent } : {}), ...(options.beforeStep ? { beforeStep: options.beforeStep } : {}),
    ...(options.verifyTimeoutMs !== undefined ? { verifyTimeoutMs: options.verifyTimeoutMs } : {}), ...(options.signal ? { signal: options.signal } : {}),
  });
  const message = moveUndone({ ...move, connector: main.connector }, main.id, undo);
  const status = undo.succeeded ? 'succeeded' : 'failed';
  await from.store.finishRun(mine.id, { status, message, ...(undo.sourceState ? { connectorState: undo.sourceState } : {}) });
  if (companion) await from.store.finishRun(companion.id, { status, message: `${message} (the target side of run ${mine.id})` });
  if (undo.succeeded && main.status === 'succeeded') await from.store.updateRunContext(main.id, { undoneBy: mine.id });
  return { runId: mine.id, status, message, undo, warnings: plan.warnings };
}
