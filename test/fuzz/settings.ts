// How long the fuzz properties run. The unit suite (CI) runs a short, time-boxed pass;
// `npm run fuzz` sets OFFSETCTL_FUZZ=long: many more cases, a larger time box, and the growth
// checks (input size × 8 must not cost more than × 8 × a generous factor).
import type { Parameters } from 'fast-check';

export const LONG = process.env.OFFSETCTL_FUZZ === 'long';

/** fast-check parameters: a run count and a wall-clock box so no property can hang the suite. */
export function budget(): Parameters<unknown> {
  return LONG
    ? { numRuns: 20_000, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: false }
    : { numRuns: 300, interruptAfterTimeLimit: 4_000, markInterruptAsFailure: false };
}

/** A thrown value is one of the project's typed errors: an Error with a stable E_* code. */
export function isTypedError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return err instanceof Error && typeof code === 'string' && /^E_[A-Z_]+$/.test(code) && err.message.length > 0;
}

/** Calls fn; returns nothing when it returned or threw a typed error, rethrows anything else. */
export function typedOrOk(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    if (!isTypedError(err)) throw err;
  }
}

/**
 * Growth check for `npm run fuzz` only (timing has no place in the unit suite): the time for an
 * input 8 times larger stays under 8 × 6 times the time of the smaller one (linear with noise;
 * a quadratic parser would be ~64×). Returns the measured ratio.
 */
export function growthRatio(run: (size: number) => void, base: number): number {
  const time = (size: number): number => {
    let best = Infinity;
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      run(size);
      best = Math.min(best, performance.now() - start);
    }
    return Math.max(best, 0.05);
  };
  time(base);
  return time(base * 8) / time(base);
}
