// Who is who in a console that is a team's service (issue 33): the person is the pair (issuer,
// sub) the OpenID provider authenticated; the name (an e-mail) is only a label. Two consoles over
// HTTPS, one on a SQLite state folder and one on the tests' real PostgreSQL as the team store,
// signed in through a real provider (oidc-provider) in Chromium, against the sandbox:
// - alice requests a change; her e-mail changes at the provider; she signs out and in again (the
//   provider's session lets her straight back) as alice.smith@example.com, and her approval of
//   her own request is still refused;
// - on the PostgreSQL store, where every console user shares the console's database login, bob's
//   approval of alice's request is accepted (the login is not the person);
// - an e-mail the provider does not say is verified, and a missing configured user-claim, refuse
//   the sign-in, and the refusal is in the audit with its reason.
// Real parts: the sandbox's Kafka broker and Connect cluster, a real PostgreSQL, Chromium, a loopback HTTP server, a SQLite store file, child processes, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { connectFixture, tempDir, uniqueName, type ConnectFixture } from '../support/connect.js';
import { runCli } from '../support/cli.js';
import { startOidcProvider, type RunningProvider, type TestUser } from '../support/oidc-provider.js';
import { addOperator, newDatabase, type TestDatabase, type TestLogin } from '../support/postgres.js';
import { launchChromium, startService, type RunningUi } from '../web/browser.js';
import { forge, signInAt } from '../web/sign-in.js';
import { oidcSignIn } from '../support/console-yaml.js';

let cluster: ConnectFixture;
let provider: RunningProvider;
let browser: Browser;
let db: TestDatabase;
let consoleLogin: TestLogin;
let onSqlite: RunningUi;
let onPg: RunningUi;
/** A console whose provider signs ID tokens with a key its published key set does not have. */
let forger: RunningProvider;
let onForged: RunningUi;
let dir: string;
let source: { name: string; file: string };
const SECRET_ENV = 'TEST_OIDC_CLIENT_SECRET';
const METRICS_TOKEN = `metrics-${Math.random().toString(36).slice(2)}-0123456789`;
const users: Record<string, TestUser> = {
  alice: { email: 'alice@example.com', groups: ['team-orders'] },
  bob: { email: 'bob@example.com', groups: ['team-orders'] },
  carol: { email: 'carol@example.com', emailVerified: false, groups: ['team-orders'] },
  dave: { groups: ['team-orders'] },
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function consoleYaml(port: number, store: string, extra: string, idp = provider, secretEnv = SECRET_ENV): string {
  return `listen: 127.0.0.1:${port}
tls:
  cert: cert.pem
  key: key.pem
${store}
contexts:
  reviewed:
    url: ${cluster.url}
    approval: required
${oidcSignIn(idp, secretEnv)}    user-claim: email
${extra}
roles:
  - group: team-orders
    role: operator
`;
}

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(3, { name: uniqueName('orders') });
  db = await newDatabase('identity');
  consoleLogin = await addOperator(db, 'console');
  dir = tempDir('ui-identity');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  const [sqlitePort, pgPort, forgedPort] = [await freePort(), await freePort(), await freePort()];
  const jwk = (): Record<string, unknown> => ({ ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig', alg: 'RS256' });
  const signing = jwk();
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...published } = jwk();
  forger = await startOidcProvider(`https://127.0.0.1:${forgedPort}/auth/callback`, users, { jwks: { keys: [signing] }, publishJwks: { keys: [published] } });
  writeFileSync(join(dir, 'forged.yaml'), consoleYaml(forgedPort, 'state-dir: forged-state', '', forger, 'TEST_FORGER_SECRET'));
  provider = await startOidcProvider([`https://127.0.0.1:${sqlitePort}/auth/callback`, `https://127.0.0.1:${pgPort}/auth/callback`], users);
  // The SQLite console serves its metrics on a loopback address of its own; the one on PostgreSQL
  // with a bearer token, and allows two failed sign-ins a minute per address.
  writeFileSync(join(dir, 'sqlite.yaml'), consoleYaml(sqlitePort, 'state-dir: state', 'metrics:\n  listen: 127.0.0.1:0'));
  writeFileSync(join(dir, 'pg.yaml'), consoleYaml(pgPort, `state-dir: pg-state\nstore: ${db.urlFor(consoleLogin)}\nstore-password-env: CONSOLE_PG`,
    '  rate-limit: 2\nmetrics:\n  token-env: TEST_METRICS_TOKEN\nsession:\n  recheck-roles: 5s'));
  const env = { [SECRET_ENV]: provider.clientSecret, OFFSETCTL_STORE: undefined, PGPASSWORD: undefined, TEST_METRICS_TOKEN: METRICS_TOKEN };
  onSqlite = await startService(['--config', join(dir, 'sqlite.yaml')], env);
  onPg = await startService(['--config', join(dir, 'pg.yaml')], { ...env, CONSOLE_PG: consoleLogin.password });
  onForged = await startService(['--config', join(dir, 'forged.yaml')], { ...env, TEST_FORGER_SECRET: forger.clientSecret });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await onSqlite?.stop();
  await onPg?.stop();
  await onForged?.stop();
  await provider?.close();
  await forger?.close();
  await cluster?.cleanup();
});

