// Running one journaled operation: the workflow with the journal listening, then either the
// success record or, for a failure after the stop, the recovery; the lock is released and the
// run's outcome recorded in every case (a crash leaves it `running`, which reads `interrupted`).
import type { HttpSender } from '../http/client.js';
import type { RunRecord, Store } from '../store/index.js';
import type { ResumePoint, RunEvent } from '../arazzo/index.js';
import { runWorkflowInChunks } from './chunked-write.js';
import { getConnectorInfo } from './connect-client.js';
import { describeFailure, describeState } from './failure-text.js';
import { RunJournal } from './journal.js';
import type { OperationSpec } from './operations.js';
import { endStateSentence, failureHeadline, recoveryAsBefore } from './outcome-text.js';
import { recoverConnector, type RecoveryOutcome } from './recover.js';
import type { PositionTargets } from './positions-targets.js';
import { readBackUntilMatch } from './verify-read.js';
import { loadOpsWorkflow } from './workflow-files.js';

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
}

/** What a journaled workflow run works with (the operation's own run, and its recovery). */
export interface RunParts {
  store: Store;
  http: HttpSender;
  run: RunRecord;
  spec: OperationSpec;
  connectorType: 'source' | 'sink';
  inputs: Record<string, unknown>;
  onProgress?: (event: RunEvent) => void;
}

export interface OperationRun extends RunParts {
  resume?: ResumePoint;
  initialState?: string;
  /** Cancels the run (the face's Ctrl-C); a cancelled run after the stop is recovered like a failed one. */
  signal?: AbortSignal;
  beforeStep?: (stepId: string, runId: string) => Promise<void>;
  /** Partitions per PATCH (src/ops/limits.ts); a larger set is written chunk by chunk. */
  chunkSize?: number;
  onChunk?: (index: number, total: number, size: number) => void;
  /** How long a read-back may take to show a write before it is a mismatch (src/ops/verify-read.ts). */
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
  };
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
      const message = `${spec.operation} of ${run.connector} done; the connector is ${connectorState ?? 'in an unknown state'}${leftStopped}` +
        (snapshotId ? ` (snapshot ${snapshotId}; undo with \`offsetctl rollback ${run.connector} --snapshot ${snapshotId}\`)` : '');
      await store.finishRun(run.id, { status: 'succeeded', message, ...(connectorState ? { connectorState } : {}) });
      return { ...base, status: 'succeeded', ...(snapshotId ? { snapshotId } : {}), ...(connectorState ? { connectorState } : {}), message, warnings: journal.warnings, outputs: result.outputs };
    }

    const why = describeFailure(result, journal);
    const failedStep = cancelledByUser ? journal.currentStep : journal.lastFailedStep ?? journal.currentStep;
    const attempted = journal.stopStarted || req.resume ? await recover(req, journal) : undefined;
    const now = await readState(req.http, run.clusterUrl, run.connector);
    const connectorState = now?.state;
    const recovery = recoveryAsBefore(attempted, now?.text, journal.initialStateText);
    const message = [
      failureHeadline({ operation: spec.operation, connector: run.connector, cancelledByUser, failedStep: journal.lastFailedStep, currentStep: journal.currentStep, why }),
      describeRecovery(recovery, journal.stopStarted || Boolean(req.resume)),
      endStateSentence(now?.text, journal.initialStateText),
      recovery && !recovery.succeeded ? `Inspect with \`offsetctl runs show ${run.id}\`; undo with \`offsetctl rollback ${run.connector}\`.` : '',
      leftStoppedAdvice(run, now?.state, journal.initialState, recovery),
    ].filter(Boolean).join(' ');
    // A store that cannot write (a full disk) must not hide the account of the connector's state.
    const unrecorded = await store.finishRun(run.id, { status: 'failed', message, ...(connectorState ? { connectorState } : {}) })
      .then(() => '', (err: unknown) => ` The run's end could not be recorded in the state store: ${(err as Error).message}.`);
    return {
      ...base, status: 'failed', ...(snapshotId ? { snapshotId } : {}), ...(connectorState ? { connectorState } : {}),
      message: `${message}${unrecorded}`, warnings: journal.warnings, outputs: result.outputs, ...(failedStep ? { failedStep } : {}), ...(cancelledByUser ? { cancelled: true } : {}), ...(recovery ? { recovery } : {}),
    };
  } catch (err) {
    // An unexpected error (a full disk while journaling): once the connector was stopped it is
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
    await store.finishRun(run.id, { status: 'failed', message: `${(err as Error).message}${during} (connector ${now?.text ?? 'state unknown'})`, ...(now ? { connectorState: now.state } : {}) }).catch(() => undefined);
    // Never leave a connector in a state nobody was told about: the error says where it stands.
    if (err instanceof Error) err.message = `${err.message}${during}.${account ? ` ${account}` : ''} The connector is now ${now?.text ?? 'in an unknown state (Kafka Connect did not answer)'}.`;
    throw err;
  } finally {
    req.signal?.removeEventListener('abort', onAbort);
  }
}

