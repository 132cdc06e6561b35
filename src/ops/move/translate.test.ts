// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Checkpoint } from '../../kafka/checkpoints.js';
import { behind, closerTranslation, translateSinkOffsets, translationRefusal } from './translate.js';

const cp = (topic: string, partition: number, upstreamOffset: number, downstreamOffset: number): [string, Checkpoint] =>
  [`${topic}:${partition}`, { group: 'connect-s', topic, partition, upstreamOffset, downstreamOffset, metadata: '' }];
const committed = (topic: string, partition: number, offset: number | null) =>
  ({ partition: { kafka_topic: topic, kafka_partition: partition }, offset: offset === null ? null : { kafka_offset: offset } });

test('a checkpoint of exactly the committed offset gives the translated offset; an older one is behind', () => {
  const t = translateSinkOffsets([committed('orders', 1, 40), committed('orders', 0, 17), committed('orders', 2, null)], new Map([cp('orders', 0, 17, 12), cp('orders', 1, 35, 30)]));
  assert.deepEqual(t.rows.map((r) => `${r.topic}:${r.partition} ${r.committed}→${r.downstream} ${r.status}`), ['orders:0 17→12 current', 'orders:1 40→30 behind']);
  assert.deepEqual(t.offsets, [{ partition: { kafka_topic: 'orders', kafka_partition: 0 }, offset: { kafka_offset: 12 } }]);
  assert.deepEqual(behind(t).map((r) => r.partition), [1]);
  assert.equal(translationRefusal(t, 'connect-s', 'a.checkpoints.internal'), undefined);
});

test('no checkpoint for a partition, or one under a renamed topic, refuses with the reason', () => {
  const missing = translateSinkOffsets([committed('orders', 0, 5)], new Map());
  assert.match(translationRefusal(missing, 'connect-s', 'a.checkpoints.internal') ?? '', /no checkpoint of group connect-s for orders:0.*groups\.exclude default/);
  const renamed = translateSinkOffsets([committed('orders', 0, 5)], new Map([cp('a.orders', 0, 5, 5)]));
  assert.equal(renamed.rows[0]?.status, 'renamed');
  assert.match(translationRefusal(renamed, 'connect-s', 'a.checkpoints.internal') ?? '', /copies orders to the target cluster as a\.orders.*IdentityReplicationPolicy/);
});

// Seen in a CI rehearsal: the first checkpoint of committed offset 14 said 18 (made from the sync
// of 13 → 17, plus one), one emitted a second later 19, the record's own place.
test('of two readings, each partition keeps the current translation that is closer (higher); a behind one never replaces it', () => {
  const sink = [committed('orders', 0, 14), committed('orders', 1, 40)];
  const first = translateSinkOffsets(sink, new Map([cp('orders', 0, 14, 18), cp('orders', 1, 40, 45)]));
  const later = translateSinkOffsets(sink, new Map([cp('orders', 0, 14, 19), cp('orders', 1, 41, 47)]));
  const merged = closerTranslation(first, later);
  assert.deepEqual(merged.rows.map((r) => `${r.partition} ${r.committed}→${r.downstream} ${r.status}`), ['0 14→19 current', '1 40→45 current']);
  assert.deepEqual(merged.offsets.map((o) => o.offset), [{ kafka_offset: 19 }, { kafka_offset: 45 }]);
  // A lower reading (MirrorMaker dropped syncs near that offset) does not take the closer one back.
  const lower = translateSinkOffsets(sink, new Map([cp('orders', 0, 14, 16), cp('orders', 1, 40, 45)]));
  assert.deepEqual(closerTranslation(merged, lower).offsets.map((o) => o.offset), [{ kafka_offset: 19 }, { kafka_offset: 45 }]);
});
