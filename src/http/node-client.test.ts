// Real parts: a loopback HTTP server.
import * as assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { mayFailOver } from './failover.js';
import { HttpTransportError } from './client.js';
import { NodeHttpClient } from './node-client.js';

let server: Server;
let base = '';
before(async () => {
  server = createServer((req, res) => {
    if (req.url === '/slow') return; // never answers: the headers timeout must fire
    res.setHeader('x-auth', req.headers.authorization ?? '');
    res.setHeader('x-twice', ['a', 'b']);
    res.end(JSON.stringify({ method: req.method, url: req.url }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

test('node:http client: body, status, auth header, undici-shaped headers (array only for a repeat)', async () => {
  const client = new NodeHttpClient({ auth: { kind: 'basic', username: 'u', password: 'p' } });
  try {
    const res = await client.send({ method: 'get', url: `${base}/connectors?expand=status` });
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body.toString()), { method: 'GET', url: '/connectors?expand=status' });
    assert.equal(res.headers['x-auth'], `Basic ${Buffer.from('u:p').toString('base64')}`);
    assert.deepEqual(res.headers['x-twice'], ['a', 'b']);
  } finally {
    await client.close();
  }
});

test("node:http client: a timeout and a refused connection keep undici's codes and texts, so failover decides alike", async () => {
  const client = new NodeHttpClient({ timeoutMs: 150 });
  try {
    const slow = await client.send({ method: 'GET', url: `${base}/slow` }).catch((e: unknown) => e);
    if (!(slow instanceof HttpTransportError)) throw new Error(`expected an HttpTransportError, got ${String(slow)}`);
    assert.match(slow.message, /timed out waiting for the server/);
    assert.equal((slow.cause as { code?: string }).code, 'UND_ERR_HEADERS_TIMEOUT');
    assert.equal(mayFailOver('GET', slow), true);
    assert.equal(mayFailOver('PATCH', slow), false);
    const refused = await client.send({ method: 'GET', url: 'http://127.0.0.1:1/' }).catch((e: unknown) => e);
    if (!(refused instanceof HttpTransportError)) throw new Error(`expected an HttpTransportError, got ${String(refused)}`);
    assert.match(refused.message, /connection refused/);
  } finally {
    await client.close();
  }
});
