// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpRequest, HttpResponse, HttpSender } from '../http/client.js';
import { OpsError } from '../ops/errors.js';
import type { ConnectionContext } from './config-file.js';
import { governingContexts } from './governing-context.js';
import { identityCache } from './identity-cache.js';

const dir = (): string => join(mkdtempSync(join(tmpdir(), 'offsetctl-identity-')), 'state');
const seen = { key: 'kafka:abc', members: ['127.0.0.1:8083'] };

test('an identity is kept per URL in the state folder for the TTL: another process (another cache on the file) finds it; after the TTL it is gone', () => {
  const state = dir();
  let now = 1_000_000;
  const a = identityCache(state, {}, () => now);
  a!.put('http://w1:8083', seen);
  assert.deepEqual(identityCache(state, {}, () => now)!.get('http://w1:8083'), seen, 'read back from the file');
  assert.equal(statSync(join(state, 'cluster-identities.json')).mode & 0o777, 0o600);
  now += 59_000;
  assert.deepEqual(identityCache(state, {}, () => now)!.get('http://w1:8083'), seen);
  now += 2_000;
  assert.equal(identityCache(state, {}, () => now)!.get('http://w1:8083'), undefined, 'past 60 s: asked again');
  assert.equal(identityCache(state, { OFFSETCTL_IDENTITY_TTL_SECONDS: '5' }, () => now - 6_000)!.get('http://w1:8083'), undefined);
});

test('OFFSETCTL_IDENTITY_TTL_SECONDS=0 turns the cache off; a bad value is refused naming it', () => {
  assert.equal(identityCache(dir(), { OFFSETCTL_IDENTITY_TTL_SECONDS: '0' }), undefined);
  assert.throws(() => identityCache(dir(), { OFFSETCTL_IDENTITY_TTL_SECONDS: 'soon' }), (err) => err instanceof OpsError && err.code === 'E_USAGE' && /OFFSETCTL_IDENTITY_TTL_SECONDS=soon/.test(err.message));
});

test('governingContexts: a second command within the TTL sends no probe; the governing context is found all the same', async () => {
  const state = dir();
  const sent: string[] = [];
  const worker: HttpSender = {
    send: async (req: HttpRequest): Promise<HttpResponse> => {
      sent.push(req.url);
      const body = req.url.endsWith('/') ? { version: '4.0.0', kafka_cluster_id: 'abc' } : { c: { status: { connector: { worker_id: '127.0.0.1:8083' }, tasks: [] } } };
      return { status: 200, headers: {}, body: Buffer.from(JSON.stringify(body)), durationMs: 1 };
    },
  };
  const prod: ConnectionContext = { url: 'http://127.0.0.1:8083', auth: 'none', store: 'postgres://alice@db/offsetctl' } as ConnectionContext;
  const config = { contexts: { prod } };
  const first = await governingContexts('http://localhost:8083', config, async () => ({ send: worker.send }), identityCache(state, {}));
  assert.deepEqual(first.contexts.map((c) => c.name), ['prod']);
  assert.ok(sent.length >= 4, `probed: ${sent.join(' ')}`);
  sent.length = 0;
  const second = await governingContexts('http://localhost:8083', config, async () => ({ send: worker.send }), identityCache(state, {}));
  assert.deepEqual(second.contexts.map((c) => c.name), ['prod']);
  assert.equal(second.clusterKey, 'kafka:abc');
  assert.deepEqual(sent, [], 'nothing sent: both identities came from the state folder');
  await governingContexts('http://localhost:8083', config, async () => ({ send: worker.send }), identityCache(state, { OFFSETCTL_IDENTITY_TTL_SECONDS: '0' }));
  assert.ok(sent.length >= 4, 'without the cache each command probes');
});
