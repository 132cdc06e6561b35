// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HttpRequest, HttpResponse, HttpSender } from './client.js';
import { RoutingSender } from './route.js';

function recorder(name: string, seen: string[]): HttpSender {
  return {
    send: async (req: HttpRequest): Promise<HttpResponse> => {
      seen.push(`${name} ${req.url}`);
      return { status: 200, headers: {}, body: Buffer.alloc(0), durationMs: 0 };
    },
  };
}

test('each request goes to the sender of its base URL; the longest base wins; an unknown URL is refused', async () => {
  const seen: string[] = [];
  const router = new RoutingSender([
    { base: 'http://a:8083/', sender: recorder('a', seen) },
    { base: 'http://a:8083/cluster2', sender: recorder('a2', seen) },
    { base: 'http://b:8083', sender: recorder('b', seen) },
  ]);
  await router.send({ method: 'GET', url: 'http://a:8083/connectors' });
  await router.send({ method: 'GET', url: 'http://b:8083/connectors/x/status' });
  await router.send({ method: 'GET', url: 'http://a:8083/cluster2/connectors' });
  assert.deepEqual(seen, ['a http://a:8083/connectors', 'b http://b:8083/connectors/x/status', 'a2 http://a:8083/cluster2/connectors']);
  await assert.rejects(router.send({ method: 'GET', url: 'http://a:80830/connectors' }), /no connection is configured for http:\/\/a:80830/);
});
