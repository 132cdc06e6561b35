// The accounts of moves, copies and imports: the sentences their outcomes carry and their runs
// keep (`runs show` prints them long after the process that knew the facts is gone). Made here,
// as the single-cluster changes' are in ops/run/outcome-text.ts.
import type { UndoOutcome } from './undo-move.js';

export interface MoveFacts {
  mode: 'move' | 'copy';
  connector: string;
  targetName: string;
  fromUrl: string;
  toUrl: string;
}

export function moveDone(m: MoveFacts, state: string | undefined, sourceAfter: unknown, snapshotId: string | undefined): string {
  const left = m.mode === 'copy' ? `; the original ${m.connector} is back as it was on ${m.fromUrl}`
    : sourceAfter === 'stop' ? `; the original is left STOPPED on ${m.fromUrl} (--keep-source)` : `; it is deleted from ${m.fromUrl}`;
  return `${m.mode} of ${m.connector} to ${m.toUrl}${m.targetName !== m.connector ? ` as ${m.targetName}` : ''} done: it is ${state ?? 'in an unknown state'} there${left} (snapshot ${snapshotId}; undo with \`offsetctl rollback ${m.connector} --url ${m.fromUrl}\`)`;
}

export interface MoveFailure {
  cancelledByUser: boolean;
  failedStep: string | undefined;
  why: string;
  /** The original had been stopped: something was changed and undone (or not). */
  stopped: boolean;
  undo: UndoOutcome | undefined;
  runId: string;
  /** The original's state now, in words (`RUNNING`, `RUNNING with task 0 FAILED`), if it is there. */
  nowText: string | undefined;
}

export function moveFailed(m: MoveFacts, f: MoveFailure): string {
  const headline = f.cancelledByUser ? `${m.mode} of ${m.connector} cancelled by you during step ${f.failedStep ?? '?'}` : `${m.mode} of ${m.connector} failed${f.failedStep ? ` at step ${f.failedStep}` : ''}: ${f.why}`;
  const account = !f.stopped ? 'Nothing had been changed yet.'
    : f.undo?.succeeded ? `It was undone: ${f.undo.done.length > 0 ? f.undo.done.join('; ') : `${m.connector} needed nothing to be back as it was`}.`
      : `Undoing it failed: ${f.undo?.error ?? 'unknown'}. Inspect with \`offsetctl runs show ${f.runId}\`; undo it with \`offsetctl rollback ${m.connector} --url ${m.fromUrl}\`.`;
  return `${headline}. ${account} ${m.connector} on ${m.fromUrl} is now ${f.nowText ?? 'not there or in an unknown state'}.`;
}

export function moveUndone(m: MoveFacts, runId: string, undo: UndoOutcome): string {
  return undo.succeeded
    ? `${m.mode} of ${m.connector} (run ${runId}) undone: ${undo.done.length > 0 ? undo.done.join('; ') : 'it needed nothing to be back as it was'}; ${m.connector} is ${undo.sourceState ?? 'in an unknown state'} on ${m.fromUrl}`
    : `undoing the ${m.mode} of ${m.connector} (run ${runId}) failed: ${undo.error}${undo.done.length > 0 ? ` (done before: ${undo.done.join('; ')})` : ''}`;
}

export function importDone(connector: string, url: string, state: string | undefined, replaces: boolean): string {
  return `import of ${connector} done: it is ${state ?? 'in an unknown state'} on ${url}${replaces ? ' (it replaced the connector of that name)' : ''}; undo with \`offsetctl rollback ${connector}\``;
}

export interface ImportFailure {
  cancelled: boolean;
  failedStep: string | undefined;
  why: string;
  /** Nothing was created / what was created was deleted again / deleting it failed / it had replaced one. */
  left: { kind: 'nothing' } | { kind: 'deleted' } | { kind: 'not-deleted'; error: string | undefined } | { kind: 'replaced'; snapshotId: string | undefined };
}

export function importFailed(connector: string, f: ImportFailure): string {
  const account = f.left.kind === 'nothing' ? 'Nothing had been created.'
    : f.left.kind === 'deleted' ? 'The connector it had created was deleted again.'
      : f.left.kind === 'not-deleted' ? `Deleting the connector it had created failed (${f.left.error}): delete it with \`offsetctl rollback ${connector}\`.`
        : `${connector} had replaced the connector of that name: it is left STOPPED with the backup's configuration; its offsets of before are in snapshot ${f.left.snapshotId ?? '(none)'}.`;
  return `import of ${connector} ${f.cancelled ? `cancelled by you during step ${f.failedStep ?? '?'}` : `failed${f.failedStep ? ` at step ${f.failedStep}` : ''}: ${f.why}`}. ${account}`;
}

export function importUndone(connector: string, runId: string, url: string, deleted: { ok: boolean; error?: string; snapshotId?: string }): string {
  return deleted.ok ? `import of ${connector} (run ${runId}) undone: the connector is deleted from ${url} (its offsets are in snapshot ${deleted.snapshotId})` : `undoing the import of ${connector} failed: ${deleted.error}`;
}
