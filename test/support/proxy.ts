// A loopback TCP proxy of the tests' own, between offsetctl and a Kafka Connect worker, that
// misbehaves on request: latency, connections reset, answers stalled, connections half-closed,
// or refused outright (the port closed). It works on bytes, not HTTP, so what offsetctl sees is
// exactly what a bad network would give it. Faults apply to new connections from the moment they
// are set; `requests` counts the HTTP request lines that went through, per method.
import { createServer, connect, type Server, type Socket } from 'node:net';

export type Fault =
  | { kind: 'none' }
  | { kind: 'latency'; ms: number }
  /** Forward the request, then reset the connection instead of passing the answer back (once). */
  | { kind: 'reset-after-request'; method?: string }
  /** Forward the request, then never pass the answer back (and never close). */
  | { kind: 'stall-after-request'; method?: string }
  /** Accept, then close our sending side at once (a half-closed connection). */
  | { kind: 'half-close' }
  /** Accept and reset at once, before reading anything. */
  | { kind: 'reset' };

export class FaultProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #fault: Fault = { kind: 'none' };
  #port = 0;
  readonly requests: string[] = [];
  /** Every byte sent to the worker, for tests that check what went on the wire. */
  sent = '';
  connections = 0;

  private constructor(readonly target: { host: string; port: number }) {
    this.#server = createServer((client) => this.#accept(client));
  }

  static async start(targetUrl: string): Promise<FaultProxy> {
    const u = new URL(targetUrl);
    const proxy = new FaultProxy({ host: u.hostname, port: Number(u.port) });
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    proxy.#port = (proxy.#server.address() as { port: number }).port;
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  set fault(f: Fault) {
    this.#fault = f;
  }

  #accept(client: Socket): void {
    this.connections++;
    this.#sockets.add(client);
    client.on('close', () => this.#sockets.delete(client));
    client.on('error', () => undefined);
    const fault = this.#fault;
    if (fault.kind === 'reset') return void client.resetAndDestroy();
    if (fault.kind === 'half-close') return void client.end();
    const upstream = connect(this.target.port, this.target.host);
    this.#sockets.add(upstream);
    upstream.on('close', () => this.#sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    let seenMethod: string | undefined;
    // Latency is read when a chunk arrives (so a test can lift it mid-run), and each direction
    // keeps its order: a chunk waits for the ones before it and then until its own due time.
    const chains = { up: Promise.resolve(), down: Promise.resolve() };
    const inOrder = (direction: 'up' | 'down', write: () => void): void => {
      const live = this.#fault;
      const due = Date.now() + (live.kind === 'latency' ? live.ms : 0);
      chains[direction] = chains[direction].then(() => (due > Date.now() ? new Promise<void>((resolve) => setTimeout(resolve, due - Date.now())) : undefined)).then(write);
    };
    client.on('data', (chunk: Buffer) => {
      this.sent += chunk.toString('latin1');
      const line = /^(GET|PUT|POST|PATCH|DELETE|HEAD|OPTIONS) (\S+)/.exec(chunk.toString('latin1'));
      if (line) {
        this.requests.push(`${line[1]} ${line[2]}`);
        seenMethod = line[1];
      }
      inOrder('up', () => void upstream.write(chunk));
    });
    upstream.on('data', (chunk: Buffer) => {
      const hit = (f: { method?: string }): boolean => f.method === undefined || f.method === seenMethod;
      // Once, across connections: the fault as it is now, not as it was when this connection
      // opened (a client with a keep-alive pool holds several connections opened before the
      // fault fired; the next request on any of them — a read-back, the recovery — gets through).
      const live = this.#fault;
      if (fault.kind === 'reset-after-request' && live === fault && hit(fault)) {
        this.#fault = { kind: 'none' };
        return void client.resetAndDestroy();
      }
      if (fault.kind === 'stall-after-request' && hit(fault)) return;
      inOrder('down', () => void client.write(chunk));
    });
    upstream.on('end', () => (fault.kind === 'stall-after-request' ? undefined : inOrder('down', () => void client.end())));
  }

  /** Stop listening: new connections are refused (ECONNREFUSED), as with a dead worker. */
  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
