// Sign-in limits, per flow and client address, in a sliding minute. What is counted are the
// failures (a login link that is not valid, a callback the provider or the token check refused):
// a good sign-in costs nothing, so an office behind one address signs in freely, while guessing
// login tokens or replaying callbacks gets 429 with Retry-After. Starting an OpenID flow is a
// separate, more generous count (each start holds server memory for ten minutes). The address is
// the real client's (behind a trusted proxy, the one it names: sign-in.ts). Memory stays bounded:
// keys without a recent event are forgotten.
import type { SharedConsoleState } from '../ops-bridge.js';

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

/**
 * The failed sign-ins' count: this process's RateLimit, or on a team store the store's (migration
 * 9), so failures through one console replica count toward the limit on every other one (a loop
 * spread over replicas by a load balancer meets one limit).
 */
export class SignInFailures {
  readonly #local: RateLimit;
  #shared: SharedConsoleState | undefined;

  constructor(readonly perMinute: number) {
    this.#local = new RateLimit(perMinute);
  }

  share(state: SharedConsoleState): void {
    this.#shared = state;
  }

  /** Seconds to wait when this key already reached the limit in the last minute, else 0. */
  async wait(key: string): Promise<number> {
    if (!this.#shared) return this.#local.wait(key);
    const { count, retryAfterSeconds } = await this.#shared.signInFailures(key, 60);
    return count >= this.perMinute ? retryAfterSeconds : 0;
  }

  async count(key: string): Promise<void> {
    if (this.#shared) await this.#shared.addSignInFailure(key, 60);
    else this.#local.count(key);
  }
}
