// Order statistics for benchmark samples. Every figure is a ratio of medians measured in the
// same run as its reference, so a noisy machine moves both sides together.

/** Median of the samples (mean of the two middle values for an even count). Throws on an empty list. */
export function median(samples: readonly number[]): number {
  return quantile(samples, 0.5);
}

/** Linear-interpolated quantile, q in [0, 1]. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) throw new RangeError('quantile of an empty sample list');
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile q must be within [0, 1], got ${q}`);
  const sorted = [...samples].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const low = sorted[lo] as number;
  const high = sorted[hi] as number;
  return low + (high - low) * (pos - lo);
}

/** measured / reference; NaN when the reference is not a positive number (never a fake ratio). */
export function ratio(measured: number, reference: number): number {
  return reference > 0 && Number.isFinite(reference) && Number.isFinite(measured) ? measured / reference : Number.NaN;
}

export interface SampleSummary {
  n: number;
  median: number;
  min: number;
  max: number;
  p25: number;
  p75: number;
}

export function summarize(samples: readonly number[]): SampleSummary {
  return {
    n: samples.length,
    median: median(samples),
    min: Math.min(...samples),
    max: Math.max(...samples),
    p25: quantile(samples, 0.25),
    p75: quantile(samples, 0.75),
  };
}

/**
 * Ratio of medians with a spread: the ratio of each round's pair (interleaved rounds share the
 * machine's state), reported as median and quartiles so a reader sees how stable it was.
 */
export function pairedRatios(measured: readonly number[], reference: readonly number[]): number[] {
  const n = Math.min(measured.length, reference.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(ratio(measured[i] as number, reference[i] as number));
  return out;
}

/** Rounds a number for display and JSON (ms to 2 decimals keeps µs-level detail where it matters). */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Total length covered by possibly overlapping [start, end] intervals (time Connect owns in a run). */
export function unionLength(intervals: ReadonlyArray<readonly [number, number]>): number {
  const sorted = intervals.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  let total = 0;
  let curStart = 0;
  let curEnd = Number.NEGATIVE_INFINITY;
  for (const [a, b] of sorted) {
    if (a > curEnd) {
      if (curEnd > curStart) total += curEnd - curStart;
      curStart = a;
      curEnd = b;
    } else if (b > curEnd) curEnd = b;
  }
  if (curEnd > curStart) total += curEnd - curStart;
  return total;
}
