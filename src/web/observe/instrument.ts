// Counting the errors of the console's calls to its store and to Connect, without changing them:
// the store and each context's HTTP sender are wrapped once, every call goes through unchanged,
// and a failure is counted (and logged) before it is passed on as it was.
import type { HttpSender } from '../../http/client.js';
import type { Store } from '../ops-bridge.js';
import type { ConsoleMetrics } from './metrics.js';
import type { ConsoleLog } from './log.js';

/** Answers a store gives that are not failures of the store: a record that is not there, a connector another run holds, a request moved on. */
const EXPECTED = new Set(['E_NOT_FOUND', 'E_LOCKED', 'E_CHANGED']);

/** The store, its failed calls counted by operation and code. */
export function observedStore(store: Store, metrics: ConsoleMetrics, log: ConsoleLog): Store {
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      // Called on the store itself: its private fields are not the proxy's.
      return (...args: unknown[]): unknown => {
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((err: unknown) => {
          const code = (err as { code?: string }).code ?? 'error';
          if (!EXPECTED.has(code)) {
            metrics.storeErrors.inc({ operation: key, code });
            log.warn({ event: 'store-error', operation: key, code, err: (err as Error).message }, `store call ${key} failed`);
          }
          throw err;
        });
      };
    },
  });
}

/** A context's HTTP sender, its calls that got no answer or a 5xx counted by context. */
export function observedSender(http: HttpSender, context: string, metrics: ConsoleMetrics, log: ConsoleLog): HttpSender {
  return {
    send: async (req) => {
      let res;
      try {
        res = await http.send(req);
      } catch (err) {
        metrics.connectErrors.inc({ context, kind: 'network' });
        log.warn({ event: 'connect-error', context, method: req.method, err: (err as Error).message }, 'a Connect call got no answer');
        throw err;
      }
      if (res.status >= 500) {
        metrics.connectErrors.inc({ context, kind: '5xx' });
        log.warn({ event: 'connect-error', context, method: req.method, status: res.status }, `a Connect call was answered ${res.status}`);
      }
      return res;
    },
  };
}

interface Contexts {
  initialName?: string;
  names(): Promise<string[]>;
  resolve(name: string): Promise<{ http: HttpSender }>;
}

/** The contexts, each one's Connect calls counted (and logged) when they fail; each sender wrapped once. */
export function observedContexts<T extends Contexts>(contexts: T, metrics: ConsoleMetrics, log: ConsoleLog): T {
  const wrapped = new WeakMap<HttpSender, HttpSender>();
  return {
    ...contexts,
    names: () => contexts.names(),
    resolve: async (name: string) => {
      const resolved = await contexts.resolve(name);
      let http = wrapped.get(resolved.http);
      if (!http) {
        http = observedSender(resolved.http, name || contexts.initialName || 'default', metrics, log);
        wrapped.set(resolved.http, http);
      }
      return { ...resolved, http };
    },
  };
}
