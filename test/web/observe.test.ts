// The console seen from outside, without a cluster: /healthz and /readyz answer without a
// session (the context's worker at 127.0.0.1:9 is down: not ready, naming it), /metrics only with
// the bearer token and in Prometheus text format, the structured log (an access line per request
// with its id, no query string, secrets masked), the sign-in limit counting the real client
// behind a trusted proxy, and proxy mode keeping one session (and one audit entry) per identity.
// Real parts: a SQLite store file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpClient } from '../../src/http/client.js';
import { openStore } from '../../src/store/index.js';
import { createConsole } from '../../src/web/app.js';
import { parseServiceConfig } from '../../src/web/auth/service-config.js';
import { consoleLog } from '../../src/web/observe/index.js';

const CONTEXTS = ['prod'];
const ROLES = [{ group: 'platform', role: 'admin' }, { group: 'support', role: 'viewer' }];
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const CLIENT_SECRET = 'oidc-client-secret-42-xyz';
const from = (address: string) => ({ incoming: { socket: { remoteAddress: address } } });

function serviceConsole(signIn: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const store = openStore(mkdtempSync(join(tmpdir(), 'offsetctl-ui-observe-')));
  const service = parseServiceConfig({ contexts: {}, 'sign-in': signIn, roles: ROLES, ...extra }, '/c.yaml', CONTEXTS,
    { TEST_METRICS_TOKEN: METRICS_TOKEN, TEST_OIDC_SECRET: CLIENT_SECRET });
  const http = new HttpClient({ timeoutMs: 1000 });
  const lines: string[] = [];
  const log = consoleLog({ destination: { write: (line: string) => void lines.push(line) } });
  const ui = createConsole({
    store, secure: true, service, log, publicUrl: () => 'https://127.0.0.1:8443',
    contexts: { initialLabel: 'prod', initialName: 'prod', names: async () => [], resolve: async () => ({ url: 'http://127.0.0.1:9', http }) },
  });
  return { ui, store, http, log: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>), raw: () => lines.join('') };
}

const OIDC = { oidc: { issuer: 'http://127.0.0.1:9/', 'client-id': 'c', 'client-secret-env': 'TEST_OIDC_SECRET' }, 'rate-limit': 2 };

test('/healthz and /readyz answer without a session; /readyz names what does not answer', async () => {
  const { ui, store, http } = serviceConsole(OIDC);
  const health = await ui.app.request('/healthz', {}, from('10.9.9.9'));
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: 'ok' });
  const ready = await ui.app.request('/readyz', {}, from('10.9.9.9'));
  assert.equal(ready.status, 503, 'the context\'s worker (127.0.0.1:9) does not answer');
  assert.deepEqual(await ready.json(), { status: 'not ready', store: 'ok', contexts: { prod: 'unreachable' } });
  assert.equal((await ui.app.request('/connectors', {}, from('10.9.9.9'))).status, 403, 'everything else still needs a session');
  await store.close();
  await http.close();
});

