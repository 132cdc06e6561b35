// A deliberately broken worker: a loopback HTTP proxy in front of a real sandbox worker that
// passes the first PATCH of a connector's offsets on, lets Connect apply it, and then drops the
// connection instead of passing the answer back (the answer is lost, the change made); the next
// GET of those offsets is answered with the body read before the PATCH, as a read that lags a
// write does (a source's offsets are read back from the offsets topic). Everything else is
// passed on as it is.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';

export interface StaleWorker {
  url: string;
  /** Method and path of every request, in order; a lost answer or a stale read is marked. */
  requests: string[];
  stop(): Promise<void>;
}

export async function startStaleWorker(targetUrl: string): Promise<StaleWorker> {
  const target = new URL(targetUrl);
  const requests: string[] = [];
  let lastOffsetsBody: { status: number; headers: IncomingMessage['headers']; body: Buffer } | undefined;
  let lost = false;
  let staleServed = false;
  const server: Server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const offsets = /^\/connectors\/[^/]+\/offsets(\?|$)/.test(path);
    if (method === 'GET' && offsets && lost && !staleServed && lastOffsetsBody) {
      staleServed = true;
      requests.push(`${method} ${path} (stale)`);
      req.resume();
      res.writeHead(lastOffsetsBody.status, lastOffsetsBody.headers);
      res.end(lastOffsetsBody.body);
      return;
    }
    const loseAnswer = method === 'PATCH' && offsets && !lost;
    requests.push(`${method} ${path}${loseAnswer ? ' (answer lost)' : ''}`);
    const upstream = request({ host: target.hostname, port: Number(target.port), method, path, headers: { ...req.headers, host: target.host } }, (answer: IncomingMessage) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        if (loseAnswer) {
          // Connect has answered: the change is made. The client never hears of it.
          lost = true;
          res.socket?.destroy();
          return;
        }
        if (method === 'GET' && offsets && !lost) lastOffsetsBody = { status: answer.statusCode ?? 200, headers: answer.headers, body };
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.end(body);
      });
    });
    upstream.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`stale worker: ${err.message}`);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
