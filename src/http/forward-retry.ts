// Kafka Connect answers that mean "the worker I forward to is gone, ask again": a worker that is not
// the leader forwards changes (and a few reads) to the leader it knows. When that leader has just
// died, the forward fails and the worker answers 500 until the group has rebalanced and a new
// leader is known (about a session timeout, 10 s by default). Kafka Connect's own words, from
// connect/runtime/.../rest/RestClient.java (3.6 to 4.x):
//   500 "IO Error trying to forward REST request: <cause>"  (IOException, TimeoutException, ExecutionException)
//   500 "Thread was interrupted trying to forward REST request: <cause>"
//   500 "Error trying to forward REST request: <cause>"     (anything else on the forward; 3.7+)
// and from rest/HerderRequestHandler.java / distributed/DistributedHerder.java, the 409s of a
// rebalance (no known leader URL, more than two hops, stale configuration, rebalance expected).
// The 409s are already retried by the workflows and the ops layer; this sender retries the 500s
// of a failed forward, which otherwise end a run although nothing happened on the cluster.
//
// Only the forward failed, but whether the leader applied the request before it died is unknown
// for anything but "Connection refused" (a timeout or an EOF may come after the leader acted). So
// reads and the idempotent state changes (PUT stop/pause/resume) are simply sent again, while a
// PATCH or DELETE of /connectors/{c}/offsets is sent again only after reading the offsets back
// shows that it did not apply; when it did apply, the answer says so (never a second change).
import { HttpTransportError, type HttpRequest, type HttpResponse } from './client.js';
import type { Closable } from './failover.js';

/** The response header that tells the journal what this sender did before this answer. */
export const RETRIES_HEADER = 'x-offsetctl-retries';

