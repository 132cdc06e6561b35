// Real parts: none; the shipped workflow files read from disk.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { criterionWords } from './criteria-words.js';

const NO_TASK_RUNS = String.raw`^\[(?![\s\S]*"state"\s*:\s*"(?!UNASSIGNED"))`;
const workflows = join(import.meta.dirname, '..', '..', '..', '..', 'workflows');

test('a stopped connector\'s task list: empty, or only the UNASSIGNED statuses Connect keeps of a deleted connector of the same name', () => {
  const passes = (tasks: unknown[]): boolean => new RegExp(NO_TASK_RUNS).test(JSON.stringify(tasks));
  assert.equal(passes([]), true);
  // Seen on Kafka 4.4: deleted, created again STOPPED under the same name — this stays for good.
  assert.equal(passes([{ id: 0, state: 'UNASSIGNED', worker_id: '127.0.0.1:34439', version: null }]), true);
  for (const state of ['RUNNING', 'PAUSED', 'FAILED', 'RESTARTING']) {
    assert.equal(passes([{ id: 0, state: 'UNASSIGNED' }, { id: 1, state, worker_id: 'w' }]), false, state);
  }
  assert.equal(criterionWords({ type: 'regex', condition: NO_TASK_RUNS, context: '$response.body#/tasks' }), 'no task that runs (none listed, or only UNASSIGNED ones)');
});

test('every shipped workflow waits for a stopped connector\'s tasks with that criterion, not an empty list', () => {
  let seen = 0;
  for (const file of readdirSync(workflows).filter((f) => f.endsWith('.arazzo.yaml'))) {
    const doc = parse(readFileSync(join(workflows, file), 'utf8')) as { workflows: Array<{ steps: Array<{ stepId: string; successCriteria?: Array<{ context?: string; condition: string }> }> }> };
    for (const step of doc.workflows.flatMap((w) => w.steps)) {
      for (const c of step.successCriteria ?? []) {
        if (c.context !== '$response.body#/tasks' || c.condition.includes('RUNNING')) continue;
        assert.equal(c.condition, NO_TASK_RUNS, `${file} › ${step.stepId}`);
        seen++;
      }
    }
  }
  assert.ok(seen >= 9, `${seen} task-list criteria found`);
});
