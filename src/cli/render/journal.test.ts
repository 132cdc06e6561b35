// runs show: a long poll is its first attempt, one line for the attempts in between, and its last
// (issue 20, point 15: a 66 s wait for STOPPED printed ~2,400 lines).
// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { EventRecord } from '../../store/index.js';
import { journalLines } from './journal.js';

let seq = 0;
const at = (ms: number): string => new Date(Date.UTC(2026, 11, 1, 12, 0, 0) + ms).toISOString();
const ev = (ms: number, type: string, stepId: string | undefined, detail: Record<string, unknown>): EventRecord => ({ seq: ++seq, at: at(ms), type, ...(stepId ? { stepId } : {}), detail });

function pollAttempt(n: number, stopped: boolean): EventRecord[] {
  const t = n * 500;
  return [
    ev(t, 'step.started', 'waitForStopped', { attempt: n }),
    ev(t + 1, 'request.sent', 'waitForStopped', { method: 'GET', url: 'http://w1/connectors/c/status' }),
    ev(t + 20, 'response.received', 'waitForStopped', { status: 200 }),
    ev(t + 21, 'criterion.evaluated', 'waitForStopped', { passed: stopped, condition: "$response.body#/connector/state == 'STOPPED'" }),
    ...(stopped ? [] : [ev(t + 22, 'action.taken', 'waitForStopped', { action: { type: 'retry', name: 'pollUntilStopped' } })]),
    ev(t + 23, 'step.finished', 'waitForStopped', { status: stopped ? 'passed' : 'failed' }),
  ];
}

test('a poll of 132 attempts is its first attempt, one summary line and its last attempt', () => {
  const events = [ev(0, 'workflow.started', undefined, {}), ...Array.from({ length: 132 }, (_v, i) => pollAttempt(i + 1, i === 131)).flat(), ev(70_000, 'step.started', 'snapshotOffsets', { attempt: 1 })];
  const lines = journalLines(events);
  assert.equal(lines.length, 1 + 6 + 1 + 5 + 1, lines.join('\n'));
  const summary = lines.find((l) => l.includes('… attempts'));
  assert.match(summary ?? '', /… attempts 2–131 of waitForStopped \(130, 64\.5 s, .*\): 130 × 200, failed: \$response\.body#\/connector\/state == 'STOPPED'; every event in `runs show --output json`/);
  assert.match(lines.at(-2) ?? '', /step\.finished waitForStopped/);
});

test('a step that passed at once, or after two retries, is shown whole', () => {
  const events = [...pollAttempt(1, false), ...pollAttempt(2, false), ...pollAttempt(3, true)];
  assert.equal(journalLines(events).length, events.length);
});

test('a regex criterion of a shipped workflow says in words what was expected, the regex after it (issue 30, point 25)', () => {
  const tasks = String.raw`^\[\s*\]$`;
  const failedLine = journalLines([ev(0, 'criterion.evaluated', 'waitForStopped', { passed: false, type: 'regex', condition: tasks, context: '$response.body#/tasks' })])[0]!;
  assert.match(failedLine, /criterion\.evaluated waitForStopped failed: expected no tasks \(an empty task list\) \(regex \^\\\[\\s\*\\\]\$ on \$response\.body#\/tasks\)$/);
  const running = String.raw`^\[\s*\{(?![\s\S]*"state"\s*:\s*"(?!RUNNING"))`;
  assert.match(journalLines([ev(0, 'criterion.evaluated', 'waitForRunning', { passed: true, type: 'regex', condition: running, context: '$response.body#/tasks' })])[0]!,
    /passed: expected at least one task, and every task RUNNING \(regex /);
  // A journal written before the type and context were stored: the regex alone is still known.
  assert.match(journalLines([ev(0, 'criterion.evaluated', 's', { passed: false, condition: String.raw`^(?![\s\S]*"state"\s*:\s*"FAILED")` })])[0]!, /failed: expected no connector or task in state FAILED \(regex /);
  // A simple condition, or a regex of someone else's workflow, stays as written.
  assert.match(journalLines([ev(0, 'criterion.evaluated', 's', { passed: false, type: 'simple', condition: '$statusCode == 200' })])[0]!, /failed: \$statusCode == 200$/);
  assert.match(journalLines([ev(0, 'criterion.evaluated', 's', { passed: false, type: 'regex', condition: '^abc' })])[0]!, /failed: \^abc$/);
});
