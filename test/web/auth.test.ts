// The console as a service, without a cluster or a browser: the service config (every refusal
// names its field), roles scoped by context and connector pattern, the open-redirect guard, the
// sign-in rate limit, session expiry, and the proxy mode through the Hono app in memory (the TCP
// peer is given as node-server's binding): the header believed only from the proxy's address, a
// viewer's forged change refused with 403 and audited, an operator kept to its pattern.
// Real parts: a SQLite store file, the CLI in-process.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpClient } from '../../src/http/client.js';
import { redactText } from '../../src/http/redact.js';
import { openStore } from '../../src/store/index.js';
import { createConsole } from '../../src/web/app.js';
import { Sessions } from '../../src/web/auth/sessions.js';
import { localPath, userName } from '../../src/web/auth/oidc.js';
import { parseAddressList } from '../../src/web/auth/proxy.js';
import { RateLimit } from '../../src/web/auth/rate-limit.js';
import { Access } from '../../src/web/auth/roles.js';
import { parseServiceConfig } from '../../src/web/auth/service-config.js';

const CONTEXTS = ['prod', 'staging'];
const ROLES = [
  { group: 'platform', role: 'admin' },
  { group: 'team-orders', role: 'operator', contexts: ['prod'], connectors: '^orders-' },
  { groups: ['team-orders', 'support'], role: 'viewer' },
];

function oidcDoc(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    contexts: {}, 'sign-in': { oidc: { issuer: 'https://login.example.com/realms/corp', 'client-id': 'offsetctl', 'client-secret-env': 'TEST_OIDC_SECRET' } }, roles: ROLES, ...extra,
  };
}

const refused = (raw: unknown, field: string, pattern: RegExp, env: NodeJS.ProcessEnv = { TEST_OIDC_SECRET: 's3cr3t-value!' }) => {
  assert.throws(() => parseServiceConfig(raw, '/etc/console.yaml', CONTEXTS, env), (err: Error & { code?: string; field?: string }) => {
    assert.equal(err.code, 'E_CONFIG');
    assert.equal(err.field, field, err.message);
    assert.match(err.message, pattern);
    return true;
  });
};

test('the service config: a complete OpenID setup parses; the secret is read from its reference and masked', () => {
  const config = parseServiceConfig(oidcDoc({ session: { 'max-age': '8h', 'idle-timeout': '30m' }, 'default-context': 'staging', 'public-url': 'https://offsetctl.example.com' }), '/etc/console.yaml', CONTEXTS, { TEST_OIDC_SECRET: 's3cr3t-value!' });
  assert.equal(config.signIn.kind, 'oidc');
  assert.equal(config.signIn.kind === 'oidc' && config.signIn.oidc.clientSecret, 's3cr3t-value!');
  assert.equal(config.session.idleMs, 30 * 60_000);
  assert.equal(config.defaultContext, 'staging');
  assert.equal(config.grants.length, 3);
  assert.equal(redactText('token request with s3cr3t-value!'), 'token request with ***');
  const team = parseServiceConfig(oidcDoc({ store: 'postgres://console@db.example.com/offsetctl', 'store-password-env': 'CONSOLE_PG' }), '/etc/console.yaml', CONTEXTS, { TEST_OIDC_SECRET: 's3cr3t-value!', CONSOLE_PG: 'pw-of-the-console' });
  assert.deepEqual([team.store, team.storePasswordEnv], ['postgres://console@db.example.com/offsetctl', 'CONSOLE_PG'], 'the team store, its password by reference');
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-svc-'));
  writeFileSync(join(dir, 'secret'), 'from-a-file-42\n');
  const fromFile = parseServiceConfig({ ...oidcDoc(), 'sign-in': { oidc: { issuer: 'http://127.0.0.1:9/', 'client-id': 'c', 'client-secret-file': 'secret' } } }, join(dir, 'console.yaml'), CONTEXTS, {});
  assert.equal(fromFile.signIn.kind === 'oidc' && fromFile.signIn.oidc.clientSecret, 'from-a-file-42', 'relative to the config file; the trailing newline dropped');
});

