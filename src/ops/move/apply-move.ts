// Applying a move or a copy: the move workflow over both clusters, journaled as one run under
// the lock of the connector on both clusters (the run's own lock on the original, a companion
// run's on the target when the target's key or name differs), with the connector's secrets
// masked in everything stored. A sink translated across Kafka clusters runs the workflow in two
// legs: up to the snapshot (the original STOPPED), then — once MirrorMaker 2 has checkpointed
// exactly the offsets the stopped sink committed — from the create with the translated offsets.
// A failure after the stop is undone (undo-move.ts): the connector runs again where it was.
import { setTimeout as sleep } from 'node:timers/promises';
import { runWorkflow, type ResumePoint, type RunEvent, type WorkflowResult } from '../../arazzo/index.js';
import { readCheckpoints } from '../../kafka/checkpoints.js';
import type { KafkaSettings } from '../../kafka/connection.js';
import type { HttpSender } from '../../http/client.js';
import { RoutingSender } from '../../http/route.js';
import type { RunRecord, Store } from '../../store/index.js';
import { getConnectorInfo } from '../connect/index.js';
import type { OpsContext } from '../context.js';
import { OpsError } from '../errors.js';
import { describeFailure, describeState, type OperationOutcome } from '../run/index.js';
import { offsetEntries, type OffsetEntry } from '../offsets/index.js';
import { readBackUntilMatch } from '../run/index.js';
import type { ClusterRef } from './clusters.js';
import { maskedConfig, secretValues } from './config-secrets.js';
import { MoveJournal } from './move-journal.js';
import { moveDone, moveFailed } from './outcome-text.js';
import { releaseDbOf, sinkGroup, type MovePlan } from './plan-move.js';
import { ReleaseGate } from './release-gate.js';
import { readPartition } from '../../kafka/partition-records.js';
import { checkFromEarlierCheckpoints, checkTranslation, type CheckedRow, type PartitionReader } from './translate-check.js';
import { behind, closerTranslation, translateSinkOffsets, translationRefusal, type Translation, type TranslationRow } from './translate.js';
import { undoMove, type UndoOutcome } from './undo-move.js';
import { loadMoveWorkflow, MOVE_SPEC } from './workflow.js';

export interface ApplyMoveOptions {
  onEvent?: (event: RunEvent | { type: 'ops.run.started'; at: string; runId: string; operation: string; connector: string; clusterUrl: string; resumeAt?: string }) => void;
  signal?: AbortSignal;
  beforeStep?: (stepId: string, runId: string) => Promise<void>;
  verifyTimeoutMs?: number;
  batchId?: string;
  /** How long to wait for MirrorMaker 2 to checkpoint the stopped sink's offsets (default 120 s). */
  translateTimeoutMs?: number;
  translateSettleMs?: number;
  /** How long checkpoints of an earlier offset are waited on before checking from them by records (DEFAULT_TRANSLATE_BEHIND_MS). */
  translateBehindMs?: number;
}

/**
 * What a change's outcome says, and a move's too (snapshot, end state, message, warnings, where it
 * failed, cancelled); `connectorState` is the new connector's at the end (a failed run: the
 * original's, after the undo).
 */
export interface MoveOutcome extends Pick<OperationOutcome, 'snapshotId' | 'connectorState' | 'message' | 'warnings' | 'outputs' | 'failedStep' | 'cancelled'> {
  operation: 'move' | 'copy';
  connector: string;
  targetName: string;
  clusterUrl: string;
  targetUrl: string;
  status: 'succeeded' | 'failed';
  runId: string;
  undo?: UndoOutcome;
  translation?: TranslationRow[];
}

/** What a move run remembers beside its journal (the run context), for resume and rollback. */
export interface MoveContext {
  mode: 'move' | 'copy';
  targetName: string;
  fromUrl: string;
  toUrl: string;
  toKey: string;
  secretKeys: string[];
  sameConsumerGroup: boolean;
  /** MirrorMaker 2 translation: the alias and checkpoints topic (Kafka credentials are given again on resume, never stored). */
  translate?: { alias: string; topic: string; group: string };
  companionRunId?: string;
}

