// A deliberately broken worker: a loopback HTTP proxy in front of a real sandbox worker that
// passes every request on, except those `failing` picks, which it answers 500 with a body that
// echoes the request's Authorization header — the way a careless worker extension or a proxy's
// error page does — plainly, URL-encoded and as a JSON member.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';

export interface EchoWorker {
  url: string;
  /** The method and path of every request answered with the echo. */
  echoed: string[];
  /** Chooses which requests get the echo from now on (method, path with query). */
  setFailing(pick: (method: string, path: string) => boolean): void;
  stop(): Promise<void>;
}

export async function startEchoWorker(targetUrl: string, failing: (method: string, path: string) => boolean): Promise<EchoWorker> {
  const target = new URL(targetUrl);
  let pick = failing;
  const echoed: string[] = [];
  const server: Server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    if (pick(method, path)) {
      echoed.push(`${method} ${path}`);
      req.resume();
      const auth = String(req.headers.authorization ?? '(none)');
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        error_code: 500,
        message: `upstream rejected the request; Authorization: ${auth}; forwarded as auth=${encodeURIComponent(auth)}; headers ${JSON.stringify({ authorization: auth })}`,
      }));
      return;
    }
    const upstream = request({ host: target.hostname, port: Number(target.port), method, path, headers: { ...req.headers, host: target.host } }, (answer: IncomingMessage) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`echo worker: ${err.message}`);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    echoed,
    setFailing: (next) => (pick = next),
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
