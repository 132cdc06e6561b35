// What the engine needs from HTTP, and nothing more: it builds a request and hands it to the
// sender its caller gives it (the operator tool passes its undici or node:http client; a user of
// the package may pass `fetchSender()` or their own). The engine opens no connection itself.

export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  /** Header names in lower case; an array for a repeated header. */
  headers: Record<string, string | string[]>;
  body: Uint8Array;
  /** Time from sending to the last body byte, in ms. */
  durationMs: number;
}

export interface HttpSender {
  send(req: HttpRequest): Promise<HttpResponse>;
}

/** Headers that always carry credentials: their values never reach an event. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key', 'x-auth-token']);

/**
 * The headers as events show them: credential headers masked. Other secrets a caller knows of
 * (a password echoed in a value) are the caller's to mask where the events leave its process.
 */
export function maskCredentialHeaders(headers: Record<string, string | string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = CREDENTIAL_HEADERS.has(k.toLowerCase()) ? '***' : v;
  return out;
}

/** A sender over the global `fetch` (Node ≥ 18): enough for the package's CLI and simple uses. */
export function fetchSender(defaults: { headers?: Record<string, string>; timeoutMs?: number } = {}): HttpSender {
  return {
    async send(req) {
      const started = performance.now();
      const timeout = AbortSignal.timeout(defaults.timeoutMs ?? 120_000);
      const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
      const res = await fetch(req.url, {
        method: req.method.toUpperCase(),
        headers: { ...defaults.headers, ...req.headers },
        ...(req.body === undefined ? {} : { body: req.body as BodyInit }),
        signal,
      });
      const body = new Uint8Array(await res.arrayBuffer());
      const headers: Record<string, string | string[]> = {};
      res.headers.forEach((value, name) => {
        headers[name] = name === 'set-cookie' ? res.headers.getSetCookie() : value;
      });
      return { status: res.status, headers, body, durationMs: performance.now() - started };
    },
  };
}