export const DEFAULT_TRANSLATE_TIMEOUT_MS = 120_000;
/**
 * How long the first exact checkpoint is read again for a closer translation (see settle): 5 s
 * was too short on a loaded machine (CI saw the translation one record behind once more, a record
 * re-delivered), so 15 s; it costs only a move with --translate-offsets.
 */
export const DEFAULT_TRANSLATE_SETTLE_MS = 15_000;
/**
 * How long checkpoints of an earlier offset than the committed one are waited on before the
 * earlier one is checked record by record instead (with the source Kafka cluster readable).
 * MirrorCheckpointTask emits a checkpoint only when it moves the translation on
 * (checkpointIsMoreRecent): once the sync of the last checkpointed record has gone from its sparse
 * store, its translation of the committed offset is no further, and no checkpoint of that offset
 * ever comes (CI: committed 15, the last checkpoint of 9, for 120 s).
 */
export const DEFAULT_TRANSLATE_BEHIND_MS = 15_000;

export async function applyMove(from: OpsContext, to: ClusterRef, plan: MovePlan, options: ApplyMoveOptions = {}): Promise<MoveOutcome> {
  if (plan.from.url !== from.url || plan.to.url !== to.url) {
    throw new OpsError('E_PREFLIGHT', `this plan was made for ${plan.from.url} → ${plan.to.url}, not ${from.url} → ${to.url}; plan again`, { field: 'to' });
  }
  // A plan that waits for a slot carries the login to read it; one that lost it (rebuilt from JSON) is planned again, never run without the wait.
  if (plan.release && !releaseDbOf(plan)) {
    throw new OpsError('E_PREFLIGHT', `this plan of ${plan.connector} waits for replication slot "${plan.release.slotName}" but no longer carries the login ` +
      `to read it: plan the move again (nothing was changed)`, { field: 'source-db' });
  }
  const secretKeys = plan.secretKeys;
  const move: MoveContext = {
    mode: plan.operation, targetName: plan.targetName, fromUrl: from.url, toUrl: to.url, toKey: plan.to.key, secretKeys,
    sameConsumerGroup: plan.sameConsumerGroup,
    ...(plan.translation ? { translate: { alias: plan.translation.alias, topic: plan.translation.topic, group: plan.groups?.from ?? sinkGroup(plan.connector, plan.config) } } : {}),
  };
  const stored = { ...plan.inputs, config: maskedConfig(plan.config, secretKeys) };
  const main = await from.store.beginRun({
    clusterUrl: from.url, clusterKey: plan.from.key, lockKey: plan.lockKeys.from, connector: plan.connector, operation: plan.operation,
    workflowFile: plan.workflow.file, workflowId: plan.workflow.workflowId, inputs: stored,
    context: { connectorType: plan.connectorType, stateBefore: plan.stateBefore, move: move as never, ...(options.batchId ? { batchId: options.batchId } : {}) },
  });
  let companion: RunRecord | undefined;
  if (plan.to.key !== plan.from.key || plan.targetName !== plan.connector) {
    try {
      companion = await from.store.beginRun({
        clusterUrl: to.url, clusterKey: plan.to.key, lockKey: plan.lockKeys.to, connector: plan.targetName, operation: plan.operation,
        workflowFile: plan.workflow.file, workflowId: plan.workflow.workflowId, inputs: {}, context: { companionOf: main.id, connectorType: plan.connectorType },
      });
      await from.store.updateRunContext(main.id, { move: { ...move, companionRunId: companion.id } as never });
    } catch (err) {
      await from.store.finishRun(main.id, { status: 'failed', message: `refused before anything changed: ${(err as Error).message}` });
      throw err;
    }
  }
  options.onEvent?.({ type: 'ops.run.started', at: new Date().toISOString(), runId: main.id, operation: plan.operation, connector: plan.connector, clusterUrl: from.url });
  // A Debezium source's slot: the new connector starts only once the original's task let go of it (release-gate.ts).
  const db = releaseDbOf(plan);
  const gate = plan.release && db ? new ReleaseGate(from.store, plan.release, db, { connector: plan.connector, fromUrl: from.url, toUrl: to.url }) : undefined;
  const beforeStep = gate ? gate.wrap(options.beforeStep, options.signal) : options.beforeStep;
  const outcome = await executeMove({
    store: from.store, http: new RoutingSender([{ base: from.url, sender: from.http }, { base: to.url, sender: to.http }]),
    main, companion, move, connector: plan.connector, connectorType: plan.connectorType, stateBefore: plan.stateBefore,
    inputs: plan.inputs, secrets: secretValues(plan.config, secretKeys), ...(plan.translation ? { kafka: plan.translation.kafka } : {}),
    ...(plan.translation?.source ? { sourceKafka: plan.translation.source } : {}),
    options: { ...options, ...(beforeStep ? { beforeStep } : {}) }, ...(gate ? { gate } : {}),
  });
  return { ...outcome, warnings: [...plan.warnings, ...outcome.warnings] };
}

