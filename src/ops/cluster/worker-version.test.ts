// Real parts: a SQLite store file.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HttpRequest, HttpResponse, HttpSender } from '../../http/client.js';
import { kafkaReleaseOf, requireSupportedWorker as requireSupported } from './worker-version.js';
import { WorkerRoot } from './worker-root.js';

const requireSupportedWorker = (http: HttpSender, url: string) => requireSupported(new WorkerRoot(http, url));

// The root answer is the whole input here: a recorded GET / body, not a fake of Connect's behaviour.
function root(status: number, body: string): HttpSender & { seen: HttpRequest[] } {
  const seen: HttpRequest[] = [];
  return { seen, send: async (req): Promise<HttpResponse> => { seen.push(req); return { status, headers: {}, body: Buffer.from(body), durationMs: 0 }; } };
}

test('Apache and Confluent version strings map to the Kafka release', () => {
  assert.deepEqual(kafkaReleaseOf('3.6.2'), [3, 6, 2]);
  assert.deepEqual(kafkaReleaseOf('4.4.0'), [4, 4, 0]);
  assert.deepEqual(kafkaReleaseOf('7.5.3-ccs'), [3, 5, 3]);
  assert.deepEqual(kafkaReleaseOf('8.0.0-ce'), [4, 0, 0]);
  assert.equal(kafkaReleaseOf('unknown'), undefined);
});

test('a worker below 3.6 is refused with E_PREFLIGHT naming its version; 3.6 and newer pass', async () => {
  for (const version of ['3.5.2', '2.8.1', '7.5.0-ccs']) {
    await assert.rejects(requireSupportedWorker(root(200, JSON.stringify({ version, commit: 'x' })), 'http://w:8083'),
      (e: Error & { code?: string }) => e.code === 'E_PREFLIGHT' && e.message.includes(version) && /3\.6\.0 or newer/.test(e.message) && /Nothing was changed/.test(e.message));
  }
  for (const version of ['3.6.0', '3.9.1', '4.4.0', '7.6.0-ccs']) {
    const http = root(200, JSON.stringify({ version }));
    assert.equal((await requireSupportedWorker(http, 'http://w:8083/'))?.version, version);
    assert.equal(http.seen[0]?.url, 'http://w:8083/');
    assert.equal(http.seen[0]?.method, 'GET');
  }
});

test('a root that does not say its version is let through (the pre-flight reads decide)', async () => {
  assert.equal(await requireSupportedWorker(root(404, 'not found'), 'http://w'), undefined);
  assert.equal(await requireSupportedWorker(root(200, '<html>'), 'http://w'), undefined);
  assert.equal(await requireSupportedWorker(root(200, '{"name":"gateway"}'), 'http://w'), undefined);
});

test('an unreachable worker is not this check\'s to report: the command\'s own reads say it', async () => {
  const failing: HttpSender = { send: async () => { throw Object.assign(new Error('connection refused'), { code: 'E_HTTP' }); } };
  assert.equal(await requireSupportedWorker(failing, 'http://127.0.0.1:9'), undefined);
});

test('planReset and planRewind refuse a worker below 3.6 before they read the connector (the console gets it too)', async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { openStore } = await import('../../store/index.js');
  const { planRewind, planReset } = await import('../plan/plan.js');
  const store = openStore(mkdtempSync(join(tmpdir(), 'offsetctl-wv-')));
  try {
    const plans = [
      (ctx: Parameters<typeof planReset>[0]) => planReset(ctx, { connector: 'c' }),
      (ctx: Parameters<typeof planReset>[0]) => planRewind(ctx, { connector: 'c', offsets: { offsets: [] } }),
    ];
    for (const make of plans) {
      const http = root(200, JSON.stringify({ version: '3.5.2' }));
      await assert.rejects(make({ url: 'http://w:8083', http, store }), (e: Error & { code?: string }) => e.code === 'E_PREFLIGHT' && e.message.includes('3.5.2'));
      assert.deepEqual(http.seen.map((r) => `${r.method} ${r.url}`), ['GET http://w:8083/'], 'nothing but the version read was sent');
    }
  } finally {
    await store.close();
  }
});
