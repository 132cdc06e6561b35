// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { validateOffsetsShape } from './offsets-shape.js';
import { canonicalJson, partitionKey } from './offsets.js';
import { OpsError } from '../errors.js';

const sink = (partition: unknown, offset: unknown) => ({ offsets: [{ partition, offset }] });
const src = (partition: unknown, offset: unknown) => ({ offsets: [{ partition, offset }] });

/** Asserts a refusal with code E_OFFSETS_INVALID whose field and message name the problem. */
function refused(fn: () => void, field: string, words: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof OpsError, `expected OpsError, got ${String(err)}`);
    assert.equal(err.code, 'E_OFFSETS_INVALID');
    assert.equal(err.field, field);
    assert.ok(err.message.includes(field), `message names ${field}: ${err.message}`);
    assert.match(err.message, words);
    return true;
  });
}

test('a well-formed sink file passes, with numbers or numeric strings, and null offsets', () => {
  validateOffsetsShape('sink', {
    offsets: [
      { partition: { kafka_topic: 'orders', kafka_partition: 0 }, offset: { kafka_offset: 42 } },
      { partition: { kafka_topic: 'orders', kafka_partition: '1' }, offset: { kafka_offset: '9223372036854775807' } },
      { partition: { kafka_topic: 'orders', kafka_partition: 2 }, offset: null },
    ],
  });
});

test('a bare array is accepted like the {"offsets": [...]} wrapper', () => {
  validateOffsetsShape('source', [{ partition: { filename: '/tmp/a' }, offset: { position: 0 } }]);
});

test('input that is neither an array nor the wrapper is refused', () => {
  refused(() => validateOffsetsShape('sink', 'offsets'), 'offsets', /expected \{"offsets": \[\.\.\.\]\}/);
  refused(() => validateOffsetsShape('sink', { offsets: {} }), 'offsets', /must be an array/);
  refused(() => validateOffsetsShape('sink', { offsets: [], extra: 1 }), 'extra', /unknown top-level field/);
});

test('an empty list is refused and points at reset', () => {
  refused(() => validateOffsetsShape('source', { offsets: [] }), 'offsets', /empty.*offsetctl reset/);
  refused(() => validateOffsetsShape('sink', []), 'offsets', /empty/);
});

test('entries need a partition object and an offset object or null', () => {
  refused(() => validateOffsetsShape('source', [42]), 'offsets[0]', /expected an object/);
  refused(() => validateOffsetsShape('source', [{ offset: { position: 1 } }]), 'offsets[0].partition', /missing/);
  refused(() => validateOffsetsShape('source', [{ partition: ['a'], offset: { position: 1 } }]), 'offsets[0].partition', /must be an object/);
  refused(() => validateOffsetsShape('source', [{ partition: { f: 'a' } }]), 'offsets[0].offset', /missing.*null/);
  refused(() => validateOffsetsShape('source', [{ partition: { f: 'a' }, offset: 5 }]), 'offsets[0].offset', /object or null/);
  refused(() => validateOffsetsShape('source', [{ partition: { f: 'a' }, offset: null, note: 'x' }]), 'offsets[0].note', /unknown field/);
});

test('sink: kafka_topic must be a non-empty string', () => {
  refused(() => validateOffsetsShape('sink', sink({ kafka_partition: 0 }, { kafka_offset: 1 })), 'offsets[0].partition.kafka_topic', /missing; must be a non-empty topic/);
  refused(() => validateOffsetsShape('sink', sink({ kafka_topic: '', kafka_partition: 0 }, { kafka_offset: 1 })), 'offsets[0].partition.kafka_topic', /non-empty/);
  refused(() => validateOffsetsShape('sink', sink({ kafka_topic: 7, kafka_partition: 0 }, { kafka_offset: 1 })), 'offsets[0].partition.kafka_topic', /number 7/);
});

test('sink: kafka_partition must be an integer ≥ 0 or a numeric string', () => {
  for (const bad of [-1, 1.5, '-1', '1e3', ' 1', '', true, null]) {
    refused(() => validateOffsetsShape('sink', sink({ kafka_topic: 't', kafka_partition: bad }, { kafka_offset: 1 })), 'offsets[0].partition.kafka_partition', /integer ≥ 0/);
  }
  refused(() => validateOffsetsShape('sink', sink({ kafka_topic: 't' }, { kafka_offset: 1 })), 'offsets[0].partition.kafka_partition', /missing/);
});