export interface MoveExecution {
  store: Store;
  http: HttpSender;
  main: RunRecord;
  companion: RunRecord | undefined;
  move: MoveContext;
  connector: string;
  connectorType: 'source' | 'sink';
  stateBefore: string | undefined;
  /** The real workflow inputs (config with its secrets). */
  inputs: Record<string, unknown>;
  secrets: string[];
  /** The target's Kafka cluster, for the checkpoints (a translated sink). */
  kafka?: KafkaSettings;
  /** The Kafka cluster the sink read, to check the translation record by record (translate-check.ts). */
  sourceKafka?: KafkaSettings;
  resume?: ResumePoint;
  /** A resumed run past its create: the translated offsets it wrote (from its context). */
  translatedOffsets?: OffsetEntry[];
  options: ApplyMoveOptions;
  /** The wait for a replication slot (release-gate.ts): what it found, said in the account, or why the new connector was not started. */
  gate?: { readonly note: string | undefined; readonly error: string | undefined };
}

/** The run itself (new or resumed): legs, outcome, undo after a failure, both runs finished. */
export async function executeMove(x: MoveExecution): Promise<MoveOutcome> {
  const { store, main, move } = x;
  const base = { operation: move.mode, connector: x.connector, targetName: move.targetName, clusterUrl: move.fromUrl, targetUrl: move.toUrl, runId: main.id };
  const controller = new AbortController();
  let cancelledByUser = false;
  const onAbort = (): void => {
    cancelledByUser = true;
    controller.abort();
  };
  if (x.options.signal?.aborted) onAbort();
  x.options.signal?.addEventListener('abort', onAbort, { once: true });
  const captured = x.resume?.steps.captureOffsets?.outputs.sourceOffsets;
  const journal = new MoveJournal({
    store, run: main, spec: MOVE_SPEC, connectorType: x.connectorType, inputs: x.inputs, controller,
    ...(x.stateBefore ? { initialState: x.stateBefore } : {}),
    ...(x.options.onEvent ? { onProgress: x.options.onEvent } : {}),
    ...(x.options.beforeStep ? { beforeStep: x.options.beforeStep } : {}),
    reverify: (requested) => readBackUntilMatch(x.http, move.toUrl, move.targetName, requested, x.options.verifyTimeoutMs !== undefined ? { timeoutMs: x.options.verifyTimeoutMs } : {}),
    secrets: x.secrets, writes: { steps: ['writeCapturedOffsets', 'writeGivenOffsets'], verifyStep: 'verifyTargetOffsets', verifyOutput: 'targetOffsets' },
    written: (step, inputs, cap) => (step === 'writeGivenOffsets' ? offsetEntries(inputs.offsets ?? []) : cap ?? []),
    ...(captured !== undefined ? { captured: offsetEntries(captured) } : {}),
  });
  let translation: TranslationRow[] | undefined;
  const translationNotes: string[] = [];
  let result: WorkflowResult | undefined;
  let thrown: Error | undefined;
  try {
    const workflow = await loadMoveWorkflow(move.fromUrl, move.toUrl);
    const run = (inputs: Record<string, unknown>, resume: ResumePoint | undefined): Promise<WorkflowResult> =>
      runWorkflow({ registry: workflow.registry, workflowId: workflow.workflowId, inputs, http: x.http, onEvent: journal.onEvent, signal: controller.signal, ...(resume ? { resume } : {}) });
    const createAt = workflow.stepOrder.indexOf('createTarget');
    const startAt = x.resume ? workflow.stepOrder.indexOf(x.resume.stepId) : 0;
    if (move.translate && startAt <= createAt) {
      // Leg 1: up to the snapshot, the original STOPPED (unless the interrupted run got that far).
      let preloaded = x.resume?.steps ?? {};
      let sinkOffsets = captured;
      if (x.resume?.stepId !== 'createTarget' || sinkOffsets === undefined) {
        const leg1 = await run({ ...x.inputs, holdAfterCapture: true }, x.resume);
        if (leg1.status !== 'passed' || journal.inner.safetyError) result = leg1;
        else {
          preloaded = { ...preloaded, ...passedOutputs(leg1) };
          sinkOffsets = preloaded.captureOffsets?.outputs.sourceOffsets;
        }
      }
      if (!result) {
        const t = await waitForTranslation(x, offsetEntries(sinkOffsets ?? []), controller.signal);
        translation = t.rows;
        translationNotes.push(...translationNotesOf(t.rows, Boolean(x.sourceKafka)));
        await store.updateRunContext(main.id, { translatedOffsets: t.offsets, translation: t.rows as never });
        result = await run({ ...x.inputs, holdAfterCapture: false, offsetsFrom: 'given', offsets: t.offsets }, { stepId: 'createTarget', steps: preloaded });
      }
    } else {
      const inputs = move.translate ? { ...x.inputs, holdAfterCapture: false, offsetsFrom: 'given', offsets: x.translatedOffsets ?? [] } : x.inputs;
      result = await run(inputs, x.resume);
    }
  } catch (err) {
    thrown = err as Error;
  } finally {
    await journal.flush().catch(() => undefined);
    x.options.signal?.removeEventListener('abort', onAbort);
  }
  const snapshotId = journal.inner.snapshotId ?? (await store.getRun(main.id)).context.snapshotId;
  const warnings = [...journal.inner.warnings, ...translationNotes];
  if (result?.status === 'passed' && !journal.inner.safetyError && !thrown) {
    const state = typeof result.outputs.connectorState === 'string' ? result.outputs.connectorState : undefined;
    const note = x.gate?.note;
    const message = `${moveDone({ ...move, connector: x.connector }, state, x.inputs.sourceAfter, snapshotId)}${note ? `; ${note}` : ''}`;
    await finish(store, x, { status: 'succeeded', message, ...(state ? { connectorState: state } : {}) });
    return { ...base, status: 'succeeded', ...(snapshotId ? { snapshotId } : {}), ...(state ? { connectorState: state } : {}), message, warnings, outputs: result.outputs, ...(translation ? { translation } : {}) };
  }

  // Failed, cancelled or broken: once the original was stopped, undo (the connector runs again where it was).
  const why = x.gate?.error ?? (thrown ? thrown.message : result ? describeFailure(result, journal.inner) : 'the run did not start');
  const failedStep = cancelledByUser ? journal.inner.currentStep : journal.inner.lastFailedStep ?? journal.inner.currentStep;
  const stopped = journal.inner.stopStarted || Boolean(x.resume);
  const undo = stopped ? await undoMove({
    store, http: x.http, journalRun: main, ownRun: false, mode: move.mode, connector: x.connector, targetName: move.targetName,
    fromUrl: move.fromUrl, toUrl: move.toUrl, connectorType: x.connectorType, stateBefore: x.stateBefore ?? journal.inner.initialState,
    translated: Boolean(move.translate), sameConsumerGroup: move.sameConsumerGroup, secretKeys: move.secretKeys,
    targetMayHaveRun: journal.targetStarted || (await targetMayHaveRun(store, main)),
    ...(x.options.onEvent ? { onProgress: x.options.onEvent } : {}), ...(x.options.verifyTimeoutMs !== undefined ? { verifyTimeoutMs: x.options.verifyTimeoutMs } : {}),
  }) : undefined;
  const now = await getConnectorInfo(x.http, move.fromUrl, x.connector).then((i) => ({ state: i.state, text: describeState(i) }), () => undefined);
  const message = moveFailed({ ...move, connector: x.connector }, { cancelledByUser, failedStep, why, stopped, undo, runId: main.id, nowText: now?.text });
  await finish(store, x, { status: 'failed', message, ...(now ? { connectorState: now.state } : {}) }).catch(() => undefined);
  return {
    ...base, status: 'failed', ...(snapshotId ? { snapshotId } : {}), ...(now ? { connectorState: now.state } : {}), message, warnings,
    ...(result ? { outputs: result.outputs } : {}), ...(failedStep ? { failedStep } : {}), ...(cancelledByUser ? { cancelled: true } : {}), ...(undo ? { undo } : {}),
    ...(translation ? { translation } : {}),
  };
}

