// Real parts: a loopback HTTP server.
import * as assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { HttpClient, HttpTransportError } from './client.js';
import { FailoverClient, WORKER_HEADER, mayFailOver } from './failover.js';

const transport = (code: string) => new HttpTransportError('x', { cause: Object.assign(new Error(code), { code }) });

test('connection errors that prove the request never left fail over for every method', () => {
  for (const method of ['GET', 'PATCH', 'DELETE', 'PUT', 'POST']) {
    assert.equal(mayFailOver(method, transport('ECONNREFUSED')), true, method);
    assert.equal(mayFailOver(method, transport('UND_ERR_CONNECT_TIMEOUT')), true, method);
  }
});

test('an error after the request may have arrived fails over for reads only; never a changing request', () => {
  for (const code of ['ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT']) {
    assert.equal(mayFailOver('GET', transport(code)), true, code);
    assert.equal(mayFailOver('PATCH', transport(code)), false, code);
    assert.equal(mayFailOver('DELETE', transport(code)), false, code);
  }
  assert.equal(mayFailOver('GET', new Error('not a transport error')), false);
});

test('HTTP answers, even 500, come back from the first worker that answers; the header names it', async (t) => {
  const server = createServer((_req, res) => res.writeHead(500).end('{"error_code":500}'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const live = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const dead = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
  await new Promise<void>((r) => closed.close(() => r()));
  const moves: string[] = [];
  const client = new FailoverClient(new HttpClient(), [dead, live], (from, to) => moves.push(`${from}->${to}`));
  t.after(() => client.close());
  const res = await client.send({ method: 'PATCH', url: `${dead}/connectors/c/offsets`, body: '{}' });
  assert.equal(res.status, 500);
  assert.equal(res.headers[WORKER_HEADER], live);
  assert.deepEqual(moves, [`${dead}->${live}`]);
  assert.equal(client.current, live, 'later requests go straight to the worker that answered');
  await assert.rejects(new FailoverClient(new HttpClient(), [dead]).send({ method: 'GET', url: `${dead}/` }), /no Kafka Connect worker could be reached/);
});
