// The replay room's pure parts: an interrupted replay run is not resumed (no offset to finish).
// Planning against a real Debezium connector: test/integration/replay-debezium.test.ts.
// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { it } from 'node:test';
import { specFor } from '../workflows/index.js';

it('runs resume of a replay run is refused, saying to abandon it and replay again', () => {
  assert.throws(() => specFor('replay'), (err: Error & { code?: string }) =>
    err.code === 'E_PREFLIGHT' && /changes no offset, so an interrupted one is not resumed: free its lock with `offsetctl runs abandon/.test(err.message));
});
