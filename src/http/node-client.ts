// The HTTP client of the one-request read commands (`connectors`, `offsets get`): Node's own
// http/https modules instead of undici. Node's http parser is native, while undici's is llhttp
// compiled to WebAssembly and undici itself is some thirty modules (HTTP/2, diagnostics, perf
// hooks); for a process that sends one or two requests and exits, loading and compiling that is
// most of its own CPU (measured, BENCHMARKS.md figure 3: one request ~60 ms less CPU). The
// workflow engine and the web console keep HttpClient (undici, keep-alive pool).
// Same options, same response records and the same error texts and codes as HttpClient, so
// failover (failover.ts) and the retry of forwarded requests (forward-retry.ts) decide alike.
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import type * as HttpModule from 'node:http';
import type * as HttpsModule from 'node:https';
import { createRequire } from 'node:module';
import {
  describeTransportError,
  HttpTransportError,
  requestHeaders,
  wireMethod,
  type HttpClientOptions,
  type HttpRequest,
  type HttpResponse,
  type HttpSender,
} from './client.js';

// Loaded with require, not `import * as`: on Node 22+ an ES module namespace of node:http reads
// every export, and a few are getters that load Node's own copy of undici (fetch, WebSocket):
// ~80 ms of a rewind's CPU on Node 24 (BENCHMARKS.md, figure 5). https (TLS) only for https URLs.
const requireBuiltin = createRequire(import.meta.url);
let httpModule: typeof HttpModule | undefined;
let httpsModule: typeof HttpsModule | undefined;
const http = (): typeof HttpModule => (httpModule ??= requireBuiltin('node:http') as typeof HttpModule);
const https = (): typeof HttpsModule => (httpsModule ??= requireBuiltin('node:https') as typeof HttpsModule);

/** undici's connect timeout, kept so a dead host fails over just as soon. */
const CONNECT_TIMEOUT_MS = 10_000;

export class NodeHttpClient implements HttpSender {
  readonly #options: HttpClientOptions;
  readonly #agents = new Map<'http:' | 'https:', HttpModule.Agent>();

  constructor(options: HttpClientOptions = {}) {
    this.#options = options;
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    const started = performance.now();
    try {
      const res = await this.#exchange(req);
      return { ...res, durationMs: performance.now() - started };
    } catch (err) {
      const { text, hint } = describeTransportError(err, req.url.startsWith('https:'));
      throw new HttpTransportError(`${wireMethod(req.method)} ${req.url} failed: ${text}`, { cause: err, ...(hint ? { hint } : {}) });
    }
  }

  #exchange(req: HttpRequest): Promise<Omit<HttpResponse, 'durationMs'>> {
    const target = new URL(req.url);
    const secure = target.protocol === 'https:';
    const timeoutMs = this.#options.timeoutMs ?? 120_000;
    const options: RequestOptions = {
      method: wireMethod(req.method),
      headers: requestHeaders(this.#options, req.headers),
      agent: this.#agent(secure ? 'https:' : 'http:'),
      ...(req.signal ? { signal: req.signal } : {}),
    };
    return new Promise((resolve, reject) => {
      let settled = false;
      let request: ClientRequest | undefined;
      const fail = (err: unknown): void => {
        if (settled) return;
        settled = true;
        request?.destroy();
        reject(err);
      };
      // The timeouts undici applies: to the connection, to the response headers, to the body.
      const timeout = (code: string, message: string): Error => Object.assign(new Error(message), { code });
      let timer = setTimeout(() => fail(timeout('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error')), timeoutMs);
      const onResponse = (res: IncomingMessage): void => {
        clearTimeout(timer);
        const chunks: Buffer[] = [];
        const armBodyTimer = (): void => {
          clearTimeout(timer);
          timer = setTimeout(() => fail(timeout('UND_ERR_BODY_TIMEOUT', 'Body Timeout Error')), timeoutMs);
        };
        armBodyTimer();
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          armBodyTimer();
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          fail(err);
        });
        res.on('end', () => {
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          // undici's shape: lower-case names, an array only for a repeated header.
          const headers: Record<string, string | string[]> = {};
          for (const [name, values] of Object.entries(res.headersDistinct)) {
            if (values !== undefined) headers[name] = values.length === 1 ? (values[0] ?? '') : values;
          }
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
        });
      };
      request = (secure ? https() : http()).request(target, options, onResponse);
      request.on('error', (err) => {
        clearTimeout(timer);
        fail(err);
      });
      request.on('socket', (socket) => {
        if (!socket.connecting) return;
        const connectTimer = setTimeout(() => fail(timeout('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error')), Math.min(CONNECT_TIMEOUT_MS, timeoutMs));
        socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
        socket.once('close', () => clearTimeout(connectTimer));
      });
      request.end(req.body === undefined ? undefined : Buffer.from(req.body));
    });
  }

  #agent(protocol: 'http:' | 'https:'): HttpModule.Agent {
    let agent = this.#agents.get(protocol);
    if (agent === undefined) {
      const tls = this.#options.tls ?? {};
      agent =
        protocol === 'https:'
          ? new (https().Agent)({
              keepAlive: true,
              ...(tls.ca === undefined ? {} : { ca: tls.ca }),
              ...(tls.cert === undefined ? {} : { cert: tls.cert }),
              ...(tls.key === undefined ? {} : { key: tls.key }),
              rejectUnauthorized: tls.insecure !== true,
            })
          : new (http().Agent)({ keepAlive: true });
      this.#agents.set(protocol, agent);
    }
    return agent;
  }

  async close(): Promise<void> {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }
}
