// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ArazzoError, type ArazzoHint } from '../arazzo/errors.js';
import { formatError } from './exit-status.js';
import { advisedResult, flagAdviceFor } from './flag-advice.js';

test('each engine hint becomes advice about the `workflow` commands\' own flags', () => {
  const advice = (hint: ArazzoHint) => flagAdviceFor(new ArazzoError('E_SOURCE', 'x', { hint }), 'workflow');
  assert.equal(advice({ kind: 'map-source', source: 'api' }), 'map it with --source api=<file>');
  assert.equal(advice({ kind: 'map-source' }), 'map it with --source <name>=<file>');
  assert.equal(advice({ kind: 'allow-remote', source: 'far' }), 'pass --allow-remote, or --source far=path/to/description.yaml');
  assert.equal(advice({ kind: 'set-server', source: 'api' }), 'pass --server api=http://host:port (or --server http://host:port for all sources)');
  assert.equal(advice({ kind: 'choose-workflow', ids: ['a', 'b'] }), 'choose one with --workflow <id>');
  assert.equal(advice({ kind: 'provide-input', names: ['connector'] }), 'pass it with --input connector=... or in --inputs <file>');
  assert.equal(advice({ kind: 'provide-input', names: ['a', 'b'] }), 'pass them with --input a=... --input b=... or in --inputs <file>');
  assert.equal(advice({ kind: 'raise-step-budget' }), 'raise it with --max-steps <n>');
  assert.equal(advice({ kind: 'unknown-source-name', given: 'server', name: 'typo' }), 'check --server typo=...');
});

test('only the `workflow` commands get workflow flag advice: rewind, reset and rollback show the neutral message', () => {
  const inner = new ArazzoError('E_REQUEST', 'source "api" (api.yaml) declares no servers; set a server for it', { hint: { kind: 'set-server', source: 'api' } });
  const err = new ArazzoError('E_SOURCE', inner.message, { cause: inner }); // the hint is found on the cause too
  assert.equal(formatError(err, { flagAdvice: 'workflow' }), 'error [E_SOURCE]: source "api" (api.yaml) declares no servers; set a server for it — pass --server api=http://host:port (or --server http://host:port for all sources)');
  for (const other of [formatError(err, { flagAdvice: 'connection' }), formatError(err, { flagAdvice: true }), formatError(err)]) {
    assert.equal(other, 'error [E_SOURCE]: source "api" (api.yaml) declares no servers; set a server for it');
  }
  assert.equal(flagAdviceFor(err, 'connection'), undefined);
});

test('a run result\'s errors carry their advice into every `workflow run` format', () => {
  const shown = advisedResult({
    workflowId: 'w', status: 'failed', outputs: {},
    steps: [],
    error: { code: 'E_STEP_BUDGET', message: 'step budget exhausted; raise the step budget (option maxSteps)', hint: { kind: 'raise-step-budget' } },
  });
  assert.equal(shown.error?.message, 'step budget exhausted; raise the step budget (option maxSteps) — raise it with --max-steps <n>');
  assert.equal(advisedResult({ workflowId: 'w', status: 'failed', outputs: {}, steps: [], error: { code: 'E_HTTP', message: 'refused' } }).error?.message, 'refused');
});
