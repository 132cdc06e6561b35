// The journal of a move, import or their undo: the run journal (src/ops/journal.ts: every event
// stored, the snapshot before the first change, the lock's run) fed with the events masked of
// the connector's secrets, plus what only a move knows — which write step ran and what it wrote,
// so the read-back is checked against exactly that.
import type { RunEvent } from '../../arazzo/index.js';
import { RunJournal, type JournalOptions } from '../run/index.js';
import { describeMismatches, findMismatches, offsetEntries, type OffsetEntry, type OffsetMismatch } from '../offsets/index.js';
import { maskDeep, secretForms } from './mask.js';

export interface MoveJournalOptions extends JournalOptions {
  /** The connector's literal secrets: never written down, in any form. */
  secrets: readonly string[];
  /** Write steps (their `alterMessage` output is checked for the framework-managed warning) and the read-back step. */
  writes: { steps: readonly string[]; verifyStep: string; verifyOutput: string };
  /** What a write step wrote: the step's request payload is not an output, so the journal is told. */
  written: (stepId: string, inputs: Record<string, unknown>, captured: OffsetEntry[] | undefined) => OffsetEntry[];
  /** The captured offsets of a resumed run (its capture step ran in the interrupted process). */
  captured?: OffsetEntry[];
}

export class MoveJournal {
  readonly inner: RunJournal;
  readonly #o: MoveJournalOptions;
  readonly #forms: string[];
  #inputs: Record<string, unknown>;
  #written: OffsetEntry[] | undefined;
  /** The write step that passed, and the create on the target. */
  wrote: string | undefined;
  created = false;
  /** The new connector's resume (or pause) was about to be sent: it may have run. */
  targetStarted = false;

  constructor(options: MoveJournalOptions) {
    this.#o = options;
    this.#forms = secretForms(options.secrets);
    this.#inputs = options.inputs;
    this.inner = new RunJournal({ ...options, inputs: maskDeep(options.inputs, this.#forms) });
  }

  get captured(): OffsetEntry[] | undefined {
    return this.inner.capturedOffsets ? offsetEntries(this.inner.capturedOffsets) : this.#o.captured;
  }

  readonly onEvent = async (event: RunEvent): Promise<void> => {
    if (event.type === 'workflow.started') this.#inputs = event.inputs;
    if (event.type === 'request.sent' && (event.stepId === 'resumeConnector' || event.stepId === 'pauseConnector')) this.targetStarted = true;
    await this.inner.onEvent(maskDeep(event, this.#forms));
    if (event.type !== 'step.finished' || event.status !== 'passed') return;
    if (event.stepId === 'createTarget' || event.stepId === 'replaceTargetConfig' || event.stepId === 'createConnector' || event.stepId === 'replaceConfig') this.created = true;
    const { writes } = this.#o;
    if (writes.steps.includes(event.stepId)) {
      this.wrote = event.stepId;
      this.#written = this.#o.written(event.stepId, this.#inputs, this.captured).filter((e) => e.offset !== null);
      const message = event.outputs.alterMessage;
      if (typeof message === 'string' && /framework-managed/i.test(message)) {
        this.inner.warnings.push(`Kafka Connect altered only the offsets it manages itself: "${message}"`);
      }
    }
    if (event.stepId === writes.verifyStep && this.#written) {
      let mismatches: OffsetMismatch[] = findMismatches(this.#written, offsetEntries(event.outputs[writes.verifyOutput]));
      // A read right after a write can be stale (a source's offsets topic is read back asynchronously).
      if (mismatches.length > 0 && this.#o.reverify) mismatches = await this.#o.reverify(this.#written).catch(() => mismatches);
      if (mismatches.length > 0) {
        this.inner.safetyError = { code: 'E_VERIFY', message: `the offsets read back on the target differ from the ones written: ${describeMismatches(mismatches)}` };
        this.#o.controller.abort();
      }
    }
  };

  flush(): Promise<void> {
    return this.inner.flush();
  }
}
