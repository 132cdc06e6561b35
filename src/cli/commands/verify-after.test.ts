// --verify's flags, checked before anything changes (the watching itself: test/integration/verify-after.test.ts).
// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkVerifyFlags, durationMs } from './verify-after.js';

describe('--verify flags', () => {
  it('reads durations in s (default), ms, m, h between 1 s and 1 h', () => {
    assert.equal(durationMs('30'), 30_000);
    assert.equal(durationMs('30s'), 30_000);
    assert.equal(durationMs('2m'), 120_000);
    assert.equal(durationMs('1500ms'), 1500);
    assert.equal(durationMs('1h'), 3_600_000);
    for (const bad of ['soon', '0s', '500ms', '2h', '-5s', '']) assert.throws(() => durationMs(bad), { code: 'E_USAGE' }, bad);
  });

  it('refuses --rollback-on-failure alone, --verify in a batch or with --leave-stopped', () => {
    assert.equal(checkVerifyFlags({}, true), undefined);
    assert.equal(checkVerifyFlags({ verify: '10s' }, false), 10_000);
    assert.throws(() => checkVerifyFlags({ rollbackOnFailure: true }, false), /needs --verify/);
    assert.throws(() => checkVerifyFlags({ verify: '10s' }, true), /one connector at a time/);
    assert.throws(() => checkVerifyFlags({ verify: '10s', leaveStopped: true }, false), /--leave-stopped/);
  });
});