/**
 * Was the new connector's resume (or pause) sent, in this run or in the process that died? The
 * request is journaled before it leaves (src/ops/journal.ts), so a kill after it shows here.
 * A finished move ran it for sure.
 */
export async function targetMayHaveRun(store: Store, run: RunRecord): Promise<boolean> {
  if (run.status === 'succeeded') return true;
  const events = await store.eventsOf(run.id).catch(() => []);
  return events.some((e) => e.type === 'request.sent' && (e.stepId === 'resumeConnector' || e.stepId === 'pauseConnector'));
}

async function finish(store: Store, x: MoveExecution, outcome: Parameters<Store['finishRun']>[1]): Promise<void> {
  await store.finishRun(x.main.id, outcome);
  if (x.companion) await store.finishRun(x.companion.id, { ...outcome, message: `${outcome.message ?? ''} (the target side of run ${x.main.id})` });
}

/**
 * After the first checkpoint of exactly the committed offsets: a few more readings, a second
 * apart, keeping the closest translation of each partition (closerTranslation). With
 * MirrorCheckpointConnector emitting every second or so this finds the translation made from the
 * sync of that very record; with its default of 60 s it costs a few seconds and changes nothing.
 */
async function settle(x: MoveExecution, committed: OffsetEntry[], first: Translation, deadline: number, signal: AbortSignal): Promise<Translation> {
  const t = x.move.translate!;
  const until = Math.min(deadline, Date.now() + (x.options.translateSettleMs ?? DEFAULT_TRANSLATE_SETTLE_MS));
  let best = first;
  while (Date.now() + 1000 <= until && !signal.aborted) {
    await sleep(1000, undefined, { signal }).catch(() => undefined);
    const { checkpoints } = await readCheckpoints(x.kafka!, t.topic, t.group);
    best = closerTranslation(best, translateSinkOffsets(committed, checkpoints));
  }
  return best;
}