const people = new Map<string, BrowserContext>();
async function pageOf(login: string): Promise<Page> {
  let context = people.get(login);
  if (!context) {
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    people.set(login, context);
  }
  return context.newPage();
}

/** alice previews a rewind and confirms it: in a context that requires approval, a pending request. */
async function request(page: Page, base: string, position: number): Promise<string> {
  await page.goto(`${base}/connectors/${encodeURIComponent(source.name)}/change`);
  await page.fill('textarea[name=offsets]', JSON.stringify({ offsets: [{ partition: { filename: source.file }, offset: { position } }] }));
  await page.click('form:has(textarea[name=offsets]) button[type=submit]');
  await page.fill('input[name=confirm]', source.name);
  await page.click('form[action*="/plans/"] button[type=submit]');
  await page.waitForURL(/\/changes\/chg-/);
  assert.equal(await page.textContent('#request-status'), 'pending');
  return /\/changes\/(chg-[^/?#]+)/.exec(page.url())![1]!;
}

test('alice\'s e-mail changes at the provider: signed in again as alice.smith@example.com, she still may not approve her own request', { timeout: 180_000 }, async () => {
  const base = onSqlite.base;
  const alice = await pageOf('alice');
  await signInAt(alice, base, 'alice');
  assert.match(await alice.textContent('.user') ?? '', /alice@example\.com/);
  const id = await request(alice, base, 0);

  users.alice!.email = 'alice.smith@example.com';
  await alice.click('#sign-out');
  await alice.waitForSelector('h1:has-text("Signed out")');
  await signInAt(alice, base, 'alice');
  assert.match(await alice.textContent('.user') ?? '', /alice\.smith@example\.com/, 'the new e-mail is her name now');

  await alice.goto(`${base}/changes/${id}`);
  assert.equal(await alice.locator('#approve').count(), 0, 'no approve button: she made it');
  assert.match(await alice.textContent('#review-note') ?? '', /someone else must approve/);
  const forged = await forge(alice, `/changes/${id}/approve`, {});
  assert.equal(forged.status, 400, 'her approval is refused on the server');
  assert.match(forged.body, /was made by alice@example\.com, who is you \(alice\.smith@example\.com/);
  await alice.reload();
  assert.equal(await alice.textContent('#request-status'), 'pending');
  await alice.close();
});

test('on the PostgreSQL team store, where every console user shares its database login, bob\'s approval of alice\'s request is accepted', { timeout: 180_000 }, async () => {
  const base = onPg.base;
  const alice = await pageOf('alice');
  await signInAt(alice, base, 'alice');
  const id = await request(alice, base, 1);
  assert.equal((await forge(alice, `/changes/${id}/approve`, {})).status, 400, 'alice may not approve it');

  const bob = await pageOf('bob');
  await signInAt(bob, base, 'bob');
  await bob.goto(`${base}/changes/${id}`);
  await bob.click('#approve');
  await bob.waitForFunction(() => document.querySelector('#request-status')?.textContent === 'approved', undefined, { timeout: 30_000 })
    .catch(async () => assert.fail(`not approved: ${(await bob.textContent('main'))?.slice(0, 800)}`));
  assert.match(await bob.textContent('ol.history') ?? '', /approved by bob@example\.com/);

  // The team store's record names each person by how they signed in, beside the console's login.
  const shown = await runCli(['changes', 'show', id, '-o', 'json', '--store', db.urlFor(consoleLogin)], { env: { PGPASSWORD: consoleLogin.password, OFFSETCTL_STORE: undefined } });
  assert.equal(shown.status, 0, shown.stderr);
  const history = (JSON.parse(shown.stdout) as { history: Array<{ action: string; actor: { user: string; dbUser?: string; signIn?: { subject?: string } } }> }).history;
  assert.deepEqual(history.map((h) => [h.action, h.actor.user, h.actor.signIn?.subject, h.actor.dbUser]), [
    ['requested', 'alice.smith@example.com', 'alice', consoleLogin.user], ['approved', 'bob@example.com', 'bob', consoleLogin.user],
  ]);
  await alice.close();
  await bob.close();
});

test('bob probing alice\'s previewed plan with /plans/<id>/apply: the answer says nothing of it, the audit has the attempt', { timeout: 120_000 }, async () => {
  const base = onPg.base;
  const alice = await pageOf('alice');
  await alice.goto(`${base}/connectors/${encodeURIComponent(source.name)}/change`);
  await alice.fill('textarea[name=offsets]', JSON.stringify({ offsets: [{ partition: { filename: source.file }, offset: { position: 2 } }] }));
  await alice.click('form:has(textarea[name=offsets]) button[type=submit]');
  const action = await alice.getAttribute('form[action*="/plans/"]', 'action');
  const planId = /\/plans\/([^/]+)\/apply/.exec(action ?? '')?.[1];
  assert.ok(planId, action ?? '');
  const bob = await pageOf('bob');
  await bob.goto(`${base}/changes`);
  const probe = await forge(bob, `/plans/${planId}/apply`, { confirm: source.name });
  assert.equal(probe.status, 400);
  assert.match(probe.body, /this preview expired or was already applied/, 'the same answer as for an id that does not exist');
  assert.equal((await forge(bob, '/plans/plan-does-not-exist/apply', { confirm: source.name })).status, 400);
  const out = await runCli(['audit', '--store', db.urlFor(consoleLogin), '--connector', source.name, '-o', 'json'], { env: { PGPASSWORD: consoleLogin.password, OFFSETCTL_STORE: undefined } });
  const probes = out.stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; outcome: string; message?: string; actor: { user: string } })
    .filter((e) => e.action === 'apply' && e.outcome === 'refused');
  assert.deepEqual(probes.map((e) => e.actor.user), ['bob@example.com'], 'one entry: the probe of a real plan');
  assert.match(probes[0]!.message ?? '', new RegExp(`tried to apply a plan previewed in another session \\(${planId}\\)`));
  await alice.close();
  await bob.close();
});

test('sign out everywhere, in one browser, ends alice\'s session in her other browser too, and at the provider when she asks', { timeout: 120_000 }, async () => {
  const base = onPg.base;
  const laptop = await pageOf('alice');
  assert.equal((await laptop.goto(`${base}/connectors`))?.status(), 200, 'still signed in from the tests above');
  const phone = await pageOf('alice-on-her-phone');
  await signInAt(phone, base, 'alice');
  await laptop.click('#sign-out-everywhere');
  await laptop.waitForSelector('h1:has-text("Signed out")');
  assert.match(await laptop.textContent('main') ?? '', /in every browser \(2 sessions ended\)/);
  assert.equal((await phone.goto(`${base}/connectors`))?.status(), 403, 'the other browser\'s session ended too');
  // The provider's session too, from the signed-out page (RP-initiated logout): the next sign-in asks again.
  await laptop.click('#provider-sign-out');
  await laptop.click('button:has-text("Yes, sign me out")');
  await laptop.waitForSelector('h1:has-text("Sign-out Success")');
  assert.equal((await laptop.goto(`${base}/connectors`))?.status(), 403);
  await laptop.goto(`${base}/auth/login`);
  await laptop.waitForSelector('input[name=login]', { timeout: 30_000 });
  await laptop.close();
  await phone.close();
});

test('a new sign-in in a browser ends the session it replaces: the old cookie, replayed, is refused', { timeout: 120_000 }, async () => {
  const base = onPg.base;
  const page = await pageOf('bob');
  assert.equal((await page.goto(`${base}/connectors`))?.status(), 200, 'bob is signed in from the tests above');
  const old = (await page.context().cookies(base)).find((c) => c.name === 'offsetctl_session');
  assert.ok(old);
  await page.goto(`${base}/auth/login`);
  await page.waitForURL(/\/ctx\/[^/]+\/connectors$/, { timeout: 30_000 });
  const now = (await page.context().cookies(base)).find((c) => c.name === 'offsetctl_session');
  assert.ok(now && now.value !== old.value, 'a new session');
  await page.context().addCookies([old]);
  assert.equal((await page.goto(`${base}/connectors`))?.status(), 403, 'the replaced session ended');
  await page.context().addCookies([now]);
  assert.equal((await page.goto(`${base}/connectors`))?.status(), 200);
  await page.close();
});

test('bob\'s group is taken away at the provider: at the next roles check (recheck-roles: 5s) his session ends', { timeout: 60_000 }, async () => {
  const base = onPg.base;
  const page = await pageOf('bob');
  // The changes page (not the connectors page, whose table refreshes itself in the background).
  assert.equal((await page.goto(`${base}/changes`))?.status(), 200, 'bob is signed in from the tests above');
  users.bob!.groups = ['support'];
  await new Promise((resolve) => setTimeout(resolve, 5500));
  const res = await page.goto(`${base}/changes`);
  assert.equal(res?.status(), 403);
  assert.match(await page.textContent('main') ?? '', /no longer puts you in a group with a role here \(groups now: support\)/);
  assert.equal((await page.goto(`${base}/connectors`))?.status(), 403, 'the session ended');
  const out = await runCli(['audit', '--store', db.urlFor(consoleLogin), '-o', 'json'], { env: { PGPASSWORD: consoleLogin.password, OFFSETCTL_STORE: undefined } });
  assert.ok(out.stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; message?: string; actor: { user: string } })
    .some((e) => e.action === 'sign-out' && e.actor.user === 'bob@example.com' && /roles re-checked at the provider/.test(e.message ?? '')), 'in the audit');
  users.bob!.groups = ['team-orders'];
  await page.close();
});