const FORWARD_FAILED = /^(?:IO Error|Thread was interrupted|Error) trying to forward REST request/;
const OFFSETS_PATH = /^(.*\/connectors\/[^/?#]+)\/offsets(?:\?.*)?$/;

export interface ForwardRetryOptions {
  /** How long to keep retrying one request, in ms (default 60 s: a session timeout plus a rebalance). */
  budgetMs?: number;
  /** First pause, doubled up to maxPauseMs (defaults 250 ms and 2 s). */
  firstPauseMs?: number;
  maxPauseMs?: number;
  /** One line per retry, for a person (the CLI prints it on stderr). */
  onRetry?: (line: string) => void;
}

/** Connect's error message of a 500, when it says a forward to another worker failed. */
export function forwardFailure(res: Pick<HttpResponse, 'status' | 'body'>): string | undefined {
  if (res.status !== 500) return undefined;
  let message: unknown;
  try {
    message = (JSON.parse(res.body.toString('utf8')) as { message?: unknown }).message;
  } catch {
    return undefined;
  }
  return typeof message === 'string' && FORWARD_FAILED.test(message) ? message : undefined;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

export class ForwardRetryClient implements Closable {
  readonly #inner: Closable;
  readonly #budgetMs: number;
  readonly #firstPauseMs: number;
  readonly #maxPauseMs: number;
  readonly #onRetry: (line: string) => void;

  constructor(inner: Closable, options: ForwardRetryOptions = {}) {
    this.#inner = inner;
    this.#budgetMs = options.budgetMs ?? 60_000;
    this.#firstPauseMs = options.firstPauseMs ?? 250;
    this.#maxPauseMs = options.maxPauseMs ?? 2_000;
    this.#onRetry = options.onRetry ?? (() => {});
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    const method = req.method.toUpperCase();
    const offsetsChange = method === 'PATCH' || method === 'DELETE' ? OFFSETS_PATH.exec(req.url)?.[1] : undefined;
    // Other changing requests (POST a connector, PUT a config) are not offsetctl's to repeat.
    const repeatable =
      offsetsChange !== undefined || method === 'GET' || method === 'HEAD' || (method === 'PUT' && /\/(stop|pause|resume)(?:\?.*)?$/.test(req.url));
    let res = await this.#inner.send(req);
    if (!repeatable) return res;
    const deadline = Date.now() + this.#budgetMs;
    const account: string[] = [];
    for (let pause = this.#firstPauseMs; ; pause = Math.min(pause * 2, this.#maxPauseMs)) {
      const failure = forwardFailure(res);
      if (failure === undefined || Date.now() + pause > deadline || req.signal?.aborted) break;
      const line = `${method} ${pathOf(req.url)}: Kafka Connect answered 500 "${failure.slice(0, 160)}" (the worker it forwards to is gone); asking again in ${(pause / 1000).toFixed(2)} s`;
      this.#onRetry(line);
      account.push(`500 forward failed; waited ${pause} ms`);
      await sleep(pause, req.signal);
      if (offsetsChange !== undefined) {
        const check = await this.#applied(offsetsChange, method, req);
        if (check.applied === undefined) {
          // Unknown is not "not applied": the change is not sent again on a guess; the run stops
          // on Connect's answer and its recovery reads the offsets back.
          account.push(`read back: unknown (${check.why}); not sent again`);
          break;
        }
        if (check.applied) {
          account.push(`read back: applied (${check.why}); not sent again`);
          this.#onRetry(`${method} ${pathOf(req.url)}: read back the offsets: the change is in place (${check.why}); it is not sent again`);
          return verified(res, account, check.why);
        }
        account.push(`read back: not applied (${check.why}); sent again`);
      } else account.push('sent again');
      res = await this.#inner.send(req);
    }
    return account.length === 0 ? res : { ...res, headers: { ...res.headers, [RETRIES_HEADER]: account.join('; ') } };
  }

  /** Does the connector's offsets read-back show `req`'s change in place? */
  async #applied(connectorUrl: string, method: string, req: HttpRequest): Promise<{ applied: boolean | undefined; why: string }> {
    let read: HttpResponse;
    try {
      read = await this.#inner.send({
        method: 'GET',
        url: `${connectorUrl}/offsets`,
        headers: { accept: 'application/json' },
        ...(req.signal ? { signal: req.signal } : {}),
      });
    } catch (err) {
      if (err instanceof HttpTransportError) return { applied: undefined, why: `the read-back failed: ${err.message}` };
      throw err;
    }
    if (read.status !== 200) return { applied: undefined, why: `the read-back answered ${read.status}` };
    let offsets: Array<{ partition?: unknown; offset?: unknown }>;
    try {
      offsets = (JSON.parse(read.body.toString('utf8')) as { offsets?: typeof offsets }).offsets ?? [];
    } catch {
      return { applied: undefined, why: 'the read-back was not JSON' };
    }
    const present = new Map(offsets.filter((o) => o.offset !== null && o.offset !== undefined).map((o) => [canonical(o.partition), canonical(o.offset)]));
    if (method === 'DELETE')
      return present.size === 0 ? { applied: true, why: 'no offsets left' } : { applied: false, why: `${present.size} partition(s) still have offsets` };
    let wanted: Array<{ partition?: unknown; offset?: unknown }>;
    try {
      wanted = (JSON.parse(Buffer.from(req.body ?? '').toString('utf8')) as { offsets?: typeof wanted }).offsets ?? [];
    } catch {
      return { applied: false, why: 'the request body is not JSON' };
    }
    const differing = wanted.filter((w) => {
      const now = present.get(canonical(w.partition));
      return w.offset === null || w.offset === undefined ? now !== undefined : now !== canonical(w.offset);
    }).length;
    return differing === 0
      ? { applied: true, why: `all ${wanted.length} partition(s) have the requested offsets` }
      : { applied: false, why: `${differing} of ${wanted.length} partition(s) differ from the request` };
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

function verified(res: HttpResponse, account: string[], why: string): HttpResponse {
  const body = JSON.stringify({
    message: `The offsets were read back and are in place (${why}); Kafka Connect's own answer was lost when the worker it forwarded to died`,
  });
  return {
    status: 200,
    durationMs: res.durationMs,
    body: Buffer.from(body),
    headers: { ...res.headers, 'content-type': 'application/json', [RETRIES_HEADER]: account.join('; ') },
  };
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** JSON with sorted keys, so two equal offsets compare equal whatever Connect's key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
