// A real HTTP server on loopback for engine tests: routes are plain functions, every request
// is recorded so tests can assert what was actually sent on the wire.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query as sent (still percent-encoded). */
  rawUrl: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Objects are sent as JSON. */
  body?: unknown;
}

export type Route = (req: RecordedRequest) => Reply | Promise<Reply>;

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  /** Replace or add the handler for `METHOD /path` (path without query). */
  route(method: string, path: string, handler: Route): void;
  close(): Promise<void>;
}

function send(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers };
  let body = '';
  if (reply.body !== undefined) {
    if (typeof reply.body === 'string') body = reply.body;
    else {
      body = JSON.stringify(reply.body);
      headers['content-type'] ??= 'application/json';
    }
  }
  res.writeHead(reply.status ?? 200, headers);
  res.end(body);
}

export async function startServer(routes: Record<string, Route> = {}): Promise<TestServer> {
  const table = new Map<string, Route>(Object.entries(routes));
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawUrl = req.url ?? '/';
      const parsed = new URL(rawUrl, 'http://localhost');
      const recorded: RecordedRequest = { method: req.method ?? 'GET', rawUrl, path: parsed.pathname, query: parsed.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(recorded);
      const exact = table.get(`${recorded.method} ${recorded.path}`);
      const prefix = exact ? undefined : [...table.entries()].find(([k]) => k.endsWith('*') && `${recorded.method} ${recorded.path}`.startsWith(k.slice(0, -1)))?.[1];
      const handler = exact ?? prefix;
      if (!handler) return send(res, { status: 404, body: { error_code: 404, message: `no route ${recorded.method} ${recorded.path}` } });
      Promise.resolve(handler(recorded)).then(
        (reply) => send(res, reply),
        (err: unknown) => send(res, { status: 500, body: { message: String(err) } }),
      );
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route: (method, path, handler) => void table.set(`${method} ${path}`, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
