// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { parsePosition, parseTime, planPositions, type PartitionFacts } from './positions.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const refused = (fn: () => unknown, pattern: RegExp) => assert.throws(fn, (err: { code?: string; message?: string }) => err.code === 'E_USAGE' && pattern.test(err.message ?? ''));

test('times: ISO-8601 with a zone, or back from now; no zone, nonsense and the future are refused', () => {
  assert.equal(parseTime('2026-11-30T09:55:00Z', NOW), Date.parse('2026-11-30T09:55:00Z'));
  assert.equal(parseTime('2026-11-30T10:55:00+01:00', NOW), Date.parse('2026-11-30T09:55:00Z'));
  assert.equal(parseTime('-2h', NOW), NOW - 7_200_000);
  assert.equal(parseTime('-30m', NOW), NOW - 1_800_000);
  assert.equal(parseTime('-1d', NOW), NOW - 86_400_000);
  refused(() => parseTime('2026-11-30T09:55:00', NOW), /add the zone/);
  refused(() => parseTime('yesterday', NOW), /cannot read "yesterday"/);
  refused(() => parseTime('2026-13-45T09:55:00Z', NOW), /not a real date/);
  refused(() => parseTime('2026-11-30T13:00:00Z', NOW), /in the future/);
});

test('dates that do not exist are refused, not rolled over into the next month (issue 20, point 6)', () => {
  refused(() => parseTime('2026-02-30T00:00:00Z', NOW), /"2026-02-30T00:00:00Z" is not a real date and time \(February 2026 has 28 days\); check the day and the month/);
  // The advice fits the part that is wrong (issue 30, point 18): an hour error is not about the day.
  refused(() => parseTime('2026-11-03T24:00:00Z', NOW), /\(hour 24 \(00 to 23\)\); the midnight that ends 2026-11-03 is 2026-11-04T00:00:00 \(with the same zone\)$/);
  refused(() => parseTime('2026-11-30T24:00:00Z', NOW), /the midnight that ends 2026-11-30 is 2026-12-01T00:00:00/);
  refused(() => parseTime('2026-11-03T25:10:00Z', NOW), /\(hour 25 \(00 to 23\)\); check the hour$/);
  refused(() => parseTime('2026-11-03T10:61:00Z', NOW), /\(minute 61 \(00 to 59\)\); check the minutes$/);
  refused(() => parseTime('2026-11-03T10:00:00+25:00', NOW), /zone offset \+25:00\); check the zone offset/);
  refused(() => parseTime('2026-04-31T00:00:00Z', NOW), /April 2026 has 30 days/);
  refused(() => parseTime('2025-02-29T00:00:00Z', NOW), /February 2025 has 28 days/);
  refused(() => parseTime('2026-06-01T24:00:00Z', NOW), /hour 24/);
  refused(() => parseTime('2026-06-01T10:60:00+01:00', NOW), /minute 60/);
  refused(() => parseTime('2026-06-01T10:00:00+25:00', NOW), /zone offset/);
  assert.equal(parseTime('2024-02-29T00:00:00Z', NOW), Date.parse('2024-02-29T00:00:00Z'), 'a leap day exists');
  assert.equal(parseTime('2026-01-31T23:59:59.999Z', NOW), Date.parse('2026-01-31T23:59:59.999Z'));
});

test('times before 1970 and out-of-range relative times are refused as usage errors (issue 20, point 7)', () => {
  refused(() => parseTime('1969-12-31T23:59:59.999Z', NOW), /before 1970-01-01T00:00:00Z, the earliest time Kafka can look up .*--to-earliest/);
  refused(() => parseTime('1969-12-31T23:59:59.997Z', NOW), /before 1970/);
  assert.equal(parseTime('1970-01-01T00:00:00Z', NOW), 0);
  refused(() => parseTime('-1000000d', NOW), /before 1970/);
  refused(() => parseTime('-99999999999999999999d', NOW), /reaches back further than any record can be/);
  refused(() => parseTime('-9999999999999999w', NOW), /reaches back further/);
});

