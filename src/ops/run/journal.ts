// The runner's event listener for an ops run. The runner awaits it, and it awaits the store, so
// everything written here is durable (see Store) before the runner moves on: in particular the
// snapshot is stored before the step that alters offsets starts.
// It also enforces the safety rules the workflow cannot express itself: no mutation without a
// stored snapshot, and read-back verification against the requested offsets.
import type { RunEvent } from '../../arazzo/index.js';
import { redactAndClip, redactValue } from '../../http/redact.js';
import type { HttpSender } from '../../http/client.js';
import type { EventRecord, RunRecord, Store } from '../../store/index.js';
import { describeMismatches, findMismatches, offsetEntries, type OffsetEntry, type OffsetMismatch } from '../offsets/index.js';
import type { OperationSpec } from '../workflows/index.js';
import { stateTextBefore } from './failure-text.js';

const BODY_LIMIT = 2000;

/**
 * The events that are written at once, with those held back since: a request is on disk before
 * it leaves, and a step's outcome with it. The rest of a step (its start, the answer, each
 * criterion, the action taken) waits for the next of these, so a poll costs two transactions,
 * not eight: a rewind journals ~500 events, and one transaction each was most of offsetctl's own
 * CPU time while it waited for Kafka Connect (BENCHMARKS.md, figure 5). Recovery and resume read
 * the steps and the run context, which are written at once as before, never these events.
 */
const FLUSH_ON: ReadonlySet<string> = new Set(['request.sent', 'step.finished', 'workflow.finished']);

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

export interface JournalOptions {
  store: Store;
  run: RunRecord;
  spec: OperationSpec;
  connectorType: 'source' | 'sink';
  inputs: Record<string, unknown>;
  /** Cancels the run when a safety rule is broken. */
  controller: AbortController;
  /** Known already when an interrupted run is resumed. */
  initialState?: string;
  onProgress?: (event: RunEvent) => void;
  /** Awaited before each step of the operation's own run starts (not the recovery's): a face's test hooks. */
  beforeStep?: (stepId: string, runId: string) => Promise<void>;
  /**
   * Reads the offsets again, for a bounded time, until they show `requested`; returns what still
   * differs. Called when the workflow's read-back differs, before the run is failed for it.
   */
  reverify?: (requested: OffsetEntry[]) => Promise<OffsetMismatch[]>;
}

export class RunJournal {
  readonly #o: JournalOptions;
  initialState: string | undefined;
  /** `RUNNING with task 0 FAILED`: the state and tasks read at the start, to compare the end with. */
  initialStateText: string | undefined;
  snapshotId: string | undefined;
  /** The offsets the snapshot step read (for any spec, stored or not). */
  capturedOffsets: unknown[] | undefined;
  stopStarted = false;
  mutationStarted = false;
  /** The change step answered with success. */
  mutationPassed = false;
  /**
   * The last change request got an answer (any status): without one (a connection reset, a
   * timeout) it may have been applied, and what a read shows right after can be stale.
   */
  #mutationAnswered = false;
  /** Why the journal cancelled the run, when it did. */
  safetyError: { code: string; message: string } | undefined;
  readonly warnings: string[] = [];
  /** Last response body per step, to explain a failure (a FAILED task's trace). */
  readonly lastResponses = new Map<string, { status: number; body: unknown }>();
  /** The last step that failed for good (a failed attempt the workflow retries is not a failure). */
  lastFailedStep: string | undefined;
  /** The step running (or last started): where a cancelled run stood. */
  currentStep: string | undefined;
  #retrying: string | undefined;
  /** The snapshot step passed but the store did not take its snapshot. */
  #snapshotNotStored = false;
  /** Events not yet written (see FLUSH_ON). */
  #pending: Array<Omit<EventRecord, 'seq'>> = [];
  /** The inputs of the workflow run in progress (a chunked write runs the workflow once per chunk). */
  #inputs: Record<string, unknown>;

  constructor(options: JournalOptions) {
    this.#o = options;
    this.initialState = options.initialState;
    this.#inputs = options.inputs;
  }

