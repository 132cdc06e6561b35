// What two console replicas on one team store (PostgreSQL) share besides sessions and jobs
// (issue 33, points 5 and 7): a preview made through replica A is confirmed and applied through
// replica B with the same session (and then is gone on A too: a plan runs once); failed sign-ins
// through A count toward the limit on B; and OpenID Connect back-channel logout: a real
// oidc-provider over HTTPS tells replica B that alice's session at the provider ended, and her
// console session, made on A, is gone on both; a logout token signed with a foreign key is refused
// and audited, and ends nothing. The same consoles show, in the header of every page, that their
// context is production (production: true in console.yaml) and that a team policy requires approval
// on its cluster (issue 33, point 9). A sign-in started on B finishes on A (the flow is in the store).
// Real parts: the sandbox's Kafka broker and Connect cluster, a real PostgreSQL, Chromium, a loopback HTTP server, a SQLite store file, child processes, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SignJWT } from 'jose';
import type { Browser } from 'playwright-core';
import { numberedLines, sandboxRest, startPipeline, tempDir, type ConnectRest, type FilePipeline } from '../support/connect.js';
import { runCli } from '../support/cli.js';
import { signInByLink } from '../support/console-http.js';
import { startOidcProvider, type RunningProvider, type TestUser } from '../support/oidc-provider.js';
import { newDatabase, type TestDatabase } from '../support/postgres.js';
import { launchChromium, startService, startUi, type RunningUi } from '../web/browser.js';
import { signInAt } from '../web/sign-in.js';
import { oidcSignIn } from '../support/console-yaml.js';

let rest: ConnectRest;
let pipeline: FilePipeline;
let db: TestDatabase;
let provider: RunningProvider;
let browser: Browser | undefined;
const started: RunningUi[] = [];
const SECRET_ENV = 'TEST_OIDC_CLIENT_SECRET';
const users: Record<string, TestUser> = { alice: { email: 'alice@example.com', groups: ['team-orders'] } };

before(async () => {
  rest = await sandboxRest();
  pipeline = await startPipeline(rest, 'uishr', numberedLines('uishr', 3), { withSink: false });
  db = await newDatabase('uishr');
});

after(async () => {
  await browser?.close();
  for (const ui of started) await ui.stop();
  await provider?.close();
  await pipeline?.remove();
});

