// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { findMismatches, offsetEntries, partitionKey, planSnapshotRestore, planUndoOfWrite, sameOffset } from '../../src/ops/offsets/offsets.js';
import { diffOffsets } from '../../src/ops/offsets/diff.js';
import { OpsError } from '../../src/ops/errors.js';

const sink = (partition: number, offset: number | null, topic = 'orders') => ({
  partition: { kafka_topic: topic, kafka_partition: partition },
  offset: offset === null ? null : { kafka_offset: offset },
});

test('restoring a snapshot nulls the partitions that exist now but not in the snapshot', () => {
  const snapshot = [sink(0, 10), sink(1, 20)];
  const current = [sink(0, 3), sink(1, 4), sink(2, 5), sink(0, 7, 'payments')];
  const plan = planSnapshotRestore(snapshot, current);
  assert.deepEqual(plan, [sink(0, 10), sink(1, 20), sink(2, null), sink(0, null, 'payments')]);
});

test('restoring an empty snapshot removes every current partition; nothing current means the snapshot as is', () => {
  assert.deepEqual(planSnapshotRestore([], [sink(0, 1)]), [sink(0, null)]);
  assert.deepEqual(planSnapshotRestore([sink(0, 1)], []), [sink(0, 1)]);
  assert.deepEqual(planSnapshotRestore([], []), []);
});

test('partitions match whatever the key order and numeric spelling', () => {
  const snapshot = [{ partition: { kafka_partition: 0, kafka_topic: 'orders' }, offset: { kafka_offset: 1 } }];
  const current = [{ partition: { kafka_topic: 'orders', kafka_partition: '0' }, offset: { kafka_offset: '9' } }];
  assert.deepEqual(planSnapshotRestore(snapshot, current), snapshot);
  assert.equal(partitionKey({ b: 1, a: { d: 2, c: 3 } }), partitionKey({ a: { c: 3, d: 2 }, b: 1 }));
  // Source partitions keep strings as strings: "0" and 0 are different source values.
  assert.notEqual(partitionKey({ filename: 'a', position: '0' }), partitionKey({ filename: 'a', position: 0 }));
});

test('undoing a PATCH restores the written partitions from the snapshot and nulls the ones it created', () => {
  const snapshot = [{ partition: { filename: '/tmp/a' }, offset: { position: 120 } }];
  const written = [{ partition: { filename: '/tmp/a' }, offset: { position: 0 } }, { partition: { filename: '/tmp/b' }, offset: { position: 5 } }];
  assert.deepEqual(planUndoOfWrite(written, snapshot), [
    { partition: { filename: '/tmp/a' }, offset: { position: 120 } },
    { partition: { filename: '/tmp/b' }, offset: null },
  ]);
});

test('verification finds partitions whose read-back offset differs, and nulls that did not disappear', () => {
  const requested = [sink(0, 5), sink(1, null), { partition: { kafka_topic: 'orders', kafka_partition: 2 }, offset: { kafka_offset: '7' } }];
  assert.deepEqual(findMismatches(requested, [sink(0, 5), sink(2, 7)]), []);
  const wrong = findMismatches(requested, [sink(0, 6), sink(1, 3), sink(2, 7)]);
  assert.deepEqual(wrong.map((m) => m.partition.kafka_partition), [0, 1]);
  assert.deepEqual(wrong[0]?.actual, { kafka_offset: 6 });
  assert.equal(findMismatches([sink(3, 1)], []).length, 1);
});

test('one parser: the {"offsets": [...]} wrapper and a bare list are accepted, anything else is refused', () => {
  assert.deepEqual(offsetEntries({ offsets: [sink(0, 1)] }), [sink(0, 1)]);
  assert.deepEqual(offsetEntries([sink(0, 1)]), [sink(0, 1)]);
  for (const bad of [undefined, null, 'x', { offsets: 'x' }, { offsets: [], extra: 1 }]) {
    assert.throws(() => offsetEntries(bad), (err: unknown) => err instanceof OpsError && err.code === 'E_OFFSETS_INVALID', JSON.stringify(bad));
  }
});

test('one equality rule: the diff, verification and recovery agree on what is the same offset', () => {
  const pairs: Array<[Record<string, unknown>, Record<string, unknown>, boolean]> = [
    [{ kafka_offset: 5 }, { kafka_offset: '5' }, true],
    [{ kafka_offset: '007' }, { kafka_offset: 7 }, true],
    [{ kafka_offset: '9223372036854775807' }, { kafka_offset: '9223372036854775806' }, false],
    [{ position: 0 }, { position: '0' }, false],
    [{ b: 1, a: 2 }, { a: 2, b: 1 }, true],
  ];
  for (const [a, b, same] of pairs) {
    assert.equal(sameOffset(a, b), same, `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    const p = { kafka_topic: 't', kafka_partition: 0 };
    assert.equal(findMismatches([{ partition: p, offset: a }], [{ partition: p, offset: b }]).length === 0, same, 'verification');
    assert.equal(diffOffsets([{ partition: p, offset: a }], [{ partition: p, offset: b }]).counts.unchanged === 1, same, 'diff');
  }
  assert.equal(sameOffset(null, null), true);
  assert.equal(sameOffset(null, { position: 1 }), false);
});