test('the service config refuses literals, unknown fields, bad patterns and unreachable grants, naming the field', () => {
  refused({ ...oidcDoc(), 'sign-in': { oidc: { issuer: 'https://x.example', 'client-id': 'c', 'client-secret': 'hunter2' } } }, 'sign-in.oidc.client-secret', /client-secret-env/);
  refused(oidcDoc(), 'sign-in.oidc.client-secret-env', /TEST_OIDC_SECRET is not set/, {});
  refused({ ...oidcDoc(), 'sign-in': { oidc: { issuer: 'http://login.example.com', 'client-id': 'c' } } }, 'sign-in.oidc.issuer', /must be https/);
  refused({ ...oidcDoc(), 'sign-in': { oidc: { issuer: 'https://x.example', 'client-id': 'c', scopes: ['email'] } } }, 'sign-in.oidc.scopes', /openid/);
  refused({ ...oidcDoc(), roles: [{ group: 'a', role: 'owner' }] }, 'roles[0].role', /viewer, operator or admin/);
  refused({ ...oidcDoc(), roles: [{ group: 'a', role: 'viewer', connectors: '(' }] }, 'roles[0].connectors', /regular expression/);
  refused({ ...oidcDoc(), roles: [{ group: 'a', role: 'viewer', contexts: ['qa'] }] }, 'roles[0].contexts', /"qa" is not one of the contexts \(prod, staging\)/);
  refused({ ...oidcDoc(), roles: [{ role: 'viewer' }] }, 'roles[0].group', /group/);
  refused({ ...oidcDoc(), roles: undefined }, 'roles', /missing/);
  refused({ ...oidcDoc(), sessions: {} }, 'sessions', /unknown field/);
  refused({ ...oidcDoc(), session: { 'max-age': '10s' } }, 'session.max-age', /between 1m and 30d/);
  refused({ ...oidcDoc(), session: { 'recheck-roles': '1s' } }, 'session.recheck-roles', /between 5s and 24h .*or off/);
  refused({ ...oidcDoc(), 'public-url': 'https://x.example/console' }, 'public-url', /without a path/);
  refused({ ...oidcDoc(), 'sign-in': { proxy: { 'user-header': 'X-Forwarded-User', 'trusted-proxies': ['10.0.0.0/33'] } } }, 'sign-in.proxy.trusted-proxies', /prefix length/);
  refused({ ...oidcDoc(), 'sign-in': { proxy: { 'user-header': 'X-Forwarded-User' } } }, 'sign-in.proxy.trusted-proxies', /missing/);
  refused({ ...oidcDoc(), 'sign-in': {} }, 'sign-in', /exactly one of oidc or proxy/);
  refused({ ...oidcDoc(), store: 'postgres://console:hunter2@db.example.com/offsetctl' }, 'store', /password in it: .*store-password-env/);
  refused({ ...oidcDoc(), store: 'postgres://console@db.example.com/offsetctl', 'store-password-env': 'CONSOLE_PG' }, 'store-password-env', /CONSOLE_PG is not set/);
  refused({ ...oidcDoc(), store: 5432 }, 'store', /./);
  assert.throws(() => parseServiceConfig(oidcDoc(), '/etc/console.yaml', [], { TEST_OIDC_SECRET: 'xxxxxxxx' }), /contexts: no contexts/);
});