test('/metrics: only with the bearer token, in Prometheus text format, requests by route pattern and sign-ins by reason', async () => {
  const { ui, store, http, log, raw } = serviceConsole(OIDC, { metrics: { 'token-env': 'TEST_METRICS_TOKEN' } });
  await ui.app.request('/connectors/orders-1?page=2', {}, from('127.0.0.1'));
  await ui.app.request('/auth/callback?code=abc&state=def', {}, from('127.0.0.1'));
  assert.equal((await ui.app.request('/metrics', {}, from('127.0.0.1'))).status, 401);
  assert.equal((await ui.app.request('/metrics', { headers: { authorization: 'Bearer wrong-token-0123456789abcdef' } }, from('127.0.0.1'))).status, 401);
  const res = await ui.app.request('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }, from('127.0.0.1'));
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  assert.match(text, /^# TYPE offsetctl_console_http_requests_total counter$/m);
  assert.match(text, /^offsetctl_console_http_requests_total\{route="\/connectors\/:name",method="GET",status="403"\} 1$/m, 'the pattern, not the connector');
  assert.match(text, /^offsetctl_console_http_request_duration_seconds_bucket\{le="0\.005",route="\/connectors\/:name",method="GET"\} \d+$/m);
  assert.match(text, /^offsetctl_console_sign_ins_total\{via="oidc",outcome="refused",reason="flow"\} 1$/m);
  assert.match(text, /^offsetctl_console_jobs_running 0$/m);
  assert.match(text, /^offsetctl_console_process_cpu_seconds_total /m, 'the process\'s own metrics');
  // The log: one JSON access line per request with its id, the path without its query; a refused sign-in with reason and address.
  const access = log().filter((l) => l.event === 'access');
  assert.deepEqual(access.slice(0, 2).map((l) => [l.route, l.path, l.status]), [['/connectors/:name', '/connectors/orders-1', 403], ['/auth/callback', '/auth/callback', 403]]);
  assert.ok(access.every((l) => typeof l.reqId === 'string' && (l.reqId as string).length >= 8 && typeof l.ms === 'number'));
  const refusal = log().find((l) => l.event === 'sign-in-refused');
  assert.deepEqual([refusal?.reason, refusal?.ip, refusal?.reqId], ['flow', '127.0.0.1', access[1]!.reqId]);
  assert.ok(log().some((l) => l.event === 'metrics-refused'));
  for (const secret of [METRICS_TOKEN, CLIENT_SECRET, 'code=abc']) assert.ok(!raw().includes(secret), `${secret} in the log`);
  await store.close();
  await http.close();
});

test('behind a trusted load balancer the sign-in limit counts the client it names; from anyone else X-Forwarded-For is not believed', async () => {
  const { ui, store, http } = serviceConsole(OIDC, { 'trusted-proxies': ['127.0.0.1'] });
  const via = (client: string, peer = '127.0.0.1') => ui.app.request('/auth/callback', { headers: { 'x-forwarded-for': `203.0.113.9, ${client}` } }, from(peer));
  assert.deepEqual([(await via('10.0.0.7')).status, (await via('10.0.0.7')).status, (await via('10.0.0.7')).status], [403, 403, 429]);
  assert.equal((await via('10.0.0.8')).status, 403, 'another client behind the same balancer is not limited');
  // A client that is not the balancer writes what it likes into the header: its own address counts.
  assert.deepEqual([(await via('10.0.0.5', '127.0.0.9')).status, (await via('10.0.0.6', '127.0.0.9')).status, (await via('10.0.0.4', '127.0.0.9')).status], [403, 403, 429]);
  const messages = (await store.listAudit()).map((e) => e.message ?? '');
  assert.ok(messages.some((m) => m.endsWith('(client 10.0.0.7)')) && messages.some((m) => m.endsWith('(client 127.0.0.9)')), messages.join('\n'));
  assert.ok(!messages.some((m) => /203\.0\.113\.9|10\.0\.0\.[456]/.test(m)), 'a forwarded-for hop a client wrote is not its address');
  await store.close();
  await http.close();
});

test('proxy mode: 1,000 requests of one person make one session and one sign-in in the audit', async () => {
  const { ui, store, http } = serviceConsole({ proxy: { 'user-header': 'X-Forwarded-Email', 'groups-header': 'X-Forwarded-Groups', 'trusted-proxies': ['127.0.0.1'] } });
  const headers = { 'x-forwarded-email': 'carol@example.com', 'x-forwarded-groups': 'support' };
  for (let i = 0; i < 1000; i++) {
    const res = await ui.app.request('/ctx/prod/changes', { headers }, from('127.0.0.1'));
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
  // Another group list is another identity (signed in anew); someone without a role is refused, audited once.
  assert.equal((await ui.app.request('/ctx/prod/changes', { headers: { ...headers, 'x-forwarded-groups': 'support,platform' } }, from('127.0.0.1'))).status, 200);
  for (let i = 0; i < 50; i++) assert.equal((await ui.app.request('/changes', { headers: { 'x-forwarded-email': 'eve@example.com' } }, from('127.0.0.1'))).status, 403);
  const signIns = (await store.listAudit()).filter((e) => e.action === 'sign-in').map((e) => [e.actor.user, e.outcome, (e.actor.groups ?? []).join(',')]);
  assert.deepEqual(signIns.sort(), [['carol@example.com', 'done', 'support'], ['carol@example.com', 'done', 'support,platform'], ['eve@example.com', 'refused', '']]);
  await store.close();
  await http.close();
});
