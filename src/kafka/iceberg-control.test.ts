// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { decodeDataComplete } from './iceberg-control.js';

// Avro's binary encoding, written here from the spec (zig-zag varints, length-prefixed strings),
// framed the way Iceberg's AvroEncoderUtil frames an event: C2 01, a 16-bit schema length, the schema.
const long = (n: number): Buffer => {
  let z = BigInt(n) >= 0n ? BigInt(n) << 1n : ((-BigInt(n)) << 1n) - 1n;
  const out: number[] = [];
  do {
    let b = Number(z & 0x7fn);
    z >>= 7n;
    if (z > 0n) b |= 0x80;
    out.push(b);
  } while (z > 0n);
  return Buffer.from(out);
};
const str = (s: string): Buffer => Buffer.concat([long(Buffer.byteLength(s)), Buffer.from(s)]);
const uuid = Buffer.from('b2407de147c946efa9295c06c672444c', 'hex');
const frame = (schema: unknown, datum: Buffer): Buffer => {
  const json = Buffer.from(JSON.stringify(schema));
  const len = Buffer.alloc(2);
  len.writeUInt16BE(json.length);
  return Buffer.concat([Buffer.from([0xc2, 0x01]), len, json, datum]);
};
const head = [
  { name: 'id', type: { type: 'fixed', name: 'uuid_fixed', namespace: '', size: 16, logicalType: 'uuid' } },
  { name: 'type', type: 'int' }, { name: 'timestamp', type: { type: 'long', logicalType: 'timestamp-micros' } }, { name: 'group_id', type: 'string' },
];
const tpo = { type: 'record', name: 'TopicPartitionOffset', fields: [{ name: 'topic', type: 'string' }, { name: 'partition', type: 'int' },
  { name: 'offset', type: ['null', 'long'] }, { name: 'timestamp', type: ['null', { type: 'long', logicalType: 'timestamp-micros' }] }] };
const dataComplete = { type: 'record', name: 'Event', namespace: 'org.apache.iceberg.connect.events', fields: [...head,
  { name: 'payload', type: { type: 'record', name: 'DataComplete', fields: [{ name: 'commit_id', type: 'uuid_fixed' }, { name: 'assignments',
    type: ['null', { type: 'array', items: tpo }] }] } }] };

test('a DATA_COMPLETE event decodes to its commit id, group and per-partition offsets (a null offset kept as null)', () => {
  const datum = Buffer.concat([
    Buffer.alloc(16, 7), long(2), long(1_733_300_000_000_000), str('connect-ice'),
    uuid, long(1), long(2), // union branch 1 (array), a block of 2 items
    str('orders'), long(0), long(1), long(10), long(1), long(1_733_300_000_000_000),
    str('orders'), long(1), long(0), long(0),
    long(0), // end of the array
  ]);
  assert.deepEqual(decodeDataComplete(frame(dataComplete, datum)), {
    commitId: 'b2407de1-47c9-46ef-a929-5c06c672444c', groupId: 'connect-ice',
    assignments: [{ topic: 'orders', partition: 0, offset: 10 }, { topic: 'orders', partition: 1, offset: null }],
  });
});

test('other events and records not framed by Iceberg are not DATA_COMPLETE', () => {
  const start = { ...dataComplete, fields: [...head, { name: 'payload', type: { type: 'record', name: 'StartCommit', fields: [{ name: 'commit_id',
    type: 'uuid_fixed' }] } }] };
  assert.equal(decodeDataComplete(frame(start, Buffer.concat([Buffer.alloc(16), long(0), long(1), str('g'), uuid]))), undefined);
  assert.equal(decodeDataComplete(Buffer.from('{"not":"iceberg"}')), undefined);
});
