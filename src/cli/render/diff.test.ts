// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { diffOffsets } from '../../ops/offsets/diff.js';
import { renderDiff } from './diff.js';
import { offsetEntries } from '../../ops/offsets/offsets.js';
import { validateOffsetsShape } from '../../ops/offsets/offsets-shape.js';

const tp = (p: number) => ({ kafka_topic: 'orders', kafka_partition: p });

test('a rewind diff shows changed, added, removed and (by count) unchanged partitions', () => {
  const current = { offsets: [
    { partition: tp(0), offset: { kafka_offset: 100 } },
    { partition: tp(1), offset: { kafka_offset: 200 } },
    { partition: tp(2), offset: { kafka_offset: 300 } },
  ] };
  const target = [
    { partition: tp(0), offset: { kafka_offset: 10 } },
    { partition: { kafka_partition: '1', kafka_topic: 'orders' }, offset: { kafka_offset: '200' } },
    { partition: tp(3), offset: { kafka_offset: 5 } },
    { partition: tp(2), offset: null },
  ];
  const diff = diffOffsets(current, target);
  assert.deepEqual(diff.counts, { changed: 1, unchanged: 1, added: 1, removed: 1 });
  assert.deepEqual(diff.entries.map((e) => [e.partition.kafka_partition, e.kind]), [[0, 'changed'], ['1', 'unchanged'], [3, 'added'], [2, 'removed']]);
  const text = renderDiff(diff);
  assert.match(text, /^~ \{"kafka_partition":0,"kafka_topic":"orders"\}: \{"kafka_offset":100\} → \{"kafka_offset":10\}$/m);
  assert.match(text, /^\+ .*"kafka_partition":3.*\(none\) → \{"kafka_offset":5\}$/m);
  assert.match(text, /^- .*"kafka_partition":2.*\{"kafka_offset":300\} → \(removed\)$/m);
  assert.doesNotMatch(text, /^= /m, 'unchanged rows hidden by default');
  assert.match(text, /1 changed, 1 added, 1 removed, 1 unchanged\.$/);
  assert.match(renderDiff(diff, { showUnchanged: true }), /^= .*"kafka_partition":1/m);
});

test('merge mode leaves partitions absent from the target untouched; replace mode removes them', () => {
  const current = [{ partition: tp(0), offset: { kafka_offset: 1 } }, { partition: tp(1), offset: { kafka_offset: 2 } }];
  const target = [{ partition: tp(0), offset: { kafka_offset: 1 } }];
  assert.deepEqual(diffOffsets(current, target).counts, { changed: 0, added: 0, removed: 0, unchanged: 2 });
  const replace = diffOffsets(current, target, { mode: 'replace' });
  assert.deepEqual(replace.counts, { changed: 0, added: 0, removed: 1, unchanged: 1 });
  assert.match(renderDiff(diffOffsets(current, target)), /^No change: the target equals the current offsets \(2 partitions\)\.$/);
});

test('colour marks lines only when asked', () => {
  const diff = diffOffsets([], [{ partition: { f: 'a' }, offset: { position: 1 } }]);
  assert.ok(renderDiff(diff, { color: true }).includes('\x1b[32m+ '));
  assert.ok(!renderDiff(diff).includes('\x1b['));
});

// Correctness at full size only: the time and memory targets for 100,000 partitions are
// measured by `npm run bench` (bench/), never asserted in a unit test.
test('100,000 source partitions validate, diff and render with the right counts (key order ignored)', () => {
  const n = 100_000;
  const current = { offsets: Array.from({ length: n }, (_, i) => ({ partition: { filename: `/data/file-${i}.log`, shard: i % 7 }, offset: { position: i * 10 } })) };
  // Keys out of order on purpose: the slow path of canonical keys.
  const target = { offsets: Array.from({ length: n }, (_, i) => ({ partition: { shard: i % 7, filename: `/data/file-${i}.log` }, offset: { position: i % 2 === 0 ? i * 10 + 5 : i * 10 } })) };
  const parsedTarget = JSON.parse(JSON.stringify(target)) as unknown;
  const parsedCurrent = JSON.parse(JSON.stringify(current)) as unknown;
  validateOffsetsShape('source', parsedTarget);
  const diff = diffOffsets(parsedCurrent, parsedTarget);
  assert.equal(offsetEntries(parsedTarget).length, n);
  assert.deepEqual(diff.counts, { changed: n / 2, unchanged: n / 2, added: 0, removed: 0 });
  assert.equal(renderDiff(diff).split('\n').length, n / 2 + 1);
});
