// The checkpoint record format, encoded here by hand as Checkpoint.java serialises it (Kafka's
// protocol Struct: INT16-length strings, big-endian integers), and the refusals of anything else.
// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkpointsTopic, decodeCheckpoint } from './checkpoints.js';

function str(s: string): Buffer {
  const bytes = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(2);
  len.writeInt16BE(bytes.length);
  return Buffer.concat([len, bytes]);
}
function i16(n: number): Buffer { const b = Buffer.alloc(2); b.writeInt16BE(n); return b; }
function i32(n: number): Buffer { const b = Buffer.alloc(4); b.writeInt32BE(n); return b; }
function i64(n: bigint): Buffer { const b = Buffer.alloc(8); b.writeBigInt64BE(n); return b; }

const key = (group: string, topic: string, partition: number): Buffer => Buffer.concat([str(group), str(topic), i32(partition)]);
const value = (upstream: bigint, downstream: bigint, metadata: string, version = 0): Buffer => Buffer.concat([i16(version), i64(upstream), i64(downstream), str(metadata)]);

test('a checkpoint decodes to group, target topic, partition, upstream and downstream offsets', () => {
  assert.deepEqual(decodeCheckpoint(key('connect-orders-sink', 'src.orders', 3), value(1234n, 987n, '')), {
    group: 'connect-orders-sink', topic: 'src.orders', partition: 3, upstreamOffset: 1234, downstreamOffset: 987, metadata: '',
  });
  // UTF-8 names count bytes, not characters.
  assert.equal(decodeCheckpoint(key('grüppe', 'tøpic', 0), value(0n, 0n, 'm')).group, 'grüppe');
});

test('another version, a cut record or a null string is refused, never guessed', () => {
  assert.throws(() => decodeCheckpoint(key('g', 't', 0), value(1n, 1n, '', 1)), /version 1/);
  assert.throws(() => decodeCheckpoint(key('g', 't', 0).subarray(0, 5), value(1n, 1n, '')), /checkpoint key ends after 5 bytes/);
  assert.throws(() => decodeCheckpoint(key('g', 't', 0), value(1n, 1n, '').subarray(0, 12)), /checkpoint value ends/);
  assert.throws(() => decodeCheckpoint(Buffer.concat([i16(-1), str('t'), i32(0)]), value(1n, 1n, '')), /null string/);
  assert.throws(() => decodeCheckpoint(key('g', 't', 0), value(2n ** 60n, 1n, '')), /beyond 2\^53/);
});

test('the checkpoints topic is named after the source cluster alias', () => {
  assert.equal(checkpointsTopic('primary'), 'primary.checkpoints.internal');
});