test('exactly one position; --shift-by 0 and --partition without --to-offset are refused', () => {
  assert.deepEqual(parsePosition({ shiftBy: '-2' }, NOW), { kind: 'shift', by: -2 });
  assert.deepEqual(parsePosition({ shiftBy: '+100' }, NOW), { kind: 'shift', by: 100 });
  assert.deepEqual(parsePosition({ toOffset: '42', partition: 'orders.v2:3' }, NOW), { kind: 'offset', offset: 42, topic: 'orders.v2', partition: 3 });
  refused(() => parsePosition({ shiftBy: '0' }, NOW), /--shift-by 0 changes nothing/);
  refused(() => parsePosition({ shiftBy: 'two' }, NOW), /whole number/);
  refused(() => parsePosition({ toEarliest: true, toLatest: true }, NOW), /--to-earliest and --to-latest contradict/);
  refused(() => parsePosition({}, NOW), /no position/);
  refused(() => parsePosition({ partition: 'a:1' }, NOW), /--partition goes with --to-offset/);
  refused(() => parsePosition({ toOffset: '5' }, NOW), /needs --partition/);
  refused(() => parsePosition({ toOffset: '5', partition: 'orders' }, NOW), /<topic>:<partition number>/);
});

const facts: PartitionFacts[] = [
  { topic: 'b', partition: 0, logStart: 10, logEnd: 100, committed: 50, offsetForTime: 40 },
  { topic: 'a', partition: 1, logStart: 0, logEnd: 30, committed: null, offsetForTime: 30 },
  { topic: 'a', partition: 0, logStart: 0, logEnd: 30, committed: 1, offsetForTime: 12 },
];

test('--to-time uses the looked-up offsets; replay and skip are counted from the committed offset', () => {
  const plan = planPositions({ kind: 'time', atMs: NOW - 1000, text: '-1s' }, facts);
  assert.deepEqual(plan.rows.map((r) => [r.topic, r.partition, r.target, r.replay, r.skip, r.notes]), [
    ['a', 0, 12, 0, 11, []],
    ['a', 1, 30, 0, 0, ['no-record-after-time', 'never-committed']],
    ['b', 0, 40, 10, 0, []],
  ]);
  assert.deepEqual(plan.totals, { partitions: 3, toWrite: 3, replay: 10, skip: 11, neverCommitted: 1 });
});

test('--shift-by is clamped to the log and leaves never-committed partitions alone', () => {
  const back = planPositions({ kind: 'shift', by: -45 }, facts);
  assert.deepEqual(back.rows.map((r) => [r.topic, r.partition, r.target, r.notes]), [
    ['a', 0, 0, ['clamped-to-log-start']],
    ['a', 1, null, ['never-committed']],
    ['b', 0, 10, ['clamped-to-log-start']],
  ]);
  const forward = planPositions({ kind: 'shift', by: 60 }, facts);
  assert.deepEqual(forward.rows.map((r) => r.target), [30, null, 100]);
  assert.equal(forward.totals.toWrite, 2);
  assert.deepEqual(forward.totals, { partitions: 3, toWrite: 2, replay: 0, skip: 79, neverCommitted: 1 });
});

test('--to-earliest / --to-latest / --to-offset', () => {
  assert.deepEqual(planPositions({ kind: 'earliest' }, facts).rows.map((r) => r.target), [0, 0, 10]);
  assert.deepEqual(planPositions({ kind: 'latest' }, facts).rows.map((r) => r.target), [30, 30, 100]);
  const one = planPositions({ kind: 'offset', offset: 60, topic: 'b', partition: 0 }, facts);
  assert.deepEqual(one.rows.map((r) => [r.topic, r.target, r.skip]), [['b', 60, 10]]);
  refused(() => planPositions({ kind: 'offset', offset: 5, topic: 'b', partition: 0 }, facts), /holds offsets 10 to 100/);
  refused(() => planPositions({ kind: 'offset', offset: 5, topic: 'c', partition: 0 }, facts), /does not consume that partition/);
});
