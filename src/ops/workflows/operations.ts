// What ops needs to know about each shipped workflow: which step captures the snapshot, which
// step changes offsets, which output to verify. The order of the HTTP calls stays in the
// workflow documents; this is only the map from their step ids to the safety rules.
import type { Operation } from '../../store/index.js';
import type { WorkflowKind } from './workflow-files.js';
import { OpsError } from '../errors.js';

export interface OperationSpec {
  /** `recovery` is the restore run after a failure: its capture is not kept as a snapshot. */
  operation: Operation | 'recovery';
  workflow: WorkflowKind;
  /** Reads the state before anything changes. */
  initialStateStep: 'readInitialState';
  /** The step that sends stop: once it has started, a failure needs recovery. */
  stopStep: 'stopConnector';
  snapshotStep: string;
  snapshotOutput: string;
  /** Stored as a snapshot (flushed) before `mutatingStep` may start. */
  persistSnapshot: boolean;
  mutatingStep: string;
  /** Output of the mutating step holding Connect's message (for the framework-managed warning). */
  messageOutput: string;
  /** Read-back step whose output must match `inputs.offsets`. */
  verify?: { step: string; output: string };
  /** The polling step that waits for RUNNING: a failure there carries the failing task's trace. */
  waitForRunningStep: 'waitForRunning';
}

/** After the change: `auto` puts the connector back as it was, `always` resumes it, `never` leaves it STOPPED. */
export type ResumeAfter = 'auto' | 'always' | 'never';
export type TargetState = 'RUNNING' | 'PAUSED' | 'STOPPED';

const common = { initialStateStep: 'readInitialState', stopStep: 'stopConnector', waitForRunningStep: 'waitForRunning' } as const;

export const REWIND: OperationSpec = {
  ...common, operation: 'rewind', workflow: 'rewind',
  snapshotStep: 'captureOffsets', snapshotOutput: 'previousOffsets', persistSnapshot: true,
  mutatingStep: 'rewindOffsets', messageOutput: 'alterMessage',
  verify: { step: 'verifyOffsets', output: 'rewoundOffsets' },
};

export const RESET: OperationSpec = {
  ...common, operation: 'reset', workflow: 'reset',
  snapshotStep: 'snapshotOffsets', snapshotOutput: 'offsetsBeforeReset', persistSnapshot: true,
  mutatingStep: 'resetOffsets', messageOutput: 'resetMessage',
};

export const ROLLBACK: OperationSpec = {
  ...common, operation: 'rollback', workflow: 'restore',
  snapshotStep: 'captureOffsets', snapshotOutput: 'offsetsBeforeRestore', persistSnapshot: true,
  mutatingStep: 'restoreOffsets', messageOutput: 'alterMessage',
  verify: { step: 'verifyOffsets', output: 'restoredOffsets' },
};

export const RECOVERY: OperationSpec = { ...ROLLBACK, operation: 'recovery', persistSnapshot: false };

/** A consistent export (src/ops/move): the restore workflow with nothing to write — stop, snapshot, back to its state. */
export const EXPORT: OperationSpec = { ...ROLLBACK, operation: 'export' };

const SPECS: Partial<Record<Operation, OperationSpec>> = { rewind: REWIND, reset: RESET, rollback: ROLLBACK, export: EXPORT };

/** The spec of a recorded operation; anything else (a newer or damaged journal) is refused, never guessed. */
export function specFor(operation: string): OperationSpec {
  if (operation === 'move' || operation === 'copy' || operation === 'import') {
    throw new OpsError('E_PREFLIGHT', `a ${operation} run is finished by its own path: \`offsetctl runs resume <id>\` or \`offsetctl rollback <connector>\` with the offsetctl that knows ${operation}s`);
  }
  if (operation === 'replay') {
    // src/ops/replay: a signal sent, rows awaited; no offset changed, so nothing to finish or undo.
    throw new OpsError('E_PREFLIGHT', 'a replay run changes no offset, so an interrupted one is not resumed: free its lock with '
      + '`offsetctl runs abandon <id> --reason …` and run `offsetctl replay` again (the signal may have been sent: rows may come twice)');
  }
  if (!Object.hasOwn(SPECS, operation)) {
    throw new OpsError('E_PREFLIGHT', `the journal records an operation "${operation}" this offsetctl does not know (known: ${Object.keys(SPECS).join(', ')}); use the offsetctl version that started the run, or undo it with \`offsetctl rollback\``);
  }
  return SPECS[operation as Operation] as OperationSpec;
}

/**
 * The state to bring a connector back to: RUNNING and PAUSED are restored as such; anything
 * else (STOPPED, FAILED, UNASSIGNED, ...) leaves it STOPPED, since resuming a connector that
 * was not running is the operator's call (`--resume`).
 */
export function targetStateFor(stateBefore: string | undefined): TargetState {
  const s = (stateBefore ?? '').toUpperCase();
  return s === 'RUNNING' ? 'RUNNING' : s === 'PAUSED' ? 'PAUSED' : 'STOPPED';
}
