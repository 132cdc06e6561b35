// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { diffOffsets, type OffsetEntry } from '../offsets/index.js';
import { movementSince } from './movement.js';

const p = (n: number) => ({ kafka_topic: 'orders', kafka_partition: n });
const at = (n: number, offset: number | null): OffsetEntry => ({ partition: p(n), offset: offset === null ? null : { kafka_offset: offset } });

function planOf(operation: 'rewind' | 'reset' | 'rollback', current: OffsetEntry[], target: OffsetEntry[]) {
  return { operation, currentOffsets: current, targetOffsets: target, diff: diffOffsets(current, target, { mode: operation === 'rewind' ? 'merge' : 'replace' }) };
}

test('a sink that consumed on since planning still replays from the planned target: moved, same meaning', () => {
  const m = movementSince(planOf('rewind', [at(0, 1000), at(1, 700)], [at(0, 500)]), [at(0, 1200), at(1, 900)]);
  assert.equal(m.changesMeaning, false);
  // Partition 1 is not in the targets: its moving on is none of the plan's business.
  assert.deepEqual(m.partitions.map((x) => [x.partition.kafka_partition, x.plannedDelta, x.nowDelta, x.reason]), [[0, 500, 700, 'moved on by 200: 200 more record(s) replayed']]);
});

test('nothing moved: no movement at all', () => {
  const m = movementSince(planOf('rewind', [at(0, 10)], [at(0, 5)]), [at(0, 10)]);
  assert.deepEqual(m, { partitions: [], changesMeaning: false });
});

test('an offset that went back, a direction that flipped, a partition that appeared or went: each changes the meaning', () => {
  const back = movementSince(planOf('rewind', [at(0, 1000)], [at(0, 500)]), [at(0, 600)]);
  assert.equal(back.changesMeaning, true);
  assert.match(back.partitions[0]!.reason, /went back/);

  const flipped = movementSince(planOf('rewind', [at(0, 100)], [at(0, 500)]), [at(0, 800)]);
  assert.equal(flipped.changesMeaning, true);
  assert.match(flipped.partitions[0]!.reason, /planned to skip records, would now replay them/);

  const unchangedNowChanged = movementSince(planOf('rewind', [at(0, 500)], [at(0, 500)]), [at(0, 520)]);
  assert.equal(unchangedNowChanged.changesMeaning, true);
  assert.equal(unchangedNowChanged.partitions[0]!.reason, 'planned as unchanged, now changed');

  const appeared = movementSince(planOf('reset', [at(0, 10)], []), [at(0, 12), at(1, 3)]);
  assert.equal(appeared.changesMeaning, true);
  assert.deepEqual(appeared.partitions.map((x) => [x.partition.kafka_partition, x.changesMeaning]), [[0, false], [1, true]]);

  const gone = movementSince(planOf('rewind', [at(0, 10)], [at(0, 5)]), []);
  assert.equal(gone.changesMeaning, true);
  assert.equal(gone.partitions[0]!.reason, 'planned as changed, now added');
});

test('source offsets that are not one number cannot be compared: any change changes the meaning', () => {
  const part = { server: 'db1' };
  const current = [{ partition: part, offset: { lsn: 10, txId: 3 } }];
  const m = movementSince(planOf('rewind', current, [{ partition: part, offset: { lsn: 1, txId: 1 } }]), [{ partition: part, offset: { lsn: 11, txId: 4 } }]);
  assert.equal(m.changesMeaning, true);
  assert.match(m.partitions[0]!.reason, /not a number/);
});
