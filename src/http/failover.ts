// Several Kafka Connect workers behind one logical URL (`--url http://w1:8083,http://w2:8083`).
// Any worker of a Connect cluster answers every REST call (it forwards to the leader itself), so
// a worker that cannot be reached is replaced by the next one. Only connection errors move on:
// an HTTP answer, even a 500, is the cluster speaking and goes back to the caller unchanged. A
// changing request (PATCH, DELETE, PUT, POST) moves on only when it provably never left this
// machine (connection refused, no route, name not found, connect timeout); when it may have been
// delivered (reset, timeout while waiting for the answer) the error goes back, so the run stops
// and its recovery reads the offsets back instead of sending the change twice.
import { HttpTransportError, type HttpRequest, type HttpResponse, type HttpSender } from './client.js';

/** The response header naming the worker that answered (recorded in the run journal). */
export const WORKER_HEADER = 'x-offsetctl-worker';

const NOT_DELIVERED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'ECONNABORTED']);
const MAYBE_DELIVERED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface Closable extends HttpSender {
  close(): Promise<void>;
}

function errorCode(err: unknown): string | undefined {
  let e = err as { code?: unknown; cause?: unknown } | undefined;
  // HttpTransportError's own code is E_HTTP; the socket's code is in the cause chain.
  for (let i = 0; e && i < 5; i++) {
    if (typeof e.code === 'string' && e.code !== 'E_HTTP') return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

/** May this error be answered by trying the same request on another worker? */
export function mayFailOver(method: string, err: unknown): boolean {
  if (!(err instanceof HttpTransportError)) return false;
  const code = errorCode(err);
  if (code === undefined) return false;
  if (NOT_DELIVERED.has(code)) return true;
  return SAFE_METHODS.has(method.toUpperCase()) && MAYBE_DELIVERED.has(code);
}

export class FailoverClient implements Closable {
  readonly #inner: Closable;
  readonly #urls: string[];
  readonly #onFailover: (from: string, to: string, why: string) => void;
  #current = 0;

  /** `urls[0]` is the URL every request is addressed to; the others stand in for it. */
  constructor(inner: Closable, urls: string[], onFailover: (from: string, to: string, why: string) => void = () => {}) {
    if (urls.length === 0) throw new Error('FailoverClient needs at least one URL');
    this.#inner = inner;
    this.#urls = urls.map((u) => u.replace(/\/+$/, ''));
    this.#onFailover = onFailover;
  }

  /** The worker requests go to now. */
  get current(): string {
    return this.#urls[this.#current] as string;
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    const primary = this.#urls[0] as string;
    const own = req.url === primary || req.url.startsWith(`${primary}/`);
    if (!own) return this.#inner.send(req);
    const path = req.url.slice(primary.length);
    let lastError: unknown;
    // Each worker at most once per request, starting with the one that answered last.
    for (let tried = 0; tried < this.#urls.length; tried++) {
      const worker = this.current;
      try {
        const res = await this.#inner.send({ ...req, url: worker + path });
        return { ...res, headers: { ...res.headers, [WORKER_HEADER]: worker } };
      } catch (err) {
        lastError = err;
        if (!mayFailOver(req.method, err) || req.signal?.aborted) throw err;
        const next = (this.#current + 1) % this.#urls.length;
        if (tried + 1 < this.#urls.length) this.#onFailover(worker, this.#urls[next] as string, (err as Error).message);
        this.#current = next;
      }
    }
    throw new HttpTransportError(
      `${req.method.toUpperCase()} ${path}: no Kafka Connect worker could be reached (${this.#urls.join(', ')}); last error: ${(lastError as Error).message}`,
      { cause: lastError },
    );
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
