// The pure parts of verify's record reading: a sink's positions from the offsets it was left at,
// Debezium's include list, and how a record is said.
// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeRecord, includeList, sinkPositions } from './records.js';

describe('verify records', () => {
  it('reads a sink\'s positions from Connect\'s sink offsets, skipping what is not one', () => {
    assert.deepEqual(sinkPositions([
      { partition: { kafka_topic: 'orders', kafka_partition: 1 }, offset: { kafka_offset: 42 } },
      { partition: { kafka_topic: 'orders', kafka_partition: '2' }, offset: { kafka_offset: 7 } },
      { partition: { kafka_topic: 'orders', kafka_partition: 3 }, offset: null },
      { partition: { server: 'dbz' }, offset: { lsn: 1 } },
    ]), [{ topic: 'orders', partition: 1, offset: 42 }, { topic: 'orders', partition: 2, offset: 7 }]);
  });

  it('splits table.include.list, trimming and dropping empty entries', () => {
    assert.deepEqual(includeList({ 'table.include.list': ' public.orders, inventory\\..* ,,' }), ['public.orders', 'inventory\\..*']);
    assert.deepEqual(includeList({}), []);
  });

  it('says a record with its place, its own time and, for a source, the seconds since the mark', () => {
    const r = { topic: 'dbz.public.orders', partition: 0, offset: 17, timestampMs: Date.UTC(2026, 11, 4, 9, 45, 12, 345), seenAtMs: 12_400 };
    assert.equal(describeRecord(r), 'dbz.public.orders partition 0 offset 17 (record time 2026-12-04T09:45:12.345Z)');
    assert.equal(describeRecord(r, 10_000),
      'dbz.public.orders partition 0 offset 17 (record time 2026-12-04T09:45:12.345Z), read 2.4 s after its topics\' ends were marked');
  });
});