test('roles: the union of the groups\' grants, scoped by context and connector pattern', () => {
  const grants = parseServiceConfig(oidcDoc(), '/c.yaml', CONTEXTS, { TEST_OIDC_SECRET: 'xxxxxxxx' }).grants;
  const orders = Access.of(['team-orders'], grants);
  assert.equal(orders.may('operator', 'prod', 'orders-1'), true);
  assert.equal(orders.may('operator', 'prod', 'billing-1'), false);
  assert.equal(orders.may('viewer', 'prod', 'billing-1'), true);
  assert.equal(orders.may('operator', 'staging', 'orders-1'), false, 'the operator grant is for prod only');
  assert.equal(orders.may('operator', 'prod'), true, 'some connector of prod');
  assert.equal(orders.mayAll('admin', 'prod'), false);
  assert.equal(orders.highest(), 'operator');
  const support = Access.of(['support'], grants);
  assert.equal(support.may('operator', 'prod'), false);
  assert.equal(support.may('viewer', 'staging', 'anything'), true);
  assert.equal(Access.of(['platform'], grants).mayAll('admin', 'staging'), true);
  assert.equal(Access.of(['nobody'], grants).highest(), undefined);
  assert.match(orders.describe(), /operator on prod for \^orders-; viewer on every context/);
});

test('the name from the claims: a configured claim that is missing refuses; an unverified e-mail is refused unless allowed', () => {
  const strict = { allowUnverifiedEmail: false };
  const reason = (fn: () => unknown): string => {
    try {
      fn();
    } catch (err) {
      return `${(err as { reason?: string }).reason}: ${(err as Error).message}`;
    }
    return 'accepted';
  };
  assert.equal(userName({ sub: 'a', email: 'a@example.com', email_verified: true }, strict), 'a@example.com');
  assert.match(reason(() => userName({ sub: 'a', email: 'a@example.com', email_verified: false }, strict)), /^unverified-email: .*a@example\.com is verified.*allow-unverified-email/);
  assert.match(reason(() => userName({ sub: 'a', email: 'a@example.com' }, strict)), /^unverified-email/, 'no email_verified: not verified');
  assert.equal(userName({ sub: 'a', email: 'a@example.com' }, { allowUnverifiedEmail: true }), 'a@example.com');
  assert.match(reason(() => userName({ sub: 'a', preferred_username: 'alice' }, { ...strict, userClaim: 'email' })), /^missing-claim: .*no email claim.*user-claim/);
  assert.match(reason(() => userName({ sub: 'a', email: 'a@example.com', email_verified: true }, { ...strict, userClaim: 'upn' })), /^missing-claim/);
  assert.equal(userName({ sub: 'a', upn: 'alice@corp', email: 'x' }, { ...strict, userClaim: 'upn' }), 'alice@corp', 'another claim needs no e-mail verification');
  assert.equal(userName({ sub: 'a', preferred_username: 'alice' }, strict), 'alice', 'no claim configured: preferred_username');
  assert.equal(userName({ sub: 'a' }, strict), 'a');
});