/** The recovery of a failed run; never throws (its failure is part of the account). */
async function recover(req: OperationRun, journal: RunJournal | undefined): Promise<RecoveryOutcome> {
  try {
    return await recoverConnector({
      store: req.store, http: req.http, run: req.run, spec: req.spec, connectorType: req.connectorType, inputs: req.inputs,
      initialState: journal?.initialState ?? req.initialState, mutationStarted: journal?.mutationStarted ?? false, writeUnproven: journal?.safetyError?.code === 'E_VERIFY',
      ...(req.chunkSize ? { chunkSize: req.chunkSize } : {}),
      ...(req.verifyTimeoutMs !== undefined ? { verifyTimeoutMs: req.verifyTimeoutMs } : {}),
      ...(req.onProgress ? { onProgress: req.onProgress } : {}),
    });
  } catch (err) {
    return { restoredOffsets: [], targetState: 'STOPPED', succeeded: false, offsetsWritten: false, error: (err as Error).message };
  }
}

/** A connector left STOPPED that was not STOPPED before: say so, with the exact command that brings it back. */
function leftStoppedAdvice(run: RunRecord, now: string | undefined, before: string | undefined, recovery: RecoveryOutcome | undefined): string {
  if (now !== 'STOPPED' || before === 'STOPPED' || (recovery?.succeeded && recovery.targetState === 'STOPPED')) return '';
  const verb = before === 'PAUSED' ? 'pause' : 'resume';
  return `THE CONNECTOR IS LEFT STOPPED: bring it back with \`offsetctl ${verb} ${run.connector} --url ${run.clusterUrl}\`${verb === 'pause' ? ' (it was PAUSED before)' : ''}.`;
}

function describeRecovery(recovery: RecoveryOutcome | undefined, stopped: boolean): string {
  if (!stopped) return 'Nothing had been changed yet.';
  if (!recovery) return '';
  const offsets = recovery.offsetsKept
    ? 'The offsets read back as written after all, so they were kept (not undone).'
    : recovery.offsetsUnrecoverable
    ? 'Offsets may have changed but no snapshot was stored, so they could not be restored.'
    : recovery.offsetsUnchanged
      ? `Offsets had not changed (they still match snapshot ${recovery.snapshotId}).`
      : recovery.restoredOffsets.length === 0
        ? 'Offsets had not been changed.'
        : recovery.offsetsWritten
          ? `Offsets of ${recovery.restoredOffsets.length} partition(s) were written back from snapshot ${recovery.snapshotId}.`
          : `Writing back the offsets of ${recovery.restoredOffsets.length} partition(s) from snapshot ${recovery.snapshotId} did not succeed.`;
  const unjournaled = recovery.journalError ? ` The recovery could not be journaled (${recovery.journalError}), so \`offsetctl runs show\` lacks its steps.` : '';
  return recovery.succeeded
    ? `Recovery put the connector back (${recovery.targetState}). ${offsets}${unjournaled}`
    : `Recovery failed: ${recovery.error}. ${offsets}${unjournaled}`;
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
