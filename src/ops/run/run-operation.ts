// Running one journaled operation: the workflow with the journal listening, then either the
// success record or, for a failure after the stop, the recovery; the lock is released and the
// run's outcome recorded in every case (a crash leaves it `running`, which reads `interrupted`).
import type { HttpSender } from '../../http/client.js';
import type { ResumePoint } from '../../arazzo/index.js';
import { runWorkflowInChunks } from './chunked-write.js';
import { getConnectorInfo } from '../connect/index.js';
import { describeFailure, describeState } from './failure-text.js';
import { RunJournal, type RunParts } from './journal.js';
import { loadOpsWorkflow, targetStateFor, type TargetState } from '../workflows/index.js';
import { offsetEntries } from '../offsets/index.js';
import { changeKeptSentence, describeRecovery, endStateSentence, failureHeadline, leftStoppedAdvice, unrecordedSentence } from './outcome-text.js';
import { recoverConnector, recoveryAsBefore, type RecoveryOutcome } from './recover.js';
import type { PositionTargets } from '../positions/index.js';
import { readBackUntilMatch } from './verify-read.js';
import { redactText } from '../../http/redact.js';

export interface OperationOutcome {
  operation: string;
  connector: string;
  clusterUrl: string;
  /** `unchanged`: the diff was empty, so nothing ran (no stop, no snapshot). */
  status: 'succeeded' | 'failed' | 'dry-run' | 'unchanged';
  runId?: string;
  /** The snapshot taken before the change (rollback and `runs show` use it). */
  snapshotId?: string;
  /** The connector's state at the end, read from Kafka Connect. */
  connectorState?: string;
  message: string;
  warnings: string[];
  outputs?: Record<string, unknown>;
  failedStep?: string;
  /** The operator cancelled the run (Ctrl-C / SIGTERM); `failedStep` is where it stood. */
  cancelled?: boolean;
  recovery?: RecoveryOutcome;
  diff?: { unchanged: number; changed: number; added: number; removed: number };
  /** A rewind to a position: the plan's per-partition targets (plan.positions). */
  positions?: PositionTargets;
  /** A dry run: what the connector's profile read (docs/connectors.md), one line each. */
  profile?: { name: string; facts: string[] };
}

export interface OperationRun extends RunParts {
  resume?: ResumePoint;
  initialState?: string;
  /** Cancels the run (the face's Ctrl-C); a cancelled run after the stop is recovered like a failed one. */
  signal?: AbortSignal;
  beforeStep?: (stepId: string, runId: string) => Promise<void>;
  /** Partitions per PATCH (src/ops/offsets/limits.ts); a larger set is written chunk by chunk. */
  chunkSize?: number;
  onChunk?: (index: number, total: number, size: number) => void;
  /** How long a read-back may take to show a write before it is a mismatch (src/ops/run/verify-read.ts). */
  verifyTimeoutMs?: number;
}