/** A GET without a session (the console's certificate is self-signed). */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; body: string }> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { headers, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the console on the team store names it when it starts (its URL, no password)', () => {
  assert.match(onPg.output(), new RegExp(`^offsetctl ui: serving reviewed \\(.*\\) \\(team store postgres://${consoleLogin.user}@127\\.0\\.0\\.1:\\d+/${db.name}\\) at https://`, 'm'));
  assert.match(onSqlite.output(), /^offsetctl ui: serving reviewed \(.*\) \(state .*state\) at https:/m);
});

test('/healthz and /readyz answer without a session; /metrics only with the token (or on its own loopback address), in Prometheus format', { timeout: 60_000 }, async () => {
  assert.deepEqual(JSON.parse((await get(`${onPg.base}/healthz`)).body), { status: 'ok' });
  const ready = await get(`${onPg.base}/readyz`);
  assert.equal(ready.status, 200, ready.body);
  assert.deepEqual(JSON.parse(ready.body), { status: 'ready', store: 'ok', contexts: { reviewed: 'ok' } }, 'the PostgreSQL store and the sandbox\'s worker answer');
  assert.equal((await get(`${onPg.base}/metrics`)).status, 401);
  assert.equal((await get(`${onPg.base}/metrics`, { authorization: 'Bearer not-the-token-0123456789' })).status, 401);
  const metrics = await get(`${onPg.base}/metrics`, { authorization: `Bearer ${METRICS_TOKEN}` });
  assert.equal(metrics.status, 200);
  assert.match(metrics.type, /^text\/plain; version=0\.0\.4/);
  assert.match(metrics.body, /^offsetctl_console_http_requests_total\{route="\/changes\/:id",method="GET",status="200"\} \d+$/m, 'the change request pages shown above');
  assert.match(metrics.body, /^offsetctl_console_sign_ins_total\{via="oidc",outcome="done",reason=""\} [1-9]/m);
  assert.match(metrics.body, /^offsetctl_console_http_request_duration_seconds_count\{route="\/readyz",method="GET"\} 1$/m);

  const own = /Metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(onSqlite.output())?.[1];
  assert.ok(own, onSqlite.output().slice(0, 2000));
  const local = await get(own);
  assert.equal(local.status, 200);
  assert.match(local.body, /^# TYPE offsetctl_console_jobs_running gauge$/m);
  assert.equal((await get(`${onSqlite.base}/metrics`)).status, 404, 'not on the console\'s own address without a token');
});

test('an unverified e-mail and a missing user-claim refuse the sign-in: audited with the reason and the client\'s address, logged; then the limit', { timeout: 120_000 }, async () => {
  const carol = await pageOf('carol');
  const refusedCarol = await signInAt(carol, onPg.base, 'carol', { refused: true });
  assert.match(refusedCarol, /e-mail address carol@example\.com is verified/);
  assert.equal((await carol.goto(`${onPg.base}/connectors`))?.status(), 403, 'no session');
  const dave = await pageOf('dave');
  const refusedDave = await signInAt(dave, onPg.base, 'dave', { refused: true });
  assert.match(refusedDave, /sent no email claim, which sign-in\.oidc\.user-claim names/);
  assert.equal((await dave.goto(`${onPg.base}/connectors`))?.status(), 403, 'no session');
  // Two failures a minute from this address (alice's and bob's good sign-ins counted nothing): the next attempt waits.
  assert.equal((await dave.goto(`${onPg.base}/auth/login`))?.status(), 429);
  await carol.close();
  await dave.close();

  const out = await runCli(['audit', '--store', db.urlFor(consoleLogin), '-o', 'json'], { env: { PGPASSWORD: consoleLogin.password, OFFSETCTL_STORE: undefined } });
  assert.equal(out.status, 0, out.stderr);
  const refused = out.stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; outcome: string; message?: string; actor: { subject?: string; via: string } })
    .filter((e) => e.action === 'sign-in' && e.outcome === 'refused');
  assert.deepEqual(refused.map((e) => [e.actor.subject, e.actor.via, /^\[([a-z-]+)\]/.exec(e.message ?? '')?.[1], /\(client 127\.0\.0\.1\)$/.test(e.message ?? '')]), [
    ['carol', 'oidc', 'unverified-email', true], ['dave', 'oidc', 'missing-claim', true], [undefined, 'oidc', 'rate-limited', false],
  ]);
  const lines = onPg.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.ok(lines.some((l) => l.event === 'sign-in-refused' && l.reason === 'unverified-email' && l.ip === '127.0.0.1' && typeof l.reqId === 'string'), 'the refusal in the log');
  assert.ok(lines.some((l) => l.event === 'access' && l.route === '/changes/:id' && l.user === 'bob@example.com'), 'access lines name who asked');
  for (const secret of [provider.clientSecret, METRICS_TOKEN, consoleLogin.password]) assert.ok(!onPg.output().includes(secret), 'a secret in the console\'s log');
});

