// The minimal loopback HTTP server every HTTP figure is measured against: a counter that a
// workflow loops on, and just enough of Kafka Connect's offset endpoints for the six-step
// rewind shape. It does as little as a server can, so the figures show client-side cost.
// Run on its own (`node dist/bench/server.js`) it prints `{"url": ...}` and serves until killed.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface BenchServer {
  url: string;
  /** Requests served since start, for checking that a run really sent what it claims. */
  requestCount(): number;
  close(): Promise<void>;
}

interface ConnectorState {
  state: 'RUNNING' | 'STOPPED';
  position: number;
}

export async function startBenchServer(): Promise<BenchServer> {
  const counters = new Map<string, number>();
  const connectors = new Map<string, ConnectorState>();
  let served = 0;

  const server: Server = createServer((req, res) => {
    served++;
    const body: Buffer[] = [];
    req.on('data', (chunk: Buffer) => body.push(chunk));
    req.on('end', () => route(req, res, Buffer.concat(body).toString('utf8'), counters, connectors));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requestCount: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function route(req: IncomingMessage, res: ServerResponse, text: string, counters: Map<string, number>, connectors: Map<string, ConnectorState>): void {
  const url = new URL(req.url ?? '/', 'http://bench');
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const method = req.method ?? 'GET';

  // GET /counter/{runId}/next?limit=N → {"n": k, "done": k >= N}; each runId counts from 1.
  if (method === 'GET' && parts[0] === 'counter' && parts[2] === 'next' && parts[1] !== undefined) {
    const n = (counters.get(parts[1]) ?? 0) + 1;
    counters.set(parts[1], n);
    const limit = Number(url.searchParams.get('limit') ?? '1000');
    return json(res, 200, { n, done: n >= limit });
  }

  // GET /counter/{runId} → {"n": k}: lets the bench check a run really sent `limit` requests.
  if (method === 'GET' && parts[0] === 'counter' && parts[1] !== undefined && parts.length === 2) {
    return json(res, 200, { n: counters.get(parts[1]) ?? 0 });
  }

  if (parts[0] === 'connectors' && parts[1] !== undefined) {
    const name = parts[1];
    let c = connectors.get(name);
    if (!c) {
      c = { state: 'RUNNING', position: 4096 };
      connectors.set(name, c);
    }
    const action = `${method} ${parts[2] ?? ''}`;
    switch (action) {
      case 'PUT stop':
        c.state = 'STOPPED';
        return empty(res, 204);
      case 'PUT resume':
        c.state = 'RUNNING';
        return empty(res, 202);
      case 'GET offsets':
        return json(res, 200, { offsets: [{ partition: { filename: '/data/bench.txt' }, offset: { position: c.position } }] });
      case 'PATCH offsets': {
        if (c.state !== 'STOPPED') return json(res, 400, { error_code: 400, message: 'connector must be STOPPED' });
        const wanted = (JSON.parse(text) as { offsets?: Array<{ offset?: { position?: number } }> }).offsets?.[0]?.offset?.position;
        c.position = typeof wanted === 'number' ? wanted : 0;
        return json(res, 200, { message: 'The offsets for this connector have been altered successfully' });
      }
      case 'GET status':
        return json(res, 200, {
          name,
          connector: { state: c.state, worker_id: '127.0.0.1:8083' },
          tasks: [{ id: 0, state: c.state, worker_id: '127.0.0.1:8083' }],
          type: 'source',
        });
    }
  }
  json(res, 404, { error_code: 404, message: `no route for ${method} ${url.pathname}` });
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function empty(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'content-length': 0 });
  res.end();
}

// Standalone mode: the figures that spawn whole processes run the server here, away from the
// bench process's own event loop.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const server = await startBenchServer();
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
  const stop = (): void => void server.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
