// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { describeFailure } from './failure-text.js';

test('a failed regex criterion of a shipped workflow is told in words in the run\'s account (issue 30, point 25)', () => {
  const condition = String.raw`^\[\s*\]$`;
  const result = {
    status: 'failed', outputs: {}, steps: [{
      stepId: 'waitForStopped', status: 'failed',
      failedCriteria: [{ passed: false, type: 'regex', condition, context: '$response.body#/tasks', message: `${condition}: no match in "[{\\"id\\":0}]"` }],
    }],
  } as never;
  const text = describeFailure(result, { safetyError: undefined, lastResponses: new Map() });
  assert.equal(text, String.raw`expected no tasks (an empty task list) (regex ^\[\s*\]$ on $response.body#/tasks): no match in "[{\"id\":0}]"`);
});