test('after sign-in the browser goes only to a path of this console (open-redirect guard)', () => {
  for (const bad of ['//evil.example/x', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', '/ok\nLocation: x', '', undefined, '/auth/callback?code=x', ' /runs']) {
    assert.equal(localPath(bad), '/connectors', JSON.stringify(bad));
  }
  assert.equal(localPath('/runs?connector=orders-1'), '/runs?connector=orders-1');
  assert.equal(localPath('/connectors/orders%2F1'), '/connectors/orders%2F1');
});

test('the sign-in rate limit: N per address and minute, then 429 with the seconds to wait', () => {
  let now = 1_000_000;
  const limit = new RateLimit(3, () => now);
  assert.deepEqual([limit.take('a'), limit.take('a'), limit.take('a')], [0, 0, 0]);
  const wait = limit.take('a');
  assert.ok(wait > 0 && wait <= 60, String(wait));
  assert.equal(limit.take('b'), 0, 'another address is not slowed');
  now += 60_001;
  assert.equal(limit.take('a'), 0);
});

test('sessions end at logout, after the idle timeout and at their maximum age', async () => {
  let now = 0;
  const sessions = new Sessions({ limits: { maxAgeMs: 10_000, idleMs: 3_000 }, now: () => now });
  const identity = { user: 'alice', groups: [], via: 'oidc' as const };
  const a = sessions.create(identity, Access.everything());
  now = 2_000;
  assert.equal(sessions.find(a.id)?.id, a.id);
  now = 4_000;
  assert.equal(sessions.find(a.id)?.id, a.id, 'used 2 s ago: still live');
  now = 7_500;
  assert.equal(sessions.find(a.id), undefined, 'idle 3.5 s: gone');
  const b = sessions.create(identity, Access.everything());
  for (now = 9_000; now < 19_000; now += 2_000) sessions.find(b.id);
  assert.equal(sessions.find(b.id), undefined, 'busy, but past its maximum age');
  const c = sessions.create(identity, Access.everything());
  await sessions.end(c);
  assert.equal(sessions.find(c.id), undefined);
  assert.equal(sessions.loginToken, undefined, 'a signed-in service prints no login link');
});

test('trusted proxy addresses: single addresses, CIDR ranges, IPv4 peers on a dual-stack socket', () => {
  const m = parseAddressList(['127.0.0.1', '10.1.0.0/16', 'fd00::/8']);
  assert.equal(m.matches('127.0.0.1'), true);
  assert.equal(m.matches('::ffff:127.0.0.1'), true);
  assert.equal(m.matches('127.0.0.2'), false);
  assert.equal(m.matches('10.1.200.3'), true);
  assert.equal(m.matches('fd12::1'), true);
  assert.equal(m.matches('unknown'), false);
  assert.throws(() => parseAddressList(['proxy.example']), /not an IP address/);
});

function proxyConsole() {
  const store = openStore(mkdtempSync(join(tmpdir(), 'offsetctl-ui-proxy-')));
  const service = parseServiceConfig({
    contexts: {}, 'sign-in': { proxy: { 'user-header': 'X-Forwarded-Email', 'groups-header': 'X-Forwarded-Groups', 'trusted-proxies': ['127.0.0.1'] } }, roles: ROLES,
  }, '/c.yaml', CONTEXTS, {});
  const http = new HttpClient({ timeoutMs: 1000 });
  const ui = createConsole({
    store, secure: false, service,
    contexts: { initialLabel: 'prod', initialName: 'prod', names: async () => ['staging'], resolve: async () => ({ url: 'http://127.0.0.1:9', http }) },
  });
  const from = (address: string) => ({ incoming: { socket: { remoteAddress: address } } });
  const as = async (user: string, groups: string, address = '127.0.0.1'): Promise<{ headers: Record<string, string>; csrf: string }> => {
    const headers = { 'x-forwarded-email': user, 'x-forwarded-groups': groups };
    const res = await ui.app.request('/ctx/prod/runs', { headers }, from(address));
    assert.equal(res.status, 200, `${user} from ${address}: ${await res.clone().text()}`);
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
    const csrf = /name="csrf" value="([^"]+)"/.exec(await res.text())?.[1] ?? '';
    return { headers: { ...headers, cookie }, csrf };
  };
  return { ui, store, from, as };
}

test('proxy mode: the header is believed only from the proxy\'s address', async () => {
  const { ui, from, as } = proxyConsole();
  const spoofed = await ui.app.request('/ctx/prod/runs', { headers: { 'x-forwarded-email': 'admin@example.com', 'x-forwarded-groups': 'platform' } }, from('127.0.0.2'));
  assert.equal(spoofed.status, 403);
  assert.match(await spoofed.text(), /through its sign-in proxy only/);
  assert.equal((await ui.app.request('/ctx/prod/runs', {}, from('127.0.0.1'))).status, 403, 'no user header');
  const { headers } = await as('bob@example.com', 'support');
  // The same cookie with another user in the header is not bob's session any more.
  const other = await ui.app.request('/ctx/prod/runs', { headers: { ...headers, 'x-forwarded-email': 'eve@example.com', 'x-forwarded-groups': '' } }, from('127.0.0.1'));
  assert.equal(other.status, 403);
  assert.match(await other.text(), /none of your groups/);
});

