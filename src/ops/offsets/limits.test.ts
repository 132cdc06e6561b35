// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { DEFAULT_LIMITS, planChunks, resolveLimits, checkPartitionCount } from './limits.js';
import { changesNothing } from '../plan/empty-change.js';
import { diffOffsets } from './diff.js';

test('limits: flag over environment over default; anything but a positive whole number is a usage error', () => {
  assert.deepEqual(resolveLimits({}, {}), DEFAULT_LIMITS);
  assert.equal(resolveLimits({}, { OFFSETCTL_CHUNK_SIZE: '500' }).chunkSize, 500);
  assert.equal(resolveLimits({ chunkSize: '20' }, { OFFSETCTL_CHUNK_SIZE: '500' }).chunkSize, 20);
  assert.throws(() => resolveLimits({ maxPartitions: '0' }, {}), /--max-partitions must be a positive whole number/);
  assert.throws(() => resolveLimits({}, { OFFSETCTL_MAX_OFFSETS_BYTES: '1e3x' }), /OFFSETCTL_MAX_OFFSETS_BYTES must be/);
  assert.throws(() => checkPartitionCount(11, { ...DEFAULT_LIMITS, maxPartitions: 10 }, 'f.json'), (e: Error & { code?: string }) => e.code === 'E_PREFLIGHT' && /f\.json has 11 partitions, above the limit of 10/.test(e.message));
  assert.doesNotThrow(() => checkPartitionCount(10, { ...DEFAULT_LIMITS, maxPartitions: 10 }, 'f.json'));
});

test('planChunks: consecutive slices that add up to the whole, one slice when it fits', () => {
  const list = Array.from({ length: 2501 }, (_v, i) => i);
  const chunks = planChunks(list, 1000);
  assert.deepEqual(chunks.map((c) => c.length), [1000, 1000, 501]);
  assert.deepEqual(chunks.flat(), list);
  assert.deepEqual(planChunks([1, 2], 1000), [[1, 2]]);
  assert.deepEqual(planChunks([], 1000), [[]]);
});

test('changesNothing: an empty diff is no change unless the run would move the connector to another state', () => {
  const same = diffOffsets({ offsets: [{ partition: { f: 'a' }, offset: { position: 1 } }] }, [{ partition: { f: 'a' }, offset: { position: 1 } }]);
  const differs = diffOffsets({ offsets: [{ partition: { f: 'a' }, offset: { position: 1 } }] }, [{ partition: { f: 'a' }, offset: { position: 2 } }]);
  assert.equal(changesNothing(same, { now: 'RUNNING', resumeAfter: 'auto' }), true);
  assert.equal(changesNothing(same, { now: 'PAUSED', resumeAfter: 'always' }), false);
  assert.equal(changesNothing(same, { now: 'RUNNING', resumeAfter: 'never' }), false);
  assert.equal(changesNothing(same, { now: 'FAILED', resumeAfter: 'auto' }), false);
  assert.equal(changesNothing(differs, { now: 'RUNNING', resumeAfter: 'auto' }), false);
});
