// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PartitionRecord } from '../../kafka/partition-records.js';
import { translationNotesOf } from './apply-move.js';
import { checkFromEarlierCheckpoints, checkTranslation, positionAfterCopy, sameRecord, type PartitionReader } from './translate-check.js';
import type { Translation } from './translate.js';

const rec = (offset: number, value: string, timestamp = String(1000 + Number(value.replace(/\D/g, '') || 0))): PartitionRecord =>
  ({ offset, timestamp, key: undefined, value: Buffer.from(value), headers: {} });

/** Upstream: line-0 … line-39 at offsets 0…39. Downstream: 5 records of its own, then the copies (upstream i at i + 5). */
const upstream = Array.from({ length: 40 }, (_, i) => rec(i, `line-${i}`));
const downstream = [...Array.from({ length: 5 }, (_, i) => rec(i, `own-${i}`, String(i))), ...upstream.map((r) => ({ ...r, offset: r.offset + 5 }))];
const reader = (calls: string[] = []): PartitionReader => async (side, _topic, _p, from, max) => {
  calls.push(`${side}@${from}`);
  return (side === 'source' ? upstream : downstream).filter((r) => r.offset >= from).slice(0, max);
};
const translation = (committed: number, downstreamOffset: number): Translation => ({
  rows: [{ topic: 't', partition: 0, committed, upstream: committed, downstream: downstreamOffset, status: 'current' }],
  offsets: [{ partition: { kafka_topic: 't', kafka_partition: 0 }, offset: { kafka_offset: downstreamOffset } }],
});

test('a short MirrorMaker translation (no sync of the committed record) is moved to the position after the copy of the last delivered record', async () => {
  // Committed 14 (line-13 delivered last); MirrorMaker held the sync 8 → 13, so it said 14; the copy of line-13 is at 18.
  const checked = await checkTranslation(translation(14, 14), reader(), { pauseMs: 0 });
  assert.deepEqual(checked.rows.map((r) => [r.downstream, r.check, r.mirrorMaker]), [[19, 'refined', 14]]);
  assert.deepEqual(checked.offsets, [{ partition: { kafka_topic: 't', kafka_partition: 0 }, offset: { kafka_offset: 19 } }]);
  assert.match(translationNotesOf(checked.rows, true)[0] ?? '', /short for 1 partition.*t:0 14 → 19/);
});

test('an exact translation stays; nothing delivered yet is not checked; a record that cannot be found keeps MirrorMaker\'s', async () => {
  assert.deepEqual((await checkTranslation(translation(14, 19), reader(), { pauseMs: 0 })).rows.map((r) => [r.downstream, r.check]), [[19, 'exact']]);
  const calls: string[] = [];
  assert.deepEqual((await checkTranslation(translation(0, 5), reader(calls), { pauseMs: 0 })).rows.map((r) => r.check), ['unchecked']);
  assert.deepEqual(calls, [], 'committed 0: nothing was delivered, nothing to read');
  // The copy is not (yet) on the target: read again, then MirrorMaker's translation is kept and said.
  const gone: PartitionReader = async (side, _t, _p, from, max) => (side === 'source' ? upstream.filter((r) => r.offset >= from).slice(0, max) : []);
  const kept = await checkTranslation(translation(14, 14), gone, { pauseMs: 0, attempts: 3 });
  assert.deepEqual(kept.rows.map((r) => [r.downstream, r.check]), [[14, 'unchecked']]);
  assert.match(translationNotesOf(kept.rows, true)[0] ?? '', /could not be checked/);
  assert.match(translationNotesOf(kept.rows, false)[0] ?? '', /--from-bootstrap/);
});

test('the first copy from MirrorMaker\'s lower bound wins: a look-alike re-delivers, never skips', () => {
  const last = rec(13, 'line-13');
  // A duplicate copy (producer retry) at 18 and 19: the first is taken (one record again, none lost).
  const copies = [rec(17, 'line-12'), { ...last, offset: 18 }, { ...last, offset: 19 }, rec(20, 'line-14')];
  assert.equal(positionAfterCopy(last, copies, 18), 19);
  // Timestamp, key and headers count, not the value alone.
  assert.equal(sameRecord(last, { ...last, timestamp: '1' }), false);
  assert.equal(sameRecord(last, { ...last, key: Buffer.from('k') }), false);
  assert.equal(sameRecord(last, { ...last, headers: { h: 'v' } }), false);
  assert.equal(positionAfterCopy(last, [rec(17, 'line-12')], 18), undefined);
});

test('no checkpoint of the committed offset (MirrorMaker makes none that would not move its translation on): the earlier one is a lower bound checked by the records, and used only when they find the copy', async () => {
  // Committed 15 (line-14 delivered last); MirrorMaker's last checkpoint is of 9 → 14 and it makes no other.
  const late: Translation = { rows: [{ topic: 't', partition: 0, committed: 15, upstream: 9, downstream: 14, status: 'behind' }], offsets: [] };
  const checked = await checkFromEarlierCheckpoints(late, reader(), { pauseMs: 0 });
  assert.deepEqual(checked?.rows.map((r) => [r.status, r.downstream, r.check, r.mirrorMaker, r.lowerBound]), [['current', 20, 'refined', 14, true]]);
  assert.deepEqual(checked?.offsets, [{ partition: { kafka_topic: 't', kafka_partition: 0 }, offset: { kafka_offset: 20 } }]);
  assert.match(translationNotesOf(checked?.rows ?? [], true)[0] ?? '', /made no checkpoint of it.*t:0 14 → 20 \(from its checkpoint of 9\)/);
  // The copy not (yet) on the target: the lower bound is not used (it would deliver line-9 … line-14 again).
  const notYet: PartitionReader = async (side, _t, _p, from, max) => (side === 'source' ? upstream.filter((r) => r.offset >= from).slice(0, max) : downstream.filter((r) => r.offset >= from && r.offset < 15).slice(0, max));
  assert.equal(await checkFromEarlierCheckpoints(late, notYet, { pauseMs: 0, attempts: 2 }), undefined);
  // A current row among them is checked as always; a row with no checkpoint stays as it is.
  const mixed: Translation = { rows: [...late.rows, { topic: 't', partition: 1, committed: 14, status: 'missing' }], offsets: [] };
  assert.deepEqual((await checkFromEarlierCheckpoints(mixed, reader(), { pauseMs: 0 }))?.rows.map((r) => r.status), ['current', 'missing']);
});
