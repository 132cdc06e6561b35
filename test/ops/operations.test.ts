// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { OpsError } from '../../src/ops/errors.js';
import { RESET, REWIND, ROLLBACK, specFor } from '../../src/ops/workflows/operations.js';

test('each recorded operation maps to its own spec', () => {
  assert.equal(specFor('rewind'), REWIND);
  assert.equal(specFor('reset'), RESET);
  assert.equal(specFor('rollback'), ROLLBACK);
});

test('an operation the journal names but this version does not know is refused, not treated as a rollback', () => {
  for (const name of ['rewind-by-time', 'recovery', '', 'toString']) {
    assert.throws(() => specFor(name), (err: unknown) => err instanceof OpsError && err.code === 'E_PREFLIGHT' && err.message.includes(`"${name}"`), name);
  }
});
