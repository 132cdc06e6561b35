import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ArazzoError, REFUSAL_CODES } from '../arazzo/errors.js';
import { OpsError } from '../ops/errors.js';
import { StoreError } from '../store/errors.js';
import { SandboxError } from '../sandbox/errors.js';
import { EXIT_STATUS, exitStatusFor, ReportedFailure } from './exit-status.js';

test('the table agrees with the engine\'s own list of refusals', () => {
  for (const code of REFUSAL_CODES) assert.equal(EXIT_STATUS[code], 2, code);
  assert.equal(exitStatusFor(new ArazzoError('E_HTTP', 'x')), 1);
});

test('exit status comes from the code alone, never from the message', () => {
  assert.equal(exitStatusFor(new OpsError('E_UNREACHABLE', 'GET http://x failed: connection refused')), 2);
  assert.equal(exitStatusFor(new OpsError('E_CONNECT_API', 'refused before anything changed')), 1);
  assert.equal(exitStatusFor(new StoreError('E_LOCKED', 'busy')), 2);
  assert.equal(exitStatusFor(new SandboxError('E_SANDBOX_DEMO', 'rewind failed')), 1);
  assert.equal(exitStatusFor(new ReportedFailure('E_RUN_FAILED')), 1);
  assert.equal(exitStatusFor(new Error('E_USAGE')), 1, 'an error without a code');
  assert.equal(exitStatusFor({ code: 'E_SOMETHING_NEW' }), 1, 'an unknown code');
});