export async function runOperation(req: OperationRun): Promise<OperationOutcome> {
  const { store, run, spec } = req;
  const base = { operation: spec.operation, connector: run.connector, clusterUrl: run.clusterUrl, runId: run.id };
  // Aborted by the journal (a safety rule) or by the caller (Ctrl-C at the wrong moment must not
  // strand a stopped connector: cancel, then recover).
  const controller = new AbortController();
  // The caller's abort is the operator's cancel: reported as "cancelled by you", not as a failure.
  let cancelledByUser = false;
  const onAbort = (): void => {
    cancelledByUser = true;
    controller.abort();
    // Recorded at once: should the process die before the recovery ends (a second Ctrl-C),
    // `runs resume` finishes the recovery, never the change the operator cancelled.
    void store.updateRunContext(run.id, { cancelled: true }).catch(() => undefined);
  };
  // A face that cancels for its own reason (a console shutting down) aborts with that reason as text.
  const cancelledBecause = (): string | undefined => (typeof req.signal?.reason === 'string' ? req.signal.reason : undefined);
  if (req.signal?.aborted) onAbort();
  req.signal?.addEventListener('abort', onAbort, { once: true });
  let journal: RunJournal | undefined;
  try {
    const workflow = await loadOpsWorkflow(spec.workflow, run.clusterUrl);
    journal = new RunJournal({
      store, run, spec, connectorType: req.connectorType, inputs: req.inputs, controller,
      ...(req.initialState ? { initialState: req.initialState } : {}),
      ...(req.onProgress ? { onProgress: req.onProgress } : {}),
      ...(req.beforeStep ? { beforeStep: req.beforeStep } : {}),
      reverify: (requested) => readBackUntilMatch(req.http, run.clusterUrl, run.connector, requested, req.verifyTimeoutMs !== undefined ? { timeoutMs: req.verifyTimeoutMs } : {}),
    });
    const result = await runWorkflowInChunks({
      workflow, inputs: req.inputs, http: req.http, onEvent: journal.onEvent, signal: controller.signal, ...(req.resume ? { resume: req.resume } : {}),
      mutatingStep: spec.mutatingStep, chunkSize: req.chunkSize ?? Number.POSITIVE_INFINITY, ...(req.onChunk ? { onChunk: req.onChunk } : {}),
    }).finally(() => journal?.flush());
    const snapshotId = journal.snapshotId ?? (await store.getRun(run.id)).context.snapshotId;
    if (result.status === 'passed' && !journal.safetyError) {
      const connectorState = stringOrUndefined(result.outputs.connectorState);
      const before = journal.initialState;
      const leftStopped = connectorState === 'STOPPED' && before !== undefined && !['RUNNING', 'PAUSED', 'STOPPED'].includes(before)
        ? `; it was ${before} before, so it was not resumed (resume it when ready: PUT /connectors/${run.connector}/resume)` : '';
      // Kafka Connect creates a connector's tasks when it starts it: one taken from STOPPED back to
      // PAUSED (as it was) has none until it is resumed. That is Connect's way, said, not a fault.
      const noTasks = connectorState === 'PAUSED' && Array.isArray(result.outputs.taskStates) && result.outputs.taskStates.length === 0
        ? ` (with no tasks: Kafka Connect starts a connector's tasks only when it runs, so a PAUSED connector brought back from STOPPED has none until \`offsetctl resume ${run.connector}\`)` : '';
      const message = `${spec.operation} of ${run.connector} done; the connector is ${connectorState ?? 'in an unknown state'}${noTasks}${leftStopped}` +
        (snapshotId ? ` (snapshot ${snapshotId}; undo with \`offsetctl rollback ${run.connector} --snapshot ${snapshotId}\`)` : '');
      await store.finishRun(run.id, { status: 'succeeded', message: redactText(message), ...(connectorState ? { connectorState } : {}) });
      return { ...base, status: 'succeeded', ...(snapshotId ? { snapshotId } : {}), ...(connectorState ? { connectorState } : {}), message, warnings: journal.warnings, outputs: result.outputs };
    }

    const why = describeFailure(result, journal);
    const failedStep = cancelledByUser ? journal.currentStep : journal.lastFailedStep ?? journal.currentStep;
    const attempted = journal.stopStarted || req.resume ? await recover(req, journal) : undefined;
    const now = await readState(req.http, run.clusterUrl, run.connector);
    const connectorState = now?.state;
    const recovery = recoveryAsBefore(attempted, now?.text, journal.initialStateText);
    const message = [
      failureHeadline({ operation: spec.operation, connector: run.connector, cancelledByUser, cancelledBecause: cancelledBecause(), failedStep: journal.lastFailedStep, currentStep: journal.currentStep, why }),
      describeRecovery(recovery, journal.stopStarted || Boolean(req.resume)),
      endStateSentence(now?.text, journal.initialStateText),
      recovery && !recovery.succeeded ? `Inspect with \`offsetctl runs show ${run.id}\`; undo with \`offsetctl rollback ${run.connector}\`.` : '',
      leftStoppedAdvice(run, now?.state, journal.initialState, recovery),
    ].filter(Boolean).join(' ');
    // A store that cannot write (a full disk) must not hide the account of the connector's state.
    // The run's message is for people (runs show): masked, like the journal's event details.
    const unrecorded = await store.finishRun(run.id, { status: 'failed', message: redactText(message), ...(connectorState ? { connectorState } : {}) })
      .then(() => '', (err: unknown) => ` ${unrecordedSentence(run, redactText((err as Error).message), recovery?.offsetsKept ? snapshotId : undefined)}`);
    return {
      ...base, status: 'failed', ...(snapshotId ? { snapshotId } : {}), ...(connectorState ? { connectorState } : {}),
      message: `${message}${unrecorded}`, warnings: journal.warnings, outputs: result.outputs, ...(failedStep ? { failedStep } : {}), ...(cancelledByUser ? { cancelled: true } : {}), ...(recovery ? { recovery } : {}),
    };
  } catch (err) {
    // The store failed once the connector was stopped (the team store's server gone, a full disk):
    // the run has an account (exit 1, "run failed"), never a refusal's exit 2 (issue 30).
    if ((journal?.stopStarted || req.resume) && (err as { code?: string }).code === 'E_STORE') {
      return afterStoreFailed(req, journal, err as Error, cancelledByUser);
    }
    // An unexpected error: once the connector was stopped it is
    // put back all the same (the recovery journals only as far as the store lets it).
    let recovery: RecoveryOutcome | undefined;
    if (journal?.stopStarted || req.resume) recovery = await recover(req, journal);
    const now = await readState(req.http, run.clusterUrl, run.connector);
    const during = journal?.currentStep ? ` (during step ${journal.currentStep})` : '';
    const account = [
      recovery ? describeRecovery(recovery, true) : journal?.stopStarted ? '' : 'Nothing had been changed yet.',
      leftStoppedAdvice(run, now?.state, journal?.initialState, recovery),
    ].filter(Boolean).join(' ');
    // The original error is the one to report, even when recording it fails too.
    await store.finishRun(run.id, { status: 'failed', message: redactText(`${(err as Error).message}${during} (connector ${now?.text ?? 'state unknown'})`), ...(now ? { connectorState: now.state } : {}) }).catch(() => undefined);
    // Never leave a connector in a state nobody was told about: the error says where it stands.
    if (err instanceof Error) err.message = `${err.message}${during}.${account ? ` ${account}` : ''} The connector is now ${now?.text ?? 'in an unknown state (Kafka Connect did not answer)'}.`;
    throw err;
  } finally {
    req.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * `runs resume` of a run that was cancelled or died during its recovery: the recovery is run
 * again (offsets from the run's snapshot where they may have changed, the state of before) and
 * the run recorded as failed — the change itself was never made. The outcome is the recovery's.
 */
export async function finishRecovery(req: OperationRun): Promise<OperationOutcome> {
  const { store, run, spec } = req;
  const base = { operation: spec.operation, connector: run.connector, clusterUrl: run.clusterUrl, runId: run.id };
  const before = typeof run.context.stateBefore === 'string' ? run.context.stateBefore : undefined;
  const recovery = await recover({ ...req, ...(before ? { initialState: before } : {}) }, undefined);
  const now = await readState(req.http, run.clusterUrl, run.connector);
  const why = run.context.cancelled ? 'was cancelled' : 'died while putting the connector back';
  const message = [
    `${spec.operation} of ${run.connector} ${why}; \`runs resume\` finished its recovery (the ${spec.operation} itself was not made).`,
    describeRecovery(recovery, true),
    endStateSentence(now?.text, before),
    leftStoppedAdvice(run, now?.state, before, recovery),
  ].filter(Boolean).join(' ');
  await store.finishRun(run.id, { status: 'failed', message: redactText(message), ...(now ? { connectorState: now.state } : {}) });
  return {
    ...base, status: recovery.succeeded ? 'succeeded' : 'failed', ...(run.context.snapshotId ? { snapshotId: run.context.snapshotId } : {}),
    ...(now ? { connectorState: now.state } : {}), message, warnings: [], recovery,
  };
}

/**
 * The store stopped taking the run's writes after the connector was stopped. Putting it back
 * needs Connect, not the store. A change Connect took and a read shows is kept, and the
 * connector brought to the state the plan said; anything else is undone from the snapshot this
 * process stored (its offsets are known here). The end is recorded if the store answers again
 * within a lease, else the account says so and which command frees the run's lock.
 */
async function afterStoreFailed(req: OperationRun, journal: RunJournal | undefined, err: Error, cancelledByUser: boolean): Promise<OperationOutcome> {
  const { store, run, spec } = req;
  const requested = offsetEntries(req.inputs.offsets ?? []);
  const changed = journal?.mutationPassed === true && !cancelledByUser && await readBackUntilMatch(req.http, run.clusterUrl, run.connector, requested,
    req.verifyTimeoutMs !== undefined ? { timeoutMs: req.verifyTimeoutMs } : {}).then((left) => left.length === 0, () => false);
  const planned = plannedEndState(req.inputs, journal?.initialState ?? req.initialState);
  const recovery = changed ? await recover({ ...req, keepChange: planned }, journal) : await recover(req, journal);
  const now = await readState(req.http, run.clusterUrl, run.connector);
  const snapshotId = journal?.snapshotId ?? stringOrUndefined(run.context.snapshotId);
  const account = [
    failureHeadline({
      operation: spec.operation, connector: run.connector, cancelledByUser,
      cancelledBecause: typeof req.signal?.reason === 'string' ? req.signal.reason : undefined, failedStep: undefined, currentStep: journal?.currentStep, why: redactText(err.message),
    }),
    changed ? changeKeptSentence(requested.length, recovery) : describeRecovery(recovery, true),
    endStateSentence(now?.text, changed ? undefined : journal?.initialStateText),
    leftStoppedAdvice(run, now?.state, changed ? planned : journal?.initialState, recovery),
  ].filter(Boolean).join(' ');
  const recorded = await store.finishRun(run.id, { status: 'failed', message: redactText(account), ...(now ? { connectorState: now.state } : {}) })
    .then(() => undefined, (e: unknown) => e as Error);
  const message = recorded ? `${account} ${unrecordedSentence(run, redactText(recorded.message), changed ? snapshotId : undefined)}` : account;
  return {
    operation: spec.operation, connector: run.connector, clusterUrl: run.clusterUrl, runId: run.id, status: 'failed',
    ...(snapshotId ? { snapshotId } : {}), ...(now ? { connectorState: now.state } : {}), message, warnings: journal?.warnings ?? [],
    ...(journal?.currentStep ? { failedStep: journal.currentStep } : {}), ...(cancelledByUser ? { cancelled: true } : {}), recovery,
  };
}

/** Where the plan leaves the connector: a rollback's `targetState`; `resumeAfter` never → STOPPED, always → RUNNING, else the state it had. */
function plannedEndState(inputs: Record<string, unknown>, before: string | undefined): TargetState {
  if (inputs.targetState === 'RUNNING' || inputs.targetState === 'PAUSED' || inputs.targetState === 'STOPPED') return inputs.targetState;
  return inputs.resumeAfter === 'never' ? 'STOPPED' : inputs.resumeAfter === 'always' ? 'RUNNING' : targetStateFor(before);
}

/** The recovery of a failed run; never throws (its failure is part of the account). */
async function recover(req: OperationRun & { keepChange?: TargetState }, journal: RunJournal | undefined): Promise<RecoveryOutcome> {
  try {
    return await recoverConnector({
      store: req.store, http: req.http, run: req.run, spec: req.spec, connectorType: req.connectorType, inputs: req.inputs,
      initialState: journal?.initialState ?? req.initialState, mutationStarted: journal?.mutationStarted ?? false, writeUnproven: journal?.safetyError?.code === 'E_VERIFY',
      mutationOutcomeUnknown: journal?.mutationOutcomeUnknown ?? false,
      ...(req.chunkSize ? { chunkSize: req.chunkSize } : {}),
      ...(req.verifyTimeoutMs !== undefined ? { verifyTimeoutMs: req.verifyTimeoutMs } : {}),
      ...(req.onProgress ? { onProgress: req.onProgress } : {}),
      ...(req.keepChange ? { keepChange: req.keepChange } : {}),
      ...(journal?.snapshotId && journal.capturedOffsets ? { known: { snapshotId: journal.snapshotId, snapshotOffsets: journal.capturedOffsets } } : {}),
    });
  } catch (err) {
    return { restoredOffsets: [], targetState: 'STOPPED', succeeded: false, offsetsWritten: false, error: (err as Error).message };
  }
}

async function readState(http: HttpSender, url: string, connector: string): Promise<{ state: string; text: string } | undefined> {
  try {
    const info = await getConnectorInfo(http, url, connector);
    return { state: info.state, text: describeState(info) };
  } catch {
    return undefined;
  }
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