test('an ID token signed by a key the provider\'s key set does not have is refused; so is one issued an hour ahead', { timeout: 120_000 }, async () => {
  const forged = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
  const why = await signInAt(forged, onForged.base, 'alice', { refused: true });
  assert.match(why, /the sign-in could not be completed: .*signature/i);
  assert.equal((await forged.goto(`${onForged.base}/connectors`))?.status(), 403, 'no session');
  await forged.context().close();

  // The provider runs in this process: its clock an hour ahead, it issues tokens from the future.
  const future = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
  const now = Date.now;
  Date.now = () => now() + 3600_000;
  let ahead: string;
  try {
    ahead = await signInAt(future, onSqlite.base, 'bob', { refused: true });
  } finally {
    Date.now = now;
  }
  assert.match(ahead, /ID token was issued 3[56]\d\d s in the future \(iat\)/);
  await future.context().close();
  const out = await runCli(['audit', '--state-dir', join(dir, 'forged-state'), '-o', 'json']);
  const refused = out.stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; outcome: string; message?: string }).filter((e) => e.action === 'sign-in');
  assert.deepEqual(refused.map((e) => [e.outcome, /^\[([a-z-]+)\]/.exec(e.message ?? '')?.[1]]), [['refused', 'invalid-token']]);
});

test('at 420 px the header (navigation, context, user, both sign-out buttons) wraps instead of overflowing', { timeout: 60_000 }, async () => {
  const page = await pageOf('alice-narrow');
  await page.setViewportSize({ width: 420, height: 800 });
  await signInAt(page, onSqlite.base, 'alice');
  assert.equal(await page.locator('#sign-out-everywhere').count(), 1);
  assert.match(await page.textContent('#context-select option[selected]') ?? '', /^reviewed \(.*\) · approval required$/, 'the context says it requires approval');
  const widths = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth, view: document.documentElement.clientWidth,
    header: Math.max(...Array.from(document.querySelectorAll('header.top *'), (e) => e.getBoundingClientRect().right)),
    beyond: Array.from(document.querySelectorAll('header.top *')).filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth).map((e) => e.tagName + (e.id ? `#${e.id}` : '')),
  }));
  assert.ok(widths.page <= widths.view, `no sideways scrolling: ${JSON.stringify(widths)}`);
  assert.ok(widths.header <= widths.view, `nothing in the header beyond the right edge: ${JSON.stringify(widths)}`);
  await page.close();
});