/** A console with the login link on the team store. */
async function linkReplica(): Promise<RunningUi> {
  const stateDir = tempDir('uishr-state');
  const ui = await startUi(['--url', rest.baseUrl, '--store', db.url, '--state-dir', stateDir], {
    PGPASSWORD: db.owner.password, OFFSETCTL_STORE: undefined, OFFSETCTL_CONFIG: join(stateDir, 'no-config.yaml'), OFFSETCTL_BOOTSTRAP: '',
  });
  started.push(ui);
  return ui;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A POST to the console over HTTPS (its certificate is the test's own, self-signed). */
function postForm(url: string, form: Record<string, string>): Promise<{ status: number; body: string }> {
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'POST', rejectUnauthorized: false, headers: { 'content-type': 'application/x-www-form-urlencoded' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function auditOf(action: string): Promise<Array<{ outcome: string; message?: string; actor: { user: string; subject?: string } }>> {
  const out = await runCli(['audit', '--store', db.url, '-o', 'json'], { env: { PGPASSWORD: db.owner.password, OFFSETCTL_STORE: undefined } });
  assert.equal(out.status, 0, out.stderr);
  type Entry = { action: string; outcome: string; message?: string; actor: { user: string; subject?: string } };
  return out.stdout.trim().split('\n').map((l) => JSON.parse(l) as Entry).filter((e) => e.action === action);
}

test('a preview made through replica A is confirmed and applied through replica B with the same session, and runs once', { timeout: 180_000 }, async () => {
  const [a, b] = [await linkReplica(), await linkReplica()];
  const onA = await signInByLink(a.loginUrl);
  const onB = onA.at(b.base);
  const target = [{ partition: { filename: join(tempDir('uishr-other'), 'elsewhere.txt') }, offset: { position: 5 } }];
  const preview = await onA.post(`/ctx/-/connectors/${encodeURIComponent(pipeline.source)}/preview`, { mode: 'json', offsets: JSON.stringify(target) });
  assert.equal(preview.status, 200, preview.text.slice(0, 500));
  const apply = /action="(\/ctx\/-\/plans\/[^"]+\/apply)"/.exec(preview.text)?.[1];
  assert.ok(apply, 'the preview page has the apply form');

  const applied = await onB.post(apply, { confirm: pipeline.source });
  assert.equal(applied.status, 303, `B found A's preview: ${applied.text.slice(0, 500)}`);
  assert.match(applied.location ?? '', /^\/ctx\/-\/jobs\//);
  const end = Date.now() + 90_000;
  while (!/Finished/.test((await onB.get(applied.location!)).text)) {
    if (Date.now() > end) assert.fail(`the job did not finish: ${(await onB.get(applied.location!)).text.slice(0, 800)}`);
    await sleep(300);
  }
  await rest.waitForRunning(pipeline.source);
  const { offsets } = await rest.offsets(pipeline.source);
  assert.deepEqual(offsets.find((o) => o.partition['filename'] === target[0]!.partition.filename)?.offset, { position: 5 }, 'the plan previewed on A ran');

  const again = await onA.post(apply, { confirm: pipeline.source });
  assert.equal(again.status, 400, 'taken once: the plan is gone on A too');
  assert.match(again.text, /this preview expired or was already applied/);
});

test('failed sign-ins through replica A count toward the limit on replica B', { timeout: 60_000 }, async () => {
  const [a, b] = [started[0]!, started[1]!];
  for (let i = 0; i < 10; i++) {
    const res = await fetch(`${a.base}/login?token=not-the-token-${i}`, { redirect: 'manual' });
    assert.equal(res.status, 403, `attempt ${i + 1} on A is refused, not yet limited`);
  }
  const onB = await fetch(`${b.base}/login?token=not-the-token-either`, { redirect: 'manual' });
  assert.equal(onB.status, 429, 'B counts the ten failures made through A (sign-in limit 10 a minute)');
  assert.ok(Number(onB.headers.get('retry-after')) >= 1);
});

test('production and approval badges in the header on every page; back-channel logout: the provider ends alice\'s session '
  + 'and her console session, made on A, is gone on A and B; a forged token is refused', {
  timeout: 240_000,
}, async () => {
  const dir = tempDir('uishr-oidc');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  const [portA, portB] = [await freePort(), await freePort()];
  // The provider calls replica B (as it would the load balancer): what B ends, A sees in the store.
  provider = await startOidcProvider([`https://127.0.0.1:${portA}/auth/callback`, `https://127.0.0.1:${portB}/auth/callback`], users, {
    backchannelLogout: { uri: `https://127.0.0.1:${portB}/auth/backchannel-logout`, ca: readFileSync(join(dir, 'cert.pem'), 'utf8') },
  });
  const yaml = (port: number, state: string, extra = ''): string => `listen: 127.0.0.1:${port}
${extra}tls:
  cert: cert.pem
  key: key.pem
state-dir: ${state}
store: ${db.url}
store-password-env: CONSOLE_PG
contexts:
  orders:
    url: ${rest.baseUrl}
    production: true
${oidcSignIn(provider, SECRET_ENV)}roles:
  - group: team-orders
    role: operator
`;
  writeFileSync(join(dir, 'a.yaml'), yaml(portA, 'a-state'));
  // B's public URL is A's (as if behind a balancer that sent the provider's redirect back elsewhere):
  // a sign-in started on B finishes on A.
  writeFileSync(join(dir, 'b.yaml'), yaml(portB, 'b-state', `public-url: https://127.0.0.1:${portA}\n`));
  const env = { [SECRET_ENV]: provider.clientSecret, CONSOLE_PG: db.owner.password, OFFSETCTL_STORE: undefined, PGPASSWORD: undefined };
  // A team policy on this cluster (for connectors no test here has): the header's approval badge.
  const admin = { OFFSETCTL_CONFIG: join(dir, 'admin.yaml'), OFFSETCTL_STORE: undefined, OFFSETCTL_URL: undefined, PGPASSWORD: db.owner.password };
  assert.equal((await runCli(['config', 'set-context', 'orders', '--url', rest.baseUrl, '--store', db.url], { env: admin })).status, 0);
  const policyArgs = ['policy', 'set', 'orders', '--require-approval', '--connectors', '^uishr-none-', '--state-dir', join(dir, 'admin-state')];
  const policy = await runCli(policyArgs, { env: admin });
  assert.equal(policy.status, 0, policy.stderr);
  const a = await startService(['--config', join(dir, 'a.yaml')], env);
  started.push(a);
  const b = { ...(await startService(['--config', join(dir, 'b.yaml')], env)), base: `https://127.0.0.1:${portB}` };
  started.push(b);
  browser = await launchChromium();
  const page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
  // Signing in starts on B (/auth/login) and the provider sends the browser back to A (/auth/callback): A finds the flow in the store.
  assert.equal((await page.goto(`${b.base}/connectors`))?.status(), 403);
  await page.click('a:has-text("Sign in")');
  await page.fill('input[name=login]', 'alice');
  await page.fill('input[name=password]', 'any password: the development login accepts it');
  await page.click('button[type=submit]');
  await page.click('button:has-text("Continue")');
  await page.waitForURL(`${a.base}/ctx/orders/connectors`, { timeout: 30_000 })
    .catch(async () => assert.fail(`the sign-in started on B did not finish on A: ${(await page.textContent('main'))?.slice(0, 500)}`));
  // Cookies are not kept apart by port: the browser brings A's session cookie to B, which finds it in the store.
  assert.equal((await page.goto(`${b.base}/connectors`))?.status(), 200, 'the session made on A works on B');
  // The header says, on every page, that this context is production and that a policy requires approval on its cluster.
  for (const path of ['/connectors', '/runs', '/snapshots', '/changes', '/audit', '/jobs']) {
    await page.goto(`${a.base}${path}`);
    assert.equal(await page.textContent('header.top #context-production'), 'production', path);
    assert.equal(await page.textContent('header.top #context-approval'), 'approval required', path);
    assert.match(await page.getAttribute('#context-approval', 'title') ?? '', /team policy requires approval/, path);
  }
  assert.match(await page.textContent('#context-select option[selected]') ?? '', /^orders \(.*\) · production$/);

  await page.goto(`${provider.issuer}/session/end`);
  await page.click('button:has-text("Yes, sign me out")');
  await page.waitForSelector('h1:has-text("Sign-out Success")');
  assert.equal((await page.goto(`${a.base}/connectors`))?.status(), 403, 'her session ended on A');
  assert.match(await page.textContent('main') ?? '', /Sign in to use this console/, 'the next request goes to sign-in');
  assert.equal((await page.goto(`${b.base}/connectors`))?.status(), 403, 'and on B');
  const done = (await auditOf('sign-out')).filter((e) => e.outcome === 'done');
  assert.deepEqual(done.map((e) => [e.actor.subject, /^back-channel logout from the identity provider of its session: 1 session ended/.test(e.message ?? '')]),
    [['alice', true]], JSON.stringify(done));

  // Signed in again; a logout token for her, signed by a key that is not the provider's (with its key id), is refused.
  await signInAt(page, a.base, 'alice');
  const jwks = await (await fetch(`${provider.issuer}/jwks`)).json() as { keys: Array<{ kid: string; alg?: string; kty: string }> };
  const kid = jwks.keys.find((k) => k.kty === 'RSA')!.kid;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const forged = await new SignJWT({ events: { 'http://schemas.openid.net/event/backchannel-logout': {} }, jti: `forged-${Date.now()}` })
    .setProtectedHeader({ alg: 'RS256', kid, typ: 'logout+jwt' }).setIssuer(provider.issuer).setAudience(provider.clientId).setSubject('alice').setIssuedAt()
    .sign(privateKey);
  const refused = await postForm(`${b.base}/auth/backchannel-logout`, { logout_token: forged });
  assert.equal(refused.status, 400, refused.body);
  assert.match((JSON.parse(refused.body) as { error_description: string }).error_description, /the logout token was refused: .*signature/i);
  assert.equal((await postForm(`${b.base}/auth/backchannel-logout`, { logout_token: 'not-a-jwt' })).status, 400);
  assert.equal((await page.goto(`${a.base}/connectors`))?.status(), 200, 'her session lives on');
  const refusals = (await auditOf('sign-out')).filter((e) => e.outcome === 'refused');
  assert.equal(refusals.length, 2, JSON.stringify(refusals));
  const why = /^\[invalid-logout-token\] back-channel logout: the logout token was refused: .*signature.*\(client 127\.0\.0\.1\)$/i;
  assert.match(refusals[0]!.message ?? '', why,
    'the refusal says why, and from where');
  assert.ok(!JSON.stringify(refusals).includes(forged), 'the token itself is not in the audit');
});
