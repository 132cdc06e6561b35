// Sign-in attempts per client address: at most N in any minute (a sliding window of the last
// attempts). Guessing a login token, replaying callbacks or hammering the provider through the
// console gets 429 with Retry-After; nothing else is slowed. Memory stays bounded: addresses
// without a recent attempt are forgotten.
export class RateLimit {
  readonly #hits = new Map<string, number[]>();

  constructor(readonly perMinute: number, readonly now: () => number = Date.now) {}

  /** Counts an attempt; returns the seconds to wait when over the limit (the attempt is not counted then), else 0. */
  take(address: string): number {
    const now = this.now();
    const since = now - 60_000;
    if (this.#hits.size > 10_000) for (const [a, t] of this.#hits) if ((t[t.length - 1] ?? 0) <= since) this.#hits.delete(a);
    const hits = (this.#hits.get(address) ?? []).filter((t) => t > since);
    if (hits.length >= this.perMinute) {
      this.#hits.set(address, hits);
      return Math.max(1, Math.ceil((hits[0]! + 60_000 - now) / 1000));
    }
    hits.push(now);
    this.#hits.set(address, hits);
    return 0;
  }
}