test('proxy mode: a viewer\'s forged apply and an operator\'s change outside its pattern get 403, are audited, and read nothing', async () => {
  const { ui, store, from, as } = proxyConsole();
  const viewer = await as('bob@example.com', 'support');
  const forged = await ui.app.request('/ctx/prod/plans/plan-anything/apply', {
    method: 'POST', headers: { ...viewer.headers, 'content-type': 'application/x-www-form-urlencoded' }, body: `csrf=${viewer.csrf}&confirm=orders-1`,
  }, from('127.0.0.1'));
  assert.equal(forged.status, 403);
  assert.match(await forged.text(), /bob@example\.com may not change/);
  const operator = await as('alice@example.com', 'team-orders');
  const outside = await ui.app.request('/ctx/prod/connectors/billing-1/preview', {
    method: 'POST', headers: { ...operator.headers, 'content-type': 'application/x-www-form-urlencoded' }, body: `csrf=${operator.csrf}&mode=reset`,
  }, from('127.0.0.1'));
  assert.equal(outside.status, 403, 'refused before the (unreachable) cluster is asked: a read would have answered 502');
  assert.equal((await ui.app.request('/ctx/prod/connectors/billing-1/change', { headers: operator.headers }, from('127.0.0.1'))).status, 403);
  // Without the CSRF token the viewer's POST does not even reach the role check.
  const noCsrf = await ui.app.request('/ctx/prod/plans/x/apply', { method: 'POST', headers: { ...viewer.headers, 'content-type': 'application/x-www-form-urlencoded' }, body: 'confirm=x' }, from('127.0.0.1'));
  assert.equal(noCsrf.status, 403);
  const entries = await store.listAudit();
  const refusals = entries.filter((e) => e.outcome === 'refused').map((e) => [e.actor.user, e.actor.via, e.action, e.connector ?? '', e.context]);
  assert.deepEqual(refusals, [['alice@example.com', 'proxy', 'reset', 'billing-1', 'prod'], ['bob@example.com', 'proxy', 'apply', '', 'prod']]);
  assert.deepEqual(entries.filter((e) => e.action === 'sign-in').map((e) => e.actor.user).sort(), ['alice@example.com', 'bob@example.com']);
  // The audit page shows bob his own refusal (no connector) and the viewable entries; the export is JSON lines.
  const page = await ui.app.request('/ctx/prod/audit', { headers: viewer.headers }, from('127.0.0.1'));
  assert.equal(page.status, 200);
  const body = await page.text();
  assert.match(body, /bob@example\.com may not apply/);
  assert.match(body, /alice@example\.com may not reset billing-1/, 'billing-1 is viewable to bob');
  const lines = (await (await ui.app.request('/ctx/prod/audit/export', { headers: viewer.headers }, from('127.0.0.1'))).text()).trim().split('\n').map((l) => JSON.parse(l) as { at: string });
  assert.ok(lines.length >= 3);
  assert.deepEqual(lines.map((l) => l.at), [...lines.map((l) => l.at)].sort(), 'oldest first');
});

test('POST /context accepts the starting context by its own name, as the other contexts', async () => {
  const { ui, from, as } = proxyConsole();
  const admin = await as('root@example.com', 'platform');
  const post = (context: string) => ui.app.request('/context', {
    method: 'POST', headers: { ...admin.headers, 'content-type': 'application/x-www-form-urlencoded' }, body: `csrf=${admin.csrf}&context=${context}`,
  }, from('127.0.0.1'));
  assert.equal((await post('staging')).status, 303);
  assert.equal((await post('prod')).status, 303, 'the default context by name');
  assert.equal((await post('qa')).status, 400);
});

