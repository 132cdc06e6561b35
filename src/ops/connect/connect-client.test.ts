// Real parts: a loopback HTTP server.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { HttpClient, type HttpRequest, type HttpResponse, type HttpSender } from '../../http/client.js';
import { getSettledConnectorInfo, listConnectors } from './connect-client.js';
import { OpsError } from '../errors.js';

/**
 * Replays answers Kafka Connect gave, in order (the 409 is Connect's literal answer while its
 * group rebalances, which the sandbox cannot be made to produce on demand).
 */
function replay(answers: Array<{ status: number; body: unknown }>): HttpSender & { sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  return {
    sent,
    send(req: HttpRequest): Promise<HttpResponse> {
      sent.push(req);
      const next = answers.shift();
      if (!next) throw new Error('no more answers');
      return Promise.resolve({ status: next.status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(next.body)), durationMs: 1 });
    },
  };
}

test('listConnectors retries while Connect rebalances, as every reader of the module does', async () => {
  const http = replay([
    { status: 409, body: { error_code: 409, message: 'Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)' } },
    { status: 200, body: { a: { status: { name: 'a', type: 'sink', connector: { state: 'RUNNING', worker_id: 'w1' }, tasks: [] }, info: { type: 'sink' } } } },
  ]);
  const list = await listConnectors(http, 'http://connect:8083');
  assert.deepEqual(list.map((c) => [c.name, c.type, c.state]), [['a', 'sink', 'RUNNING']]);
  assert.equal(http.sent.length, 2);
});

test('a 500 that is not a rebalance is not retried', async () => {
  const http = replay([{ status: 500, body: { error_code: 500, message: 'Failed to list' } }]);
  await assert.rejects(listConnectors(http, 'http://connect:8083'), (err: unknown) => err instanceof OpsError && err.code === 'E_CONNECT_API' && !err.retryable);
  assert.equal(http.sent.length, 1);
});

test('a cluster that refuses the connection is E_UNREACHABLE (a refusal: nothing was changed)', async () => {
  // A port that was free a moment ago and has no listener now.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const http = new HttpClient();
  try {
    await assert.rejects(listConnectors(http, `http://127.0.0.1:${port}`), (err: unknown) => {
      assert.ok(err instanceof OpsError);
      assert.equal(err.code, 'E_UNREACHABLE');
      assert.match(err.message, /connection refused.*nothing was changed/);
      return true;
    });
  } finally {
    await http.close();
  }
});

/** Answers by path; each path's answers are used in order and the last one repeats. */
function byPath(answers: Record<string, Array<{ status: number; body: unknown }>>): HttpSender & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    send(req: HttpRequest): Promise<HttpResponse> {
      const path = new URL(req.url).pathname;
      sent.push(path);
      const list = answers[path];
      if (!list || list.length === 0) throw new Error(`no answer for ${path}`);
      const next = list.length > 1 ? list.shift()! : list[0]!;
      return Promise.resolve({ status: next.status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(next.body)), durationMs: 1 });
    },
  };
}

const status = (state: string) => ({ status: 200, body: { name: 'c', type: 'sink', connector: { state, worker_id: 'w1' }, tasks: [] } });

test('a plan reads a connector caught mid-rebalance (UNASSIGNED, RESTARTING) again until its state settles', async () => {
  const http = byPath({
    '/connectors/c': [{ status: 200, body: { name: 'c', type: 'sink', config: {} } }],
    '/connectors/c/status': [status('UNASSIGNED'), status('RESTARTING'), status('RUNNING')],
  });
  const info = await getSettledConnectorInfo(http, 'http://connect:8083', 'c');
  assert.equal(info.state, 'RUNNING', 'RUNNING is what gets restored afterwards, not STOPPED');
  assert.equal(http.sent.filter((p) => p.endsWith('/status')).length, 3);
});

test('a connector that stays UNASSIGNED is planned as such once the settle time is up', async () => {
  const http = byPath({
    '/connectors/c': [{ status: 200, body: { name: 'c', type: 'sink', config: {} } }],
    '/connectors/c/status': [status('UNASSIGNED')],
  });
  const info = await getSettledConnectorInfo(http, 'http://connect:8083', 'c', 350);
  assert.equal(info.state, 'UNASSIGNED');
  assert.ok(http.sent.filter((p) => p.endsWith('/status')).length >= 2, 'read again at least once');
});

test('a settled state is read once', async () => {
  const http = byPath({
    '/connectors/c': [{ status: 200, body: { name: 'c', type: 'sink', config: {} } }],
    '/connectors/c/status': [status('PAUSED')],
  });
  assert.equal((await getSettledConnectorInfo(http, 'http://connect:8083', 'c')).state, 'PAUSED');
  assert.equal(http.sent.length, 2);
});
