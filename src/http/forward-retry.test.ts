// The retry of Connect's "forward failed" 500s. A loopback server replays Kafka Connect's literal
// answers (RestClient.java's messages); the real case (a dead leader) is in
// test/integration/faults-workers.test.ts.
// Real parts: a loopback HTTP server.
import * as assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { test, type TestContext } from 'node:test';
import { HttpClient } from './client.js';
import { ForwardRetryClient, RETRIES_HEADER, forwardFailure } from './forward-retry.js';

const FORWARD_500 = { error_code: 500, message: 'IO Error trying to forward REST request: java.net.ConnectException: Connection refused' };

async function server(t: TestContext, handle: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  const s = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => handle(req, body, res));
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  t.after(() => s.close());
  return `http://127.0.0.1:${(s.address() as { port: number }).port}`;
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const fast = { firstPauseMs: 5, maxPauseMs: 20 };

test('only the 500s that say a forward failed are recognised', () => {
  const res = (status: number, body: unknown) => ({ status, body: Buffer.from(JSON.stringify(body)) });
  assert.ok(forwardFailure(res(500, FORWARD_500)));
  assert.ok(forwardFailure(res(500, { message: 'Error trying to forward REST request: boom' })));
  assert.ok(forwardFailure(res(500, { message: 'Thread was interrupted trying to forward REST request: x' })));
  assert.equal(forwardFailure(res(500, { message: 'Request timed out' })), undefined);
  assert.equal(forwardFailure(res(409, FORWARD_500)), undefined);
  assert.equal(forwardFailure({ status: 500, body: Buffer.from('not json') }), undefined);
});

test('a PATCH of offsets is sent again only after the read-back shows it did not apply; the answer records it', async (t) => {
  const seen: string[] = [];
  let patches = 0;
  const url = await server(t, (req, body, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.method === 'GET') return json(res, 200, { offsets: [{ partition: { filename: 'a' }, offset: { position: 3 } }] });
    patches += 1;
    assert.deepEqual(JSON.parse(body), { offsets: [{ partition: { filename: 'a' }, offset: { position: 0 } }] });
    return patches < 3 ? json(res, 500, FORWARD_500) : json(res, 200, { message: 'altered' });
  });
  const lines: string[] = [];
  const client = new ForwardRetryClient(new HttpClient(), { ...fast, onRetry: (l) => lines.push(l) });
  t.after(() => client.close());
  const res = await client.send({
    method: 'PATCH',
    url: `${url}/connectors/c/offsets`,
    body: JSON.stringify({ offsets: [{ partition: { filename: 'a' }, offset: { position: 0 } }] }),
  });
  assert.equal(res.status, 200);
  assert.deepEqual(seen, [
    'PATCH /connectors/c/offsets',
    'GET /connectors/c/offsets',
    'PATCH /connectors/c/offsets',
    'GET /connectors/c/offsets',
    'PATCH /connectors/c/offsets',
  ]);
  assert.match(String(res.headers[RETRIES_HEADER]), /read back: not applied .*sent again.*read back: not applied/);
  assert.equal(lines.length, 2);
});

test('a PATCH whose change is in place on read-back is not sent again: a 200 that says so', async (t) => {
  let patches = 0;
  const url = await server(t, (req, _body, res) => {
    if (req.method === 'GET')
      return json(res, 200, {
        offsets: [
          { partition: { filename: 'a' }, offset: { position: 0 } },
          { partition: { filename: 'b' }, offset: { position: 9 } },
        ],
      });
    patches += 1;
    return json(res, 500, { error_code: 500, message: 'IO Error trying to forward REST request: java.util.concurrent.TimeoutException' });
  });
  const client = new ForwardRetryClient(new HttpClient(), fast);
  t.after(() => client.close());
  const res = await client.send({
    method: 'PATCH',
    url: `${url}/connectors/c/offsets`,
    body: JSON.stringify({
      offsets: [
        { partition: { filename: 'a' }, offset: { position: 0 } },
        { partition: { filename: 'z' }, offset: null },
      ],
    }),
  });
  assert.equal(patches, 1);
  assert.equal(res.status, 200);
  assert.match(JSON.parse(res.body.toString('utf8')).message as string, /read back and are in place/);
  assert.match(String(res.headers[RETRIES_HEADER]), /read back: applied/);
});

test("a DELETE of offsets: not applied while offsets remain; an unreadable read-back stops the retries with Connect's answer", async (t) => {
  let deletes = 0;
  let gets = 0;
  const url = await server(t, (req, _body, res) => {
    if (req.method === 'GET') {
      gets += 1;
      return gets === 1 ? json(res, 200, { offsets: [{ partition: { filename: 'a' }, offset: { position: 1 } }] }) : json(res, 503, { message: 'starting' });
    }
    deletes += 1;
    return json(res, 500, FORWARD_500);
  });
  const client = new ForwardRetryClient(new HttpClient(), fast);
  t.after(() => client.close());
  const res = await client.send({ method: 'DELETE', url: `${url}/connectors/c/offsets` });
  assert.equal(res.status, 500);
  assert.equal(deletes, 2, 'sent again once after a read-back showed offsets left, never after an unknown read-back');
  assert.match(String(res.headers[RETRIES_HEADER]), /not applied .*unknown \(the read-back answered 503\); not sent again/);
});

test('reads and PUT stop are sent again within the budget; other changes and other 500s come back at once', async (t) => {
  const counts = new Map<string, number>();
  const url = await server(t, (req, _body, res) => {
    const key = `${req.method} ${req.url}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (req.url === '/other') return json(res, 500, { message: 'Request timed out' });
    return json(res, 500, FORWARD_500);
  });
  const client = new ForwardRetryClient(new HttpClient(), { ...fast, budgetMs: 150 });
  t.after(() => client.close());
  const started = Date.now();
  assert.equal((await client.send({ method: 'PUT', url: `${url}/connectors/c/stop` })).status, 500);
  assert.ok(Date.now() - started < 2_000, 'bounded by the budget');
  assert.ok((counts.get('PUT /connectors/c/stop') ?? 0) > 2);
  assert.equal((await client.send({ method: 'POST', url: `${url}/connectors`, body: '{}' })).status, 500);
  assert.equal(counts.get('POST /connectors'), 1, 'creating a connector is never repeated');
  assert.equal((await client.send({ method: 'GET', url: `${url}/other` })).status, 500);
  assert.equal(counts.get('GET /other'), 1);
});