test('the audit page shows a viewer the entries of this context\'s cluster only; an admin the whole trail', async () => {
  const { ui, store, from, as } = proxyConsole();
  // The context's worker (port 9, unreachable) names its cluster by URL; another cluster has a
  // connector of the same name, which a grant for this context says nothing about.
  const actor = { user: 'carol@example.com', via: 'cli' as const };
  await store.recordAudit({ actor, action: 'reset', outcome: 'succeeded', connector: 'orders-1', clusterUrl: 'http://127.0.0.1:9', clusterKey: 'url:http://127.0.0.1:9', message: 'reset here' });
  await store.recordAudit({ actor, action: 'reset', outcome: 'succeeded', connector: 'orders-1', clusterUrl: 'http://10.9.9.9:8083', clusterKey: 'kafka:other-cluster', message: 'reset on the other cluster' });
  const messages = async (who: { headers: Record<string, string> }): Promise<string[]> => {
    const res = await ui.app.request('/ctx/prod/audit/export', { headers: who.headers }, from('127.0.0.1'));
    assert.equal(res.status, 200);
    return (await res.text()).trim().split('\n').map((l) => (JSON.parse(l) as { message?: string }).message ?? '').filter((m) => m.startsWith('reset '));
  };
  assert.deepEqual(await messages(await as('bob@example.com', 'support')), ['reset here']);
  assert.deepEqual((await messages(await as('root@example.com', 'platform'))).sort(), ['reset here', 'reset on the other cluster']);
});

test('OpenID routes: a callback not started in this browser is refused before the provider is asked; sign-in attempts are rate-limited', async () => {
  const store = openStore(mkdtempSync(join(tmpdir(), 'offsetctl-ui-oidc-')));
  const service = parseServiceConfig({
    contexts: {}, 'sign-in': { oidc: { issuer: 'http://127.0.0.1:9/', 'client-id': 'c' }, 'rate-limit': 3 }, roles: ROLES,
  }, '/c.yaml', CONTEXTS, {});
  const http = new HttpClient({ timeoutMs: 1000 });
  const ui = createConsole({
    store, secure: true, service, publicUrl: () => 'https://127.0.0.1:8443',
    contexts: { initialLabel: 'prod', initialName: 'prod', names: async () => [], resolve: async () => ({ url: 'http://127.0.0.1:9', http }) },
  });
  const from = (address: string) => ({ incoming: { socket: { remoteAddress: address } } });
  const anonymous = await ui.app.request('/runs?connector=orders-1', {}, from('127.0.0.1'));
  assert.equal(anonymous.status, 403);
  assert.match(await anonymous.text(), /href="\/auth\/login\?next=%2Fruns%3Fconnector%3Dorders-1"/, 'sign in, then back to the page asked for');
  const stray = await ui.app.request('/auth/callback?code=stolen&state=x', {}, from('127.0.0.1'));
  assert.equal(stray.status, 403);
  assert.match(await stray.text(), /not started in this browser/);
  assert.equal((await ui.app.request('/login?token=x', {}, from('127.0.0.1'))).status, 404, 'no login link in a signed-in service');
  // Three failed sign-ins a minute per address (this config); starting a flow is not a failure:
  // the provider at 127.0.0.1:9 is down, so /auth/login answers 502, again and again, never 429.
  assert.equal((await ui.app.request('/auth/login', {}, from('127.0.0.1'))).status, 502);
  assert.equal((await ui.app.request('/auth/login', {}, from('127.0.0.1'))).status, 502);
  assert.equal((await ui.app.request('/auth/callback', {}, from('127.0.0.1'))).status, 403, 'the second failure');
  assert.equal((await ui.app.request('/auth/callback', {}, from('127.0.0.1'))).status, 403, 'the third failure');
  assert.equal((await ui.app.request('/auth/login', {}, from('127.0.0.1'))).status, 429);
  const limited = await ui.app.request('/auth/callback?code=x', {}, from('127.0.0.1'));
  assert.equal(limited.status, 429);
  assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
  assert.equal((await ui.app.request('/auth/callback', {}, from('127.0.0.3'))).status, 403, 'another address is not limited');
  // Each refusal is in the audit with its reason and the client's address; the limit once, not per attempt.
  await ui.app.request('/auth/callback', {}, from('127.0.0.1'));
  const refused = (await store.listAudit()).filter((e) => e.action === 'sign-in' && e.outcome === 'refused').map((e) => e.message ?? '').reverse();
  assert.deepEqual(refused.map((m) => /^\[([a-z-]+)\]/.exec(m)?.[1]), ['flow', 'flow', 'flow', 'rate-limited', 'flow']);
  assert.match(refused[0]!, /not started in this browser.*\(client 127\.0\.0\.1\)$/);
  assert.match(refused[3]!, /too many failed sign-ins from 127\.0\.0\.1/);
  assert.match(refused[4]!, /\(client 127\.0\.0\.3\)$/);
  await store.close();
  await http.close();
});