function passedOutputs(result: WorkflowResult): ResumePoint['steps'] {
  const out: ResumePoint['steps'] = {};
  for (const s of result.steps) if (s.status === 'passed') out[s.stepId] = { outputs: s.outputs };
  return out;
}

/**
 * Reads MirrorMaker 2's checkpoints until every partition the stopped sink committed has one that
 * translates exactly that offset; a checkpoint of an older offset would re-deliver or skip.
 */
async function waitForTranslation(x: MoveExecution, committed: OffsetEntry[], signal: AbortSignal): Promise<{ rows: TranslationRow[]; offsets: OffsetEntry[] }> {
  const t = x.move.translate;
  if (!t || !x.kafka) throw new OpsError('E_USAGE', 'translating offsets needs the target\'s Kafka cluster (its bootstrap servers and credentials)', { field: 'bootstrap' });
  const began = Date.now();
  const deadline = began + (x.options.translateTimeoutMs ?? DEFAULT_TRANSLATE_TIMEOUT_MS);
  let lastTry = began;
  for (;;) {
    const { checkpoints } = await readCheckpoints(x.kafka, t.topic, t.group);
    const translation = translateSinkOffsets(committed, checkpoints);
    const refusal = translationRefusal(translation, t.group, t.topic);
    if (refusal) throw new Error(refusal);
    const late = behind(translation);
    if (late.length === 0) {
      const settled = await settle(x, committed, translation, deadline, signal);
      return x.sourceKafka ? checkTranslation(settled, readerFor(x.sourceKafka, x.kafka)) : settled;
    }
    // No checkpoint of the committed offset may ever come (DEFAULT_TRANSLATE_BEHIND_MS): the
    // earlier one, checked by the records, gives the exact position all the same. Tried every 10 s.
    const behindMs = x.options.translateBehindMs ?? DEFAULT_TRANSLATE_BEHIND_MS;
    if (x.sourceKafka && Date.now() - began >= behindMs && Date.now() - lastTry >= Math.min(behindMs, 10_000)) {
      lastTry = Date.now();
      const checked = await checkFromEarlierCheckpoints(translation, readerFor(x.sourceKafka, x.kafka), { attempts: 1 });
      if (checked) return checked;
    }
    if (Date.now() > deadline || signal.aborted) {
      const list = late.slice(0, 5).map((r) => `${r.topic}:${r.partition} committed ${r.committed}, last checkpoint translates ${r.upstream}`).join('; ');
      throw new Error(`MirrorCheckpointConnector did not checkpoint group ${t.group} at the offsets the stopped sink committed within ${Math.round((x.options.translateTimeoutMs ?? DEFAULT_TRANSLATE_TIMEOUT_MS) / 1000)} s (${list}): is it running and following that group, with emit.checkpoints.interval.seconds short enough?`);
    }
    await sleep(1000, undefined, { signal }).catch(() => undefined);
  }
}

