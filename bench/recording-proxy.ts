// A loopback reverse proxy in front of a Connect worker that dates every request it forwards,
// so the rewind figure counts all the time spent inside Kafka Connect, the pre-flight reads
// included (those are not in the run journal). It adds well under a millisecond per request,
// which lands on Connect's side of the ledger, not offsetctl's.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';

export interface RecordingProxy {
  url: string;
  /** [start, end] epoch ms of each forwarded request, in arrival order. */
  take(): Array<[number, number]>;
  close(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  let recorded: Array<[number, number]> = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const start = Date.now();
      const headers = { ...req.headers };
      delete headers.host;
      delete headers.connection;
      request(`${target}${req.url ?? '/'}`, {
        method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : null,
        dispatcher: agent,
      })
        .then(async (up) => {
          const body = Buffer.from(await up.body.arrayBuffer());
          recorded.push([start, Date.now()]);
          const out: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && k !== 'transfer-encoding' && k !== 'connection') out[k] = v;
          out['content-length'] = String(body.length);
          res.writeHead(up.statusCode, out);
          res.end(body);
        })
        .catch((err: unknown) => {
          recorded.push([start, Date.now()]);
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`bench proxy: ${(err as Error).message}`);
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    take: () => {
      const out = recorded;
      recorded = [];
      return out;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agent.close();
    },
  };
}
