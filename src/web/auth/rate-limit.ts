// Sign-in limits, per flow and client address, in a sliding minute. What is counted are the
// failures (a login link that is not valid, a callback the provider or the token check refused):
// a good sign-in costs nothing, so an office behind one address signs in freely, while guessing
// login tokens or replaying callbacks gets 429 with Retry-After. Starting an OpenID flow is a
// separate, more generous count (each start holds server memory for ten minutes). The address is
// the real client's (behind a trusted proxy, the one it names: sign-in.ts). Memory stays bounded:
// keys without a recent event are forgotten.
export class RateLimit {
  readonly #hits = new Map<string, number[]>();

  constructor(readonly perMinute: number, readonly now: () => number = Date.now) {}

  /** Seconds to wait when this key already reached the limit in the last minute, else 0 (nothing counted). */
  wait(key: string): number {
    const now = this.now();
    const hits = this.#recent(key, now);
    return hits.length >= this.perMinute ? Math.max(1, Math.ceil((hits[0]! + 60_000 - now) / 1000)) : 0;
  }

  /** Counts one event (a failure, a start) for this key. */
  count(key: string): void {
    const now = this.now();
    const hits = this.#recent(key, now);
    hits.push(now);
    this.#hits.set(key, hits);
  }

  /** Counts an event unless over the limit: the seconds to wait then (not counted), else 0. */
  take(key: string): number {
    const wait = this.wait(key);
    if (wait === 0) this.count(key);
    return wait;
  }

  #recent(key: string, now: number): number[] {
    const since = now - 60_000;
    if (this.#hits.size > 10_000) for (const [k, t] of this.#hits) if ((t[t.length - 1] ?? 0) <= since) this.#hits.delete(k);
    const hits = (this.#hits.get(key) ?? []).filter((t) => t > since);
    if (hits.length > 0) this.#hits.set(key, hits);
    else this.#hits.delete(key);
    return hits;
  }
}