/** Reads the source's records (the sink read them) and the target's copies, 30 s per read at most. */
function readerFor(source: KafkaSettings, target: KafkaSettings): PartitionReader {
  return (side, topic, partition, from, max) => readPartition(side === 'source' ? source : target, topic, partition, from, { max, waitMs: 30_000 });
}

/** What the account says about how the translation was checked (nothing when every partition was exact). */
export function translationNotesOf(rows: readonly CheckedRow[], checked: boolean): string[] {
  const current = rows.filter((r) => r.status === 'current');
  if (!checked) {
    return current.length === 0 ? [] : [`MirrorMaker 2's translation was used as it is: it never skips a record, but when it holds no offset sync of the committed offset itself it re-delivers the records since the last one it holds. Give --from-bootstrap (the Kafka cluster the sink read) to have it checked record by record`];
  }
  const notes: string[] = [];
  const refined = current.filter((r) => r.check === 'refined');
  if (refined.length > 0) {
    const list = refined.slice(0, 5).map((r) => `${r.topic}:${r.partition} ${r.mirrorMaker} → ${r.downstream}${r.lowerBound ? ` (from its checkpoint of ${r.upstream})` : ''}`).join(', ');
    const why = refined.some((r) => r.lowerBound)
      ? 'it held no offset sync of the committed record, or made no checkpoint of it: it makes none that would not move its translation on'
      : 'it held no offset sync of the committed record';
    notes.push(`MirrorMaker 2's translation was short for ${refined.length} partition(s) (${why}); the position after the copy of the last delivered record is used instead, so nothing is delivered twice: ${list}`);
  }
  const unchecked = current.filter((r) => r.check === 'unchecked' && r.committed > 0);
  if (unchecked.length > 0) {
    const list = unchecked.slice(0, 5).map((r) => `${r.topic}:${r.partition}`).join(', ');
    notes.push(`the translation of ${unchecked.length} partition(s) could not be checked against the records (the last delivered record or its copy was not found: deleted, or not yet mirrored): MirrorMaker 2's is used, which may deliver some records again: ${list}`);
  }
  return notes;
}