test('`ui --config` refuses flags that would add a cluster beside the file\'s contexts', async () => {
  const { runInProcess } = await import('../support/in-process.js');
  const r = await runInProcess(['ui', '--config', '/nonexistent/console.yaml', '--url', 'http://127.0.0.1:9']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--url cannot be combined with --config/);
  const missing = await runInProcess(['ui', '--config', '/nonexistent/console.yaml']);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /--config \/nonexistent\/console\.yaml: cannot read it \(ENOENT\)/);
});

test('the complete console.yaml of docs/ui.md is what the console reads', async () => {
  const { readFileSync } = await import('node:fs');
  const { parse } = await import('yaml');
  const { parseContexts } = await import('../../src/cli/config-file.js');
  const { repoRoot } = await import('../support/repo.js');
  const doc = readFileSync(join(repoRoot, 'docs', 'ui.md'), 'utf8');
  const blocks = [...(/## Running the console for a team[\s\S]*?### Health, metrics and logs/.exec(doc)?.[0] ?? '').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.equal(blocks.length, 2, 'the complete example and the proxy variant');
  const raw = parse(blocks[0]!) as Record<string, unknown>;
  const contexts = parseContexts(raw.contexts, '/etc/offsetctl/console.yaml');
  assert.deepEqual(Object.keys(contexts), ['prod', 'staging']);
  assert.equal(contexts.prod?.passwordEnv, 'CONNECT_PROD_PASSWORD');
  assert.deepEqual(contexts.prod?.sourceDb, { '^orders-': 'postgres://offsetctl_ro@orders-db.prod.example:5432/orders?sslmode=verify-full' });
  const config = parseServiceConfig(raw, '/etc/offsetctl/console.yaml', Object.keys(contexts), { OFFSETCTL_OIDC_CLIENT_SECRET: 'docs-example-secret-1', OFFSETCTL_METRICS_TOKEN: 'docs-example-metrics-token-1' });
  assert.equal(config.metrics?.token, 'docs-example-metrics-token-1');
  assert.equal(config.trustedProxies?.matches('10.0.2.11'), true);
  assert.equal(config.listen, '0.0.0.0:8443');
  assert.equal(config.publicUrl?.origin, 'https://offsetctl.example.com:8443');
  assert.equal(config.signInPerMinute, 10);
  assert.ok(Access.of(['team-orders'], config.grants).may('operator', 'staging', 'orders-sink'));
  assert.ok(!Access.of(['team-orders'], config.grants).may('operator', 'prod', 'billing-sink'));
  const proxied = parseServiceConfig({ ...raw, 'sign-in': (parse(blocks[1]!) as Record<string, unknown>)['sign-in'] }, '/etc/offsetctl/console.yaml', Object.keys(contexts), { OFFSETCTL_METRICS_TOKEN: 'docs-example-metrics-token-1' });
  assert.equal(proxied.signIn.kind === 'proxy' && proxied.signIn.proxy.trusted.matches('10.0.1.77'), true);
});

test('sign out everywhere ends every session of that person (issuer, subject), not another\'s; an admin ends a person\'s sessions, audited; nobody else may', async () => {
  const store = openStore(mkdtempSync(join(tmpdir(), 'offsetctl-ui-sessions-')));
  const service = parseServiceConfig({ contexts: {}, 'sign-in': { oidc: { issuer: 'http://127.0.0.1:9/', 'client-id': 'c' } }, roles: ROLES }, '/c.yaml', CONTEXTS, {});
  const http = new HttpClient({ timeoutMs: 1000 });
  const ui = createConsole({
    store, secure: true, service, publicUrl: () => 'https://127.0.0.1:8443',
    contexts: { initialLabel: 'prod', initialName: 'prod', names: async () => [], resolve: async () => ({ url: 'http://127.0.0.1:9', http }) },
  });
  const grants = service.grants;
  const person = (user: string, subject: string, groups: string[]) => {
    const identity = { user, groups, via: 'oidc' as const, issuer: 'http://127.0.0.1:9/', subject };
    const s = ui.sessions.create(identity, Access.of(groups, grants));
    return { cookie: `offsetctl_session=${s.id}`, csrf: s.csrf };
  };
  const status = async (who: { cookie: string }) => (await ui.app.request('/ctx/prod/changes', { headers: { cookie: who.cookie } })).status;
  const post = (who: { cookie: string; csrf: string }, path: string, fields: Record<string, string> = {}) => ui.app.request(path, {
    method: 'POST', headers: { cookie: who.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf: who.csrf, ...fields }).toString(),
  });
  const aliceLaptop = person('alice@example.com', 'alice', ['team-orders']);
  const alicePhone = person('alice.smith@example.com', 'alice', ['team-orders']);
  const bob = person('bob@example.com', 'bob', ['support']);
  const bob2 = person('bob@example.com', 'bob', ['support']);
  const root = person('root@example.com', 'root', ['platform']);

  const out = await post(aliceLaptop, '/auth/logout-everywhere');
  assert.equal(out.status, 200);
  assert.match(await out.text(), /in every browser \(2 sessions ended\)/);
  assert.deepEqual([await status(aliceLaptop), await status(alicePhone), await status(bob)], [403, 403, 200], 'both of alice\'s, whatever her e-mail; not bob\'s');

  assert.equal((await ui.app.request('/sessions', { headers: { cookie: bob.cookie } })).status, 403, 'a viewer sees no sessions');
  const refused = await post(bob, '/sessions/end', { person: 'oidc http://127.0.0.1:9 root' });
  assert.equal(refused.status, 403);
  assert.equal(await status(root), 200, 'bob could not end root\'s session');
  const page = await ui.app.request('/sessions', { headers: { cookie: root.cookie } });
  assert.equal(page.status, 200);
  const body = await page.text();
  assert.match(body, /data-user="bob@example\.com" data-sessions="2"/);
  const bobKey = /name="person" value="(oidc [^"]+ bob)"/.exec(body)?.[1];
  assert.ok(bobKey, body);
  const ended = await post(root, '/sessions/end', { person: bobKey });
  assert.equal(ended.status, 303);
  assert.deepEqual([await status(bob), await status(bob2), await status(root)], [403, 403, 200]);
  const entries = (await store.listAudit()).filter((e) => e.action === 'sign-out' || e.outcome === 'refused').map((e) => [e.actor.user, e.outcome, e.message ?? '']).reverse();
  assert.deepEqual(entries.map(([user, outcome]) => [user, outcome]), [['alice@example.com', 'done'], ['bob@example.com', 'refused'], ['root@example.com', 'done']]);
  assert.match(entries[0]![2]!, /signed out everywhere: 2 sessions ended/);
  assert.match(entries[2]![2]!, /root@example\.com ended every session of bob@example\.com \(oidc http:\/\/127\.0\.0\.1:9 bob\): 2 ended/);
  await store.close();
  await http.close();
});
