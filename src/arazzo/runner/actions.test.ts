// Real parts: none (the code under test, in this process).
import { describe, it } from 'node:test';
import { strict as assert } from 'node:assert';
import { retryDelayMs } from './actions.js';

describe('retry delays', () => {
  it('uses retryAfter seconds, fractions included', () => {
    assert.deepEqual(retryDelayMs(0.25, {}), { ms: 250, from: 'retryAfter' });
    assert.deepEqual(retryDelayMs(undefined, undefined), { ms: 0, from: 'none' });
  });

  it('lets a Retry-After header win, in seconds or as an HTTP date', () => {
    assert.deepEqual(retryDelayMs(10, { 'retry-after': '2' }), { ms: 2000, from: 'Retry-After header' });
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.deepEqual(retryDelayMs(10, { 'Retry-After': 'Thu, 01 Jan 2026 00:00:03 GMT' }, now), { ms: 3000, from: 'Retry-After header' });
    assert.deepEqual(retryDelayMs(10, { 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }, now), { ms: 0, from: 'Retry-After header' });
    assert.deepEqual(retryDelayMs(1, { 'retry-after': 'soon' }), { ms: 1000, from: 'retryAfter' });
  });
});
