// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { progressPrinter } from './progress.js';

/** The lines the printer writes to stderr for these events. */
function printed(events: unknown[]): string[] {
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string) => { lines.push(String(chunk)); return true; }) as typeof process.stderr.write;
  try {
    const print = progressPrinter(() => undefined);
    for (const e of events) print(e as never);
  } finally {
    process.stderr.write = write;
  }
  return lines.join('').split('\n').filter(Boolean);
}

test('a step its failure action handled by going on (createTarget finding the connector there on resume) is not shown as failed (issue 30, point 16)', () => {
  const lines = printed([
    { type: 'action.taken', workflowId: 'move', stepId: 'createTarget', action: { name: 'replaceExistingTarget', type: 'goto', stepId: 'stopExistingTarget' }, reason: 'onFailure' },
    { type: 'step.finished', workflowId: 'move', stepId: 'createTarget', status: 'failed', outputs: {} },
    { type: 'step.finished', workflowId: 'move', stepId: 'stopExistingTarget', status: 'passed', outputs: {} },
    { type: 'step.finished', workflowId: 'move', stepId: 'writeOffsets', status: 'failed', outputs: {}, error: { message: 'HTTP 500' } },
  ]);
  assert.deepEqual(lines, ['  ↷ createTarget: handled by replaceExistingTarget, on to stopExistingTarget (ok)', '  ✓ stopExistingTarget', '  ✗ writeOffsets: HTTP 500']);
});
