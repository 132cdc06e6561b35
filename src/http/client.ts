// The one HTTP client: undici with keep-alive, TLS material, auth and timeouts in one place.
// Everything above it sees plain request/response records; secrets never leave this layer
// except inside the Authorization header it adds itself (see redact.ts for what is masked).
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';

export type HttpAuth =
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'bearer'; token: string };

export interface HttpTls {
  /** PEM text of extra CA certificates to trust. */
  ca?: string;
  /** PEM client certificate and key for mTLS. */
  cert?: string;
  key?: string;
  /** Skip certificate verification: only when the operator asked for it (`--insecure`). */
  insecure?: boolean;
}

export interface HttpClientOptions {
  auth?: HttpAuth;
  tls?: HttpTls;
  /** Per-request timeout for headers and body, in ms. Kafka Connect's own REST timeout is 90 s. */
  timeoutMs?: number;
  /** Headers added to every request (a step's own headers win). */
  headers?: Record<string, string>;
}

export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
  /** Time from sending to the last body byte, in ms. */
  durationMs: number;
}

export class HttpTransportError extends Error {
  readonly code = 'E_HTTP';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HttpTransportError';
  }
}

export interface HttpSender {
  send(req: HttpRequest): Promise<HttpResponse>;
}

export class HttpClient implements HttpSender {
  readonly #dispatcher: Dispatcher;
  readonly #options: HttpClientOptions;

  constructor(options: HttpClientOptions = {}) {
    this.#options = options;
    const tls = options.tls ?? {};
    this.#dispatcher = new Agent({
      connect: {
        ...(tls.ca === undefined ? {} : { ca: tls.ca }),
        ...(tls.cert === undefined ? {} : { cert: tls.cert }),
        ...(tls.key === undefined ? {} : { key: tls.key }),
        rejectUnauthorized: tls.insecure !== true,
      },
      headersTimeout: options.timeoutMs ?? 120_000,
      bodyTimeout: options.timeoutMs ?? 120_000,
    });
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    const headers: Record<string, string> = { ...this.#options.headers, ...req.headers };
    const auth = this.#options.auth;
    if (auth && !hasHeader(headers, 'authorization')) {
      headers['authorization'] =
        auth.kind === 'basic'
          ? `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`
          : `Bearer ${auth.token}`;
    }
    const started = performance.now();
    try {
      const res = await undiciRequest(req.url, {
        method: req.method.toUpperCase() as Dispatcher.HttpMethod,
        headers,
        body: req.body ?? null,
        dispatcher: this.#dispatcher,
        ...(req.signal ? { signal: req.signal } : {}),
      });
      const body = Buffer.from(await res.body.arrayBuffer());
      return { status: res.statusCode, headers: normalizeHeaders(res.headers), body, durationMs: performance.now() - started };
    } catch (err) {
      throw new HttpTransportError(`${req.method.toUpperCase()} ${req.url} failed: ${describeTransportError(err, req.url.startsWith('https:'))}`, { cause: err });
    }
  }

  async close(): Promise<void> {
    await this.#dispatcher.close();
  }
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}

function normalizeHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

function describeTransportError(err: unknown, https: boolean): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused (is the server running and is the URL right?)';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'timed out waiting for the server';
  if (code === 'ENOTFOUND') return 'host name not found';
  // A server that requires a client certificate and gets none closes the TLS connection
  // without a word; undici then only says "other side closed".
  if (https && /other side closed|ECONNRESET|CERTIFICATE_REQUIRED|HANDSHAKE/i.test(`${code ?? ''} ${e.message ?? ''}`)) {
    return `${code ? code + ': ' : ''}${e.message ?? String(err)} (the server may require a client certificate: give --cert <pem> and --key <pem>)`;
  }
  if (code && /CERT|SSL|TLS|VERIFY|SIGNATURE|ISSUER/.test(code)) return `TLS error ${code}: ${e.message ?? ''} (use --ca for a private CA, or --insecure only if you accept the risk)`;
  return `${code ? code + ': ' : ''}${e.message ?? String(err)}`;
}
