// Real parts: a loopback HTTP server.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpClient } from './client.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('HttpClient against a loopback server', () => {
  let server: Server;
  let base = '';
  const seen: Seen[] = [];

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.setHeader('Content-Type', 'application/json');
        res.setHeader('Set-Cookie', ['a=1', 'b=2']);
        res.setHeader('X-Mixed-Case', 'yes');
        res.end(JSON.stringify({ ok: true, n: seen.length }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends the method, path, query, headers and body as given and reads the whole response', async () => {
    const http = new HttpClient();
    try {
      const res = await http.send({
        method: 'patch',
        url: `${base}/connectors/a%20b/offsets?x=1&y=%2F`,
        headers: { 'Content-Type': 'application/json' },
        body: '{"offsets":[]}',
      });
      const req = seen.at(-1)!;
      assert.equal(req.method, 'PATCH');
      assert.equal(req.url, '/connectors/a%20b/offsets?x=1&y=%2F');
      assert.equal(req.body, '{"offsets":[]}');
      assert.equal(req.headers['content-type'], 'application/json');
      assert.equal(res.status, 200);
      assert.deepEqual(JSON.parse(res.body.toString('utf8')), { ok: true, n: seen.length });
      assert.equal(res.headers['x-mixed-case'], 'yes', 'header names come lower-cased');
      assert.deepEqual(res.headers['set-cookie'], ['a=1', 'b=2'], 'repeated headers stay an array');
      assert.ok(res.durationMs >= 0);
    } finally {
      await http.close();
    }
  });

  it("adds auth and default headers without overriding a step's own, and leaves the caller's headers alone", async () => {
    const http = new HttpClient({ auth: { kind: 'basic', username: 'u', password: 'p' }, headers: { 'X-Default': 'd', 'X-Both': 'default' } });
    try {
      const own = { 'X-Both': 'step' };
      await http.send({ method: 'GET', url: `${base}/a`, headers: own });
      let req = seen.at(-1)!;
      assert.equal(req.headers['authorization'], `Basic ${Buffer.from('u:p').toString('base64')}`);
      assert.equal(req.headers['x-default'], 'd');
      assert.equal(req.headers['x-both'], 'step');
      assert.deepEqual(own, { 'X-Both': 'step' });
      await http.send({ method: 'GET', url: `${base}/b`, headers: { Authorization: 'Bearer mine' } });
      req = seen.at(-1)!;
      assert.equal(req.headers['authorization'], 'Bearer mine');
    } finally {
      await http.close();
    }
  });

  it('normalizes URLs the way URL parsing does (dot segments, spaces, host case)', async () => {
    const http = new HttpClient();
    try {
      await http.send({ method: 'GET', url: `${base.replace('127.0.0.1', '127.0.0.1')}/a/../b/c d?q=x y` });
      assert.equal(seen.at(-1)!.url, '/b/c%20d?q=x%20y');
    } finally {
      await http.close();
    }
  });

  it('reports a refused connection and a bad URL as HttpTransportError E_HTTP with the fix', async () => {
    const http = new HttpClient();
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    try {
      await assert.rejects(
        http.send({ method: 'GET', url: `http://127.0.0.1:${port}/x` }),
        (e: unknown) => (e as { code?: string }).code === 'E_HTTP' && /GET http:\/\/127\.0\.0\.1:\d+\/x failed: connection refused/.test((e as Error).message),
      );
      await assert.rejects(http.send({ method: 'GET', url: 'ftp://127.0.0.1/x' }), /failed: .*must start with `http:` or `https:`/);
    } finally {
      await http.close();
    }
  });
});
