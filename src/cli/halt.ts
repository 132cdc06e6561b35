// The second Ctrl-C stops a run at once: from that moment the run's own code sends nothing more
// to Kafka Connect and asks nothing more of the store (its calls wait for ever; the process is
// about to exit), so the account printed then stays true while it is printed. Before, the
// recovery went on during the 3 s the account allowed itself to read the connector's state, ended
// the run and closed the store, and the account said "left interrupted, holding the lock" of a run
// recorded failed with its lock freed (issue 30, point 4). What was already under way when the
// second Ctrl-C came is let finish (`settled`), so the account reads its result.
import type { HttpSender } from '../http/client.js';
import type { Store } from '../store/index.js';

export class Halt {
  #halted = false;
  readonly #underWay = new Set<Promise<unknown>>();

  get halted(): boolean {
    return this.#halted;
  }

  halt(): void {
    this.#halted = true;
  }

  /** Waits (up to `ms`) for the requests and store calls that were under way when halted. */
  async settled(ms: number): Promise<void> {
    const all = Promise.allSettled([...this.#underWay]);
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
  }

  sender(http: HttpSender): HttpSender {
    return { send: (req) => this.#gate(() => http.send(req)) };
  }

  /** The store with every method gated (properties such as `location` read as they are). */
  store(store: Store): Store {
    return new Proxy(store, {
      get: (target, key) => {
        const value = Reflect.get(target, key, target) as unknown;
        if (typeof value !== 'function' || key === 'close') return typeof value === 'function' ? value.bind(target) : value;
        return (...args: unknown[]) => this.#gate(() => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
      },
    });
  }

  #gate<T>(call: () => Promise<T>): Promise<T> {
    if (this.#halted) return new Promise<T>(() => undefined);
    const p = Promise.resolve(call());
    this.#underWay.add(p);
    const forget = (): void => void this.#underWay.delete(p);
    p.then(forget, forget);
    return p;
  }
}