  readonly onEvent = async (event: RunEvent): Promise<void> => {
    const { store, run, spec } = this.#o;
    if (event.type === 'workflow.started') this.#inputs = event.inputs;
    if (event.type === 'step.started') {
      this.currentStep = event.stepId;
      if (spec.operation !== 'recovery' && event.attempt === 1) await this.#o.beforeStep?.(event.stepId, run.id);
      if (event.stepId === spec.stopStep) this.stopStarted = true;
      if (event.stepId === spec.mutatingStep && event.attempt === 1) await this.#beforeMutation();
      if (event.stepId === spec.mutatingStep) this.#mutationAnswered = false;
    }
    this.#pending.push({ at: event.at, type: event.type, ...('stepId' in event ? { stepId: event.stepId } : {}), detail: redactValue(summarize(event)) });
    if (FLUSH_ON.has(event.type)) await this.flush();
    if (event.type === 'action.taken' && event.action.type === 'retry') this.#retrying = event.stepId;
    if (event.type === 'response.received') {
      this.lastResponses.set(event.stepId, { status: event.status, body: event.body });
      // Connect's 500 "Request timed out" is no answer either: the herder may still apply the change.
      if (event.stepId === spec.mutatingStep) this.#mutationAnswered = !(event.status === 500 && /timed out/i.test(JSON.stringify(event.body ?? '')));
    }
    if (event.type === 'step.finished') {
      // The outputs are replayed by resume and verification: real values. The error is for people: masked.
      await store.recordStep(run.id, { workflowId: event.workflowId, stepId: event.stepId, status: event.status, outputs: event.outputs, ...(event.error ? { error: redactValue(event.error) } : {}), finishedAt: event.at });
      if (event.status === 'passed') await this.#afterStep(event.stepId, event.outputs);
      else if (this.#retrying !== event.stepId) this.lastFailedStep = event.stepId;
      this.#retrying = undefined;
      // A snapshot step whose snapshot was not stored is not shown as passed.
      if (this.#snapshotNotStored && event.stepId === spec.snapshotStep) return;
    }
    this.#o.onProgress?.(event);
  };

  /** The change step started and its last request got no answer: it may have been applied, whatever a read shows now. */
  get mutationOutcomeUnknown(): boolean {
    return this.mutationStarted && !this.#mutationAnswered;
  }

  /** Writes the events held back, in one transaction; the run's owner calls it when the workflow ends. */
  async flush(): Promise<void> {
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    await this.#o.store.recordEvents(this.#o.run.id, batch);
  }

  async #beforeMutation(): Promise<void> {
    const { store, run, spec, controller } = this.#o;
    if (spec.persistSnapshot && !this.snapshotId && !run.context.snapshotId) {
      this.safetyError = { code: 'E_NO_SNAPSHOT', message: `refusing to run ${spec.mutatingStep}: no snapshot was stored before it` };
      controller.abort();
      return;
    }
    // Recorded before the change may start (a resume or rollback must know offsets may have
    // moved); a store that cannot take it (unreachable, or the team store's lease lost to another
    // process: the fence) stops the run here, before any request changes offsets.
    try {
      await store.updateRunContext(run.id, { offsetsMayHaveChanged: true });
    } catch (err) {
      this.safetyError = { code: 'E_STORE', message: `refusing to run ${spec.mutatingStep}: the store did not record it first (${(err as Error).message})` };
      controller.abort();
      return;
    }
    this.mutationStarted = true;
  }

  async #afterStep(stepId: string, outputs: Record<string, unknown>): Promise<void> {
    const { store, run, spec, connectorType, controller } = this.#o;
    if (stepId === spec.initialStateStep && typeof outputs.initialState === 'string') {
      this.initialState = outputs.initialState;
      this.initialStateText = stateTextBefore(outputs.initialState, outputs.initialTasks);
      // The state before the run; a recovery's own first read (the STOPPED the run left) is not it.
      if (spec.operation !== 'recovery') await store.updateRunContext(run.id, { stateBefore: outputs.initialState });
    }
    if (stepId === spec.snapshotStep) {
      this.capturedOffsets = offsetEntries(outputs[spec.snapshotOutput]);
      if (spec.persistSnapshot) {
        // A snapshot the store did not take (a lost connection, a statement timeout, a full disk)
        // stops the run before its change step, with the store's own words.
        try {
          const snapshot = await store.saveSnapshot({
            runId: run.id, clusterUrl: run.clusterUrl, clusterKey: run.clusterKey, connector: run.connector, connectorType,
            // A rollback taking over a crashed run records the state before the crash (not the STOPPED it left behind).
            stateBefore: stringOr(run.context.stateBeforeInterruption, this.initialState ?? 'UNKNOWN'), offsets: this.capturedOffsets,
          });
          this.snapshotId = snapshot.id;
          await store.updateRunContext(run.id, { snapshotId: snapshot.id });
        } catch (err) {
          this.safetyError = { code: 'E_NO_SNAPSHOT', message: `the snapshot could not be stored, so ${spec.mutatingStep} does not start: ${(err as Error).message}` };
          // The step's work is not done until its snapshot is stored: it is the step that failed.
          this.lastFailedStep = stepId;
          this.#snapshotNotStored = true;
          controller.abort();
        }
      }
    }
    if (stepId === spec.mutatingStep) {
      this.mutationPassed = true;
      const message = outputs[spec.messageOutput];
      if (typeof message === 'string' && /framework-managed/i.test(message)) {
        this.warnings.push(`Kafka Connect altered only the offsets it manages itself: "${message}"`);
      }
    }
    if (spec.verify && stepId === spec.verify.step) {
      const requested = offsetEntries(this.#inputs.offsets ?? []);
      let mismatches = findMismatches(requested, offsetEntries(outputs[spec.verify.output]));
      // A read right after a write can be stale: only a difference that persists is a mismatch.
      if (mismatches.length > 0 && this.#o.reverify) mismatches = await this.#o.reverify(requested).catch(() => mismatches);
      if (mismatches.length > 0) {
        this.safetyError = { code: 'E_VERIFY', message: `the offsets read back differ from the ones written: ${describeMismatches(mismatches)}` };
        controller.abort();
      }
    }
  }
}

/**
 * What the journal keeps of an event: enough to follow the run, bodies cut short. This is the
 * journal's display side, so secrets are masked here; the steps' outputs and the snapshot, which
 * resume and verification replay, keep the real values.
 */
function summarize(event: RunEvent): Record<string, unknown> {
  switch (event.type) {
    case 'workflow.started':
      return { workflowId: event.workflowId, inputs: summarizeInputs(event.inputs) };
    case 'step.started':
      return { workflowId: event.workflowId, attempt: event.attempt };
    case 'request.sent':
      return { method: event.method, url: event.url, headers: event.headers, ...(event.body === undefined ? {} : { body: cut(event.body) }) };
    case 'response.received':
      return { status: event.status, durationMs: Math.round(event.durationMs), ...workerOf(event.headers), ...(event.body === undefined ? {} : { body: cut(typeof event.body === 'string' ? event.body : JSON.stringify(event.body)) }) };
    case 'criterion.evaluated':
      return {
        source: event.source, passed: event.result.passed, type: event.result.type, condition: event.result.condition,
        ...(event.result.context ? { context: event.result.context } : {}), ...(event.result.message ? { message: event.result.message } : {}),
      };
    case 'action.taken':
      return { action: event.action, reason: event.reason };
    case 'step.finished':
      return { workflowId: event.workflowId, status: event.status, ...(event.error ? { error: event.error } : {}) };
    case 'workflow.finished':
      return { workflowId: event.workflowId, status: event.status, ...(event.error ? { error: event.error } : {}) };
  }
}

/**
 * Which worker answered, when the connection has several (src/http/failover.ts sets the header),
 * and what was retried before this answer (src/http/forward-retry.ts).
 */
function workerOf(headers: Record<string, string | string[]>): { worker?: string; retries?: string } {
  const worker = headers['x-offsetctl-worker'];
  const retries = headers['x-offsetctl-retries'];
  return { ...(typeof worker === 'string' ? { worker } : {}), ...(typeof retries === 'string' ? { retries } : {}) };
}

function summarizeInputs(inputs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(inputs)) out[k] = Array.isArray(v) ? `[${v.length} entries]` : v;
  return out;
}

/** Masked, then cut: a cut through an echoed secret would leave its start unmasked. */
function cut(text: string): string {
  return text.length <= BODY_LIMIT ? text : `${redactAndClip(text, BODY_LIMIT)} (${text.length} characters)`;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}
