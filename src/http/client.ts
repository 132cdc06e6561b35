// The one HTTP client: undici with keep-alive, TLS material, auth and timeouts in one place.
// Everything above it sees plain request/response records; secrets never leave this layer
// except inside the Authorization header it adds itself (see redact.ts for what is masked).
import { createRequire } from 'node:module';
import type { Agent, Dispatcher } from 'undici';
import { splitRequestUrl } from './_request-target.js';
import { bundledUndici } from './bundled.js';

// The methods HTTP and OpenAPI name (OpenAPI 3.2 adds QUERY), sent upper-case however they are
// written; any other method (an OpenAPI 3.2 additionalOperations key) goes out exactly as written,
// since method names are case-sensitive and the description gives the capitalization to send.
const KNOWN_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query', 'connect']);

export function wireMethod(method: string): string {
  return KNOWN_METHODS.has(method.toLowerCase()) ? method.toUpperCase() : method;
}

export type HttpAuth = { kind: 'basic'; username: string; password: string } | { kind: 'bearer'; token: string };

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

/**
 * What usually fixes a transport failure, without naming any face's flags: a face turns it into
 * its own advice (the CLI: --cert/--key, --ca/--insecure).
 */
export type TransportHint = 'client-certificate' | 'tls-trust';

export class HttpTransportError extends Error {
  readonly code = 'E_HTTP';
  readonly hint: TransportHint | undefined;
  constructor(message: string, options?: { cause?: unknown; hint?: TransportHint }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HttpTransportError';
    this.hint = options?.hint;
  }
}

export interface HttpSender {
  send(req: HttpRequest): Promise<HttpResponse>;
}

type DispatchRequest = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

interface Transport {
  Agent: typeof Agent;
  request: DispatchRequest;
}

const requireCjs = createRequire(import.meta.url);
let transport: Transport | undefined;

/**
 * undici's entry point loads fetch, WebSocket, mocks and cache stores too: about two thirds of
 * its start-up cost, none of which this client uses. Load the agent and the request method
 * alone; should a future undici move them, fall back to the entry point (slower, same result).
 */
function loadTransport(): Transport {
  if (transport) return transport;
  try {
    // A packed undici handed in (src/http/bundled.ts: the CLI's build entry hands in the one file
    // it bundled); tsc's output and the tests hand in nothing and use the package itself.
    const bundled = bundledUndici()?.();
    if (typeof bundled?.Agent === 'function' && typeof bundled.request === 'function')
      return (transport = { Agent: bundled.Agent as typeof Agent, request: bundled.request as DispatchRequest });
  } catch {
    // a provider that fails: load the package's own files below
  }
  try {
    const agent = requireCjs('undici/lib/dispatcher/agent') as unknown;
    const request = requireCjs('undici/lib/api/api-request') as unknown;
    if (typeof agent === 'function' && typeof request === 'function')
      return (transport = { Agent: agent as typeof Agent, request: request as DispatchRequest });
  } catch {
    // an undici with another layout: use its public entry point below
  }
  const undici = requireCjs('undici') as typeof import('undici');
  return (transport = { Agent: undici.Agent, request: undici.Dispatcher.prototype.request as unknown as DispatchRequest });
}

export class HttpClient implements HttpSender {
  readonly #dispatcher: Dispatcher;
  readonly #options: HttpClientOptions;
  readonly #request: DispatchRequest;
  /** Whether every request needs its headers merged (default headers or auth to add). */
  readonly #mergeHeaders: boolean;

  constructor(options: HttpClientOptions = {}) {
    this.#options = options;
    this.#mergeHeaders = options.auth !== undefined || (options.headers !== undefined && Object.keys(options.headers).length > 0);
    const tls = options.tls ?? {};
    const { Agent: UndiciAgent, request } = loadTransport();
    this.#request = request;
    this.#dispatcher = new UndiciAgent({
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
    // undici only reads the headers object, so a step's own headers go out without a copy.
    const headers = this.#mergeHeaders ? requestHeaders(this.#options, req.headers) : req.headers;
    const method = wireMethod(req.method) as Dispatcher.HttpMethod;
    const started = performance.now();
    try {
      const { origin, path } = splitRequestUrl(req.url);
      const options: Dispatcher.RequestOptions = { origin, path, method, headers: headers ?? null, body: req.body ?? null };
      if (req.signal) options.signal = req.signal;
      const res = await this.#request.call(this.#dispatcher, options);
      const body = Buffer.from(await res.body.arrayBuffer());
      // undici gives lower-case names already; arrays for repeated headers.
      return { status: res.statusCode, headers: res.headers as Record<string, string | string[]>, body, durationMs: performance.now() - started };
    } catch (err) {
      const { text, hint } = describeTransportError(err, req.url.startsWith('https:'));
      throw new HttpTransportError(`${wireMethod(req.method)} ${req.url} failed: ${text}`, { cause: err, ...(hint ? { hint } : {}) });
    }
  }

  async close(): Promise<void> {
    await this.#dispatcher.close();
  }
}

/** A request's headers: the client's defaults, the request's own, and the client's auth unless the request sets one. */
export function requestHeaders(options: HttpClientOptions, own: Record<string, string> | undefined): Record<string, string> {
  const headers: Record<string, string> = { ...options.headers, ...own };
  const auth = options.auth;
  if (auth && !hasHeader(headers, 'authorization')) {
    headers['authorization'] = auth.kind === 'basic' ? `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` : `Bearer ${auth.token}`;
  }
  return headers;
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  for (const k in headers) if (k.toLowerCase() === name) return true;
  return false;
}

export function describeTransportError(err: unknown, https: boolean): { text: string; hint?: TransportHint } {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (code === 'ECONNREFUSED') return { text: 'connection refused (is the server running and is the URL right?)' };
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return { text: 'timed out waiting for the server' };
  if (code === 'ENOTFOUND') return { text: 'host name not found' };
  // TLS to a plain-HTTP port: the "record" OpenSSL reads is an HTTP answer ("HTTP/1.1 400").
  if (https && /wrong version number|packet length too long|http request|ERR_SSL_HTTP_REQUEST/i.test(`${code ?? ''} ${e.message ?? ''}`)) {
    return { text: 'this server speaks plain HTTP, not HTTPS: use an http:// URL' };
  }
  // A server that requires a client certificate and gets none closes the TLS connection
  // without a word; undici then only says "other side closed". Node's https module may read the
  // server's TLS alert instead: "bad certificate" is the server's verdict on ours (or its absence).
  if (https && /other side closed|ECONNRESET|CERTIFICATE_REQUIRED|HANDSHAKE|ALERT_BAD_CERTIFICATE/i.test(`${code ?? ''} ${e.message ?? ''}`)) {
    // (OpenSSL's own text ends in a newline; the advice belongs on the same line.)
    return { text: `${code ? code + ': ' : ''}${(e.message ?? String(err)).trim()} (the server may require a client certificate)`, hint: 'client-certificate' };
  }
  if (code && /CERT|SSL|TLS|VERIFY|SIGNATURE|ISSUER/.test(code))
    return { text: `TLS error ${code}: ${e.message ?? ''} (the server's certificate is not trusted here)`, hint: 'tls-trust' };
  return { text: `${code ? code + ': ' : ''}${e.message ?? String(err)}` };
}
