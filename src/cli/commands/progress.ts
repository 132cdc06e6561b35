// The progress lines of a running change, on stderr: shared by the changes of ops.ts and the
// moves, copies, exports and imports of move.ts.
import type { OpsEvent } from '../../ops/index.js';
import { stderr } from './say.js';
import { currentIO } from '../io.js';

/**
 * One stderr line per finished step and per step that failed for good (`↷` for one whose failure
 * action handled it and went on to another step: not a failure). A polling wait shows its
 * elapsed time and attempt count: rewritten in place on a terminal, else a line when the wait
 * starts and then every 5 s, so a long wait never looks frozen. Chunk progress is a human line
 * like the plan (stdout in text, stderr with --output json).
 */
export function progressPrinter(info: (text: string) => unknown): (event: OpsEvent) => void {
  let waiting = '';
  let retrying = '';
  // A failed step whose failure action goes on to another step (createTarget finding the connector
  // there already, from the interrupted run being resumed): handled, not a failure.
  let handled: { stepId: string; name: string; next: string | undefined } | undefined;
  let since = 0;
  let attempts = 0;
  let nextLineAt = 0;
  let drawn = false;
  const tty = currentIO().stderr.isTTY === true;
  const clear = () => {
    if (drawn) stderr('\r\x1b[2K');
    drawn = false;
  };
  return (event) => {
    if (event.type === 'ops.chunk') info(`writing chunk ${event.index}/${event.total} (${event.size} partitions)`);
    if (event.type === 'workflow.started') stderr(`workflow ${event.workflowId}\n`);
    if (event.type === 'action.taken' && event.action.type === 'retry') {
      retrying = event.stepId;
      if (waiting !== event.stepId) {
        since = performance.now();
        attempts = 0;
        nextLineAt = 0;
      }
      attempts += 1;
      waiting = event.stepId;
      const elapsed = performance.now() - since;
      const line = `  … ${event.stepId}: waiting (${event.action.name}), ${(elapsed / 1000).toFixed(1)} s, attempt ${attempts}`;
      if (tty) {
        stderr(`\r\x1b[2K${line}`);
        drawn = true;
      } else if (elapsed >= nextLineAt) {
        stderr(`${line}\n`);
        nextLineAt = elapsed + 5000;
      }
    }
    if (event.type === 'action.taken' && event.action.type === 'goto' && /^(onFailure|failureActions)/.test(event.reason)) {
      handled = { stepId: event.stepId, name: event.action.name, next: event.action.stepId ?? event.action.workflowId };
    }
    if (event.type === 'step.finished') {
      clear();
      if (event.status === 'passed') stderr(`  ✓ ${event.stepId}\n`);
      else if (handled?.stepId === event.stepId) {
        stderr(`  ↷ ${event.stepId}: handled by ${handled.name}${handled.next ? `, on to ${handled.next}` : ''} (ok)\n`);
      }
      else if (retrying !== event.stepId) stderr(`  ✗ ${event.stepId}${event.error ? `: ${event.error.message}` : ''}\n`);
      handled = undefined;
      if (event.status === 'passed') waiting = '';
      retrying = '';
    }
  };
}
