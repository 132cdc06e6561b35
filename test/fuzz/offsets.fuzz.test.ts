// Property-based fuzzing of the offsets input: the reader, the shape check per connector type
// and the diff. Any input ends in a result or a typed E_OFFSETS_INVALID; valid inputs always diff,
// and the diff's counts add up. See docs/reliability.md, "Fuzzing".
// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { readOffsetsInput } from '../../src/cli/offsets-input.js';
import { renderDiff } from '../../src/cli/render/diff.js';
import { validateOffsetsShape } from '../../src/ops/offsets/offsets-shape.js';
import { offsetEntries } from '../../src/ops/offsets/offsets.js';
import { diffOffsets } from '../../src/ops/offsets/diff.js';
import { LONG, budget, growthRatio, isTypedError } from './settings.js';

const sinkEntry = fc.record({
  partition: fc.record({ kafka_topic: fc.string({ minLength: 1, maxLength: 12 }), kafka_partition: fc.nat(50) }),
  offset: fc.oneof(fc.record({ kafka_offset: fc.nat() }), fc.constant(null)),
});
const sourceEntry = fc.record({
  partition: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.oneof(fc.string(), fc.integer()), { minKeys: 1, maxKeys: 3 }),
  offset: fc.oneof(fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.oneof(fc.string(), fc.integer(), fc.boolean()), { minKeys: 1, maxKeys: 3 }), fc.constant(null)),
});
// Anything JSON, and near-misses of the real shape.
const anyOffsets = fc.oneof(
  fc.jsonValue(),
  fc.array(fc.oneof(sinkEntry, sourceEntry, fc.jsonValue()), { maxLength: 6 }),
  fc.record({ offsets: fc.array(fc.oneof(sinkEntry, sourceEntry, fc.jsonValue()), { maxLength: 6 }) }),
);

test('the offsets reader: any text is JSON or a typed E_OFFSETS_INVALID naming a position', async () => {
  await fc.assert(fc.asyncProperty(fc.oneof(fc.string(), fc.json(), fc.constantFrom('', ' ', '\ufeff', '{', '[1,', 'NaN', '{"offsets": [}', '\u0000')), async (text) => {
    try {
      await readOffsetsInput('-', Readable.from([Buffer.from(text)]));
    } catch (err) {
      assert.ok(isTypedError(err) && (err as { code?: string }).code === 'E_OFFSETS_INVALID', String(err));
    }
  }), budget());
});

test('the shape check: any value passes or throws E_OFFSETS_INVALID, for both connector types', () => {
  fc.assert(fc.property(anyOffsets, fc.constantFrom('source', 'sink') as fc.Arbitrary<'source' | 'sink'>, (value, type) => {
    try {
      validateOffsetsShape(type, value);
    } catch (err) {
      assert.ok(isTypedError(err) && (err as { code?: string }).code === 'E_OFFSETS_INVALID', String(err));
    }
  }), budget());
});

test('the diff of shape-checked offsets: never throws, counts add up, x against x is all unchanged', () => {
  fc.assert(fc.property(fc.array(sinkEntry, { maxLength: 20 }), fc.array(sinkEntry, { maxLength: 20 }), fc.constantFrom('merge', 'replace') as fc.Arbitrary<'merge' | 'replace'>, (current, target, mode) => {
    let valid = true;
    try {
      validateOffsetsShape('sink', current);
      validateOffsetsShape('sink', target);
    } catch {
      valid = false; // duplicates or nulls the shape check refuses: not diffed in real runs either
    }
    fc.pre(valid);
    const diff = diffOffsets(current, target, { mode });
    const sum = diff.counts.unchanged + diff.counts.changed + diff.counts.added + diff.counts.removed;
    assert.equal(sum, diff.entries.length);
    assert.equal(typeof renderDiff(diff), 'string');
    const same = diffOffsets(current, current, { mode: 'merge' });
    assert.equal(same.counts.changed + same.counts.added, 0);
    assert.equal(offsetEntries({ offsets: target }).length, target.length);
  }), budget());
});

test('growth: diffing 8× more partitions costs about 8× (npm run fuzz only)', { skip: !LONG && 'timing runs in `npm run fuzz`, not the unit suite' }, () => {
  const make = (n: number, shift: number) => Array.from({ length: n }, (_v, i) => ({ partition: { kafka_topic: 't', kafka_partition: i }, offset: { kafka_offset: i + shift } }));
  const ratio = growthRatio((n) => diffOffsets(make(n, 0), make(n, 1), { mode: 'replace' }), 5_000);
  process.stdout.write(`# growth ratio for 8x partitions: diff ${ratio.toFixed(1)}\n`);
  assert.ok(ratio < 48, `super-linear: ${ratio.toFixed(1)}× for 8× input`);
});
