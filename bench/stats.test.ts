import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { median, pairedRatios, quantile, ratio, round, summarize, unionLength } from './stats.js';

test('median of an odd count is the middle sample, whatever the input order', () => {
  assert.equal(median([9, 1, 5]), 5);
});

test('median of an even count is the mean of the two middle samples', () => {
  assert.equal(median([4, 1, 3, 2]), 2.5);
});

test('median does not reorder the caller’s samples', () => {
  const samples = [3, 1, 2];
  median(samples);
  assert.deepEqual(samples, [3, 1, 2]);
});

test('an empty sample list is an error, not a silent zero', () => {
  assert.throws(() => median([]), RangeError);
});

test('quantiles interpolate between neighbours', () => {
  assert.equal(quantile([0, 10], 0.25), 2.5);
  assert.equal(quantile([1, 2, 3, 4, 5], 0), 1);
  assert.equal(quantile([1, 2, 3, 4, 5], 1), 5);
});

test('ratio is measured over reference and NaN for a missing reference', () => {
  assert.equal(ratio(115, 100), 1.15);
  assert.ok(Number.isNaN(ratio(1, 0)));
  assert.ok(Number.isNaN(ratio(Number.NaN, 3)));
});

test('paired ratios pair round i with round i', () => {
  assert.deepEqual(pairedRatios([2, 6, 9], [1, 3]), [2, 2]);
});

test('summary reports the spread of the samples', () => {
  const s = summarize([5, 1, 3]);
  assert.deepEqual({ n: s.n, median: s.median, min: s.min, max: s.max }, { n: 3, median: 3, min: 1, max: 5 });
  assert.equal(round(1.23456), 1.23);
});

test('overlapping intervals count once, disjoint ones add up', () => {
  assert.equal(
    unionLength([
      [0, 10],
      [5, 15],
      [20, 25],
    ]),
    20,
  );
  assert.equal(
    unionLength([
      [3, 4],
      [0, 10],
    ]),
    10,
  );
  assert.equal(
    unionLength([
      [5, 5],
      [7, 6],
    ]),
    0,
  );
  assert.equal(unionLength([]), 0);
});