test('sink: kafka_offset must be an integer ≥ 0 or numeric string, and the message offers null', () => {
  for (const bad of [-1, 2.5, '-3', 'abc', '99999999999999999999', {}, false]) {
    refused(() => validateOffsetsShape('sink', sink({ kafka_topic: 't', kafka_partition: 0 }, { kafka_offset: bad })), 'offsets[0].offset.kafka_offset', /integer ≥ 0.*"offset": null/);
  }
  refused(() => validateOffsetsShape('sink', sink({ kafka_topic: 't', kafka_partition: 0 }, {})), 'offsets[0].offset.kafka_offset', /missing/);
  refused(() => validateOffsetsShape('sink', sink({ kafka_topic: 't', kafka_partition: 0 }, { kafka_offset: 2 ** 60 })), 'offsets[0].offset.kafka_offset', /write it as a string/);
});

test('sink: unknown fields in partition or offset are refused (a typo would be silently ignored by Connect)', () => {
  refused(() => validateOffsetsShape('sink', sink({ kafka_topic: 't', kafka_partition: 0, kafka_parition: 1 }, { kafka_offset: 1 })), 'offsets[0].partition.kafka_parition', /sink partitions take only/);
  refused(() => validateOffsetsShape('sink', sink({ kafka_topic: 't', kafka_partition: 0 }, { kafka_offset: 1, position: 3 })), 'offsets[0].offset.position', /sink offsets take only/);
});

test('source: values must be primitives (string, number, boolean, null)', () => {
  validateOffsetsShape('source', src({ file: 'a', n: 1, b: true, z: null }, { position: 0, s: 'x', t: false, u: null }));
  refused(() => validateOffsetsShape('source', src({ file: { nested: 1 } }, { position: 0 })), 'offsets[0].partition.file', /string, number, boolean or null \(got an object\)/);
  refused(() => validateOffsetsShape('source', src({ file: 'a' }, { position: [1] })), 'offsets[0].offset.position', /got an array/);
});

test('duplicate partitions are refused, regardless of key order or "3" versus 3', () => {
  refused(
    () => validateOffsetsShape('source', [
      { partition: { a: 1, b: 'x' }, offset: { p: 1 } },
      { partition: { b: 'x', a: 1 }, offset: { p: 2 } },
    ]),
    'offsets[1].partition',
    /same partition as offsets\[0\]/,
  );
  refused(
    () => validateOffsetsShape('sink', [
      { partition: { kafka_topic: 't', kafka_partition: 3 }, offset: { kafka_offset: 1 } },
      { partition: { kafka_topic: 't', kafka_partition: '3' }, offset: { kafka_offset: 2 } },
    ]),
    'offsets[1].partition',
    /same partition as offsets\[0\]/,
  );
});

test('several problems are listed together, the first one is the field', () => {
  try {
    validateOffsetsShape('sink', [
      { partition: { kafka_topic: 't', kafka_partition: -1 }, offset: { kafka_offset: 0 } },
      { partition: { kafka_topic: 't', kafka_partition: 1 }, offset: { kafka_offset: -5 } },
    ]);
    assert.fail('should throw');
  } catch (err) {
    assert.ok(err instanceof OpsError);
    assert.equal(err.field, 'offsets[0].partition.kafka_partition');
    assert.match(err.message, /2 problems/);
    assert.match(err.message, /offsets\[1\]\.offset\.kafka_offset/);
  }
});

test('canonical JSON sorts keys at every level; partitionKey reads a numeric-string kafka_partition as a number', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: 1 }], c: null } }), '{"a":{"c":null,"d":[1,{"y":1,"z":0}]},"b":1}');
  assert.equal(partitionKey({ kafka_partition: '7', kafka_topic: 't' }), partitionKey({ kafka_topic: 't', kafka_partition: 7 }));
});

test('canonical JSON equals a plain recursive sorted rendering and parses back to the same value (property)', async () => {
  const fc = await import('fast-check');
  const naive = (v: unknown): string => {
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    if (Array.isArray(v)) return `[${v.map(naive).join(',')}]`;
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${naive((v as Record<string, unknown>)[k])}`).join(',')}}`;
  };
  const check = (v: unknown) => {
    const text = canonicalJson(v);
    return text === naive(v) && canonicalJson(JSON.parse(text)) === text && assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(v))) === undefined;
  };
  fc.assert(fc.property(fc.jsonValue(), check), { numRuns: 500 });
  const primitive = fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.boolean(), fc.constant(null));
  fc.assert(fc.property(fc.dictionary(fc.string({ unit: 'binary' }), primitive), check), { numRuns: 500 });
});

test('canonical JSON does not depend on key order, integer-like keys included', () => {
  assert.equal(canonicalJson({ b: 1, 10: 'x', a: 2, 9: 'y' }), '{"10":"x","9":"y","a":2,"b":1}');
  assert.equal(canonicalJson({ a: 2, 9: 'y', b: 1, 10: 'x' }), canonicalJson({ b: 1, 10: 'x', a: 2, 9: 'y' }));
  assert.equal(canonicalJson({ 'q"': 1, 'n\n': { z: [1, { b: 0, a: 1 }] } }), '{"n\\n":{"z":[1,{"a":1,"b":0}]},"q\\"":1}');
});
