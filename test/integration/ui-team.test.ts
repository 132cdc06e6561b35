// The console as a team's service, end to end: `offsetctl ui --config console.yaml` over HTTPS
// against the sandbox, people signing in through a real OpenID Provider (oidc-provider, started in
// this process) whose login and consent pages Chromium fills in, two users in different groups:
// alice (team-orders: operator on ^orders-, viewer elsewhere) and bob (support: viewer). Sign-in
// and sign-out; bob sees offsets but his forged apply of alice's plan gets 403 and starts no run;
// alice rewinds her orders connector and is refused on billing; the audit page and
// `offsetctl audit -o json` show both; the client secret appears nowhere. In the context
// `reviewed` (approval: required) alice's change becomes a change request, her own approval is
// refused, bob approves it in the console and alice applies it; a batch request made with the CLI
// is approved and applied in the console as one batch. Then the proxy mode:
// the identity header is refused from 127.0.0.2, a loopback address that is not the proxy.
// Real parts: the sandbox's Kafka broker and Connect cluster, Chromium, a loopback HTTP server, a SQLite store file, child processes, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { connectFixture, sortedOffsets, tempDir, uniqueName, waitFor, type ConnectFixture } from '../support/connect.js';
import { runCli } from '../support/cli.js';
import { startOidcProvider, type RunningProvider } from '../support/oidc-provider.js';
import { launchChromium, screenshotDir, startService, type RunningUi } from '../web/browser.js';
import { PROXY_SIGN_IN, oidcSignIn } from '../support/console-yaml.js';

let cluster: ConnectFixture;
let provider: RunningProvider;
let ui: RunningUi;
let browser: Browser;
let alice: BrowserContext;
let bob: BrowserContext;
let dir: string;
let stateDir: string;
let orders: { name: string; file: string };
let billing: { name: string; file: string };
const SECRET_ENV = 'TEST_OIDC_CLIENT_SECRET';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

before(async () => {
  cluster = await connectFixture();
  orders = await cluster.createSource(5, { name: uniqueName('orders') });
  billing = await cluster.createSource(5, { name: uniqueName('billing') });
  dir = tempDir('ui-team');
  stateDir = join(dir, 'state');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  const port = await freePort();
  provider = await startOidcProvider(`https://127.0.0.1:${port}/auth/callback`, {
    alice: { email: 'alice@example.com', groups: ['team-orders'] },
    bob: { email: 'bob@example.com', groups: ['support'] },
  });
  writeFileSync(join(dir, 'console.yaml'), `# the console for the team (written by ui-team.test.ts)
listen: 127.0.0.1:${port}
tls:
  cert: cert.pem
  key: key.pem
state-dir: state
contexts:
  sandbox:
    url: ${cluster.url}
  reviewed:
    url: ${cluster.url}
    approval: required
${oidcSignIn(provider, SECRET_ENV)}roles:
  - group: team-orders
    role: operator
    contexts: [sandbox, reviewed]
    connectors: ^orders-
  - group: support
    role: operator
    contexts: [reviewed]
    connectors: ^orders-
  - groups: [team-orders, support]
    role: viewer
`);
  ui = await startService(['--config', join(dir, 'console.yaml')], { [SECRET_ENV]: provider.clientSecret });
  browser = await launchChromium();
  alice = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
  bob = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
});

after(async () => {
  await browser?.close();
  await ui?.stop();
  await provider?.close();
  await cluster?.cleanup();
});

/** The connectors page of a context (/ctx/<context>/connectors), where a sign-in lands. */
const CONNECTORS = /\/ctx\/[^/]+\/connectors$/;

/** Signs in through the provider's own pages, as a person would: the console's Sign in link, login, consent. */
async function signIn(page: Page, login: string): Promise<void> {
  const first = await page.goto(`${ui.base}/connectors`);
  assert.equal(first?.status(), 403, 'not signed in yet');
  await page.click('a:has-text("Sign in")');
  // A person still signed in at the provider comes straight back; anyone else logs in there.
  const form = page.locator('input[name=login]');
  const back = await Promise.race([
    form.waitFor({ timeout: 30_000 }).then(() => false),
    page.waitForURL(CONNECTORS, { timeout: 30_000 }).then(() => true),
  ]);
  if (back) return;
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', 'any password: the development login accepts it');
  await page.click('button[type=submit]');
  // Consent is asked once per user and client.
  const consent = page.locator('button:has-text("Continue")');
  await Promise.race([
    consent.waitFor({ timeout: 30_000 }).then(() => consent.click()),
    page.waitForURL(CONNECTORS, { timeout: 30_000 }),
  ]);
  await page.waitForURL(CONNECTORS, { timeout: 30_000 });
}

/** A POST from the signed-in page itself (same origin, the session's cookie and CSRF token): what a crafted request can do. */
async function forge(page: Page, path: string, fields: Record<string, string>): Promise<number> {
  return page.evaluate(async ({ path, fields }) => {
    const csrf = (document.querySelector('input[name=csrf]') as HTMLInputElement | null)?.value ?? '';
    // Sent in the context of the page it is sent from, as the page's own forms are.
    const here = /^\/ctx\/[^/]+/.exec(location.pathname)?.[0] ?? '';
    const res = await fetch(path.startsWith('/ctx/') ? path : `${here}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, ...fields }).toString() });
    return res.status;
  }, { path, fields });
}

interface ListedRun {
  id: string;
  status: string;
  operation: string;
  actor: { user: string; via: string; signIn?: { kind: string; issuer?: string; subject?: string; groups?: string[] } };
}

async function runsOf(connector: string): Promise<ListedRun[]> {
  const r = await runCli(['runs', '--connector', connector, '--state-dir', stateDir, '-o', 'json']);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as ListedRun[];
}

test('sign-in through the OpenID provider, a Secure HttpOnly SameSite=Strict session, and sign-out', { timeout: 120_000 }, async () => {
  const page = await alice.newPage();
  await signIn(page, 'alice');
  assert.match(await page.textContent('.user') ?? '', /alice@example\.com\s*\(operator\)/);
  const cookie = (await alice.cookies(ui.base)).find((c) => c.name === 'offsetctl_session');
  assert.ok(cookie, 'a session cookie');
  assert.deepEqual([cookie.secure, cookie.httpOnly, cookie.sameSite], [true, true, 'Strict']);
  assert.ok(cookie.expires > Date.now() / 1000 && cookie.expires < Date.now() / 1000 + 8 * 3600 + 60, 'expires with the session (8 h by default)');
  // Both connectors are listed (alice may see everything); the page never shows the Connect URL's credentials (there are none) nor the client secret.
  await page.waitForSelector(`text=${billing.name}`);
  await page.click('#sign-out');
  await page.waitForSelector('h1:has-text("Signed out")');
  const again = await page.goto(`${ui.base}/connectors`);
  assert.equal(again?.status(), 403, 'signed out: the session is gone');
  // The old cookie, replayed, is refused too (the session ended on the server, not only in the browser).
  await alice.addCookies([{ ...cookie }]);
  assert.equal((await page.goto(`${ui.base}/runs`))?.status(), 403);
  await signIn(page, 'alice');
  await page.close();
});

test('a viewer sees offsets, but his forged apply of a previewed plan gets 403 and no run starts', { timeout: 120_000 }, async () => {
  const bobPage = await bob.newPage();
  await signIn(bobPage, 'bob');
  await bobPage.goto(`${ui.base}/connectors/${encodeURIComponent(orders.name)}`);
  assert.match(await bobPage.textContent('main') ?? '', new RegExp(orders.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'the offsets table names the source file');
  assert.equal(await bobPage.locator('a:has-text("Change offsets")').count(), 0, 'no change button for a viewer');
  assert.equal((await bobPage.goto(`${ui.base}/connectors/${encodeURIComponent(orders.name)}/change`))?.status(), 403, 'no change page for a viewer');

  // alice previews a rewind of orders to position 0: the plan waits on the server under an id.
  const alicePage = await alice.newPage();
  await alicePage.goto(`${ui.base}/connectors/${encodeURIComponent(orders.name)}/change`);
  await alicePage.fill('textarea[name=offsets]', JSON.stringify({ offsets: [{ partition: { filename: orders.file }, offset: { position: 0 } }] }));
  await alicePage.click('form:has(textarea[name=offsets]) button[type=submit]');
  await alicePage.waitForSelector('form[action*="/plans/"]');
  const action = await alicePage.getAttribute('form[action*="/plans/"]', 'action');
  const planId = /\/plans\/([^/]+)\/apply/.exec(action ?? '')?.[1];
  assert.ok(planId, action ?? '');

  const before = await cluster.offsets(orders.name);
  await bobPage.goto(`${ui.base}/connectors/${encodeURIComponent(orders.name)}`);
  assert.equal(await forge(bobPage, `/plans/${planId}/apply`, { confirm: orders.name }), 403);
  assert.equal(await forge(bobPage, `/connectors/${encodeURIComponent(orders.name)}/preview`, { mode: 'reset' }), 403);
  assert.deepEqual(await runsOf(orders.name), [], 'no run started');
  assert.deepEqual(await cluster.offsets(orders.name), before, 'offsets unchanged');
  assert.equal((await cluster.status(orders.name)).connector.state, 'RUNNING');
  // The plan is still alice's to apply: bob's attempt did not spend it.
  await alicePage.fill('input[name=confirm]', orders.name);
  await alicePage.click('form[action*="/plans/"] button[type=submit]');
  await alicePage.waitForSelector('[data-status]', { timeout: 90_000 });
  await alicePage.waitForFunction(() => /succeeded|failed|refused/.test(document.querySelector('[data-status]')?.getAttribute('data-status') ?? ''), undefined, { timeout: 90_000 });
  assert.equal(await alicePage.getAttribute('[data-status]', 'data-status'), 'succeeded', await alicePage.textContent('main') ?? '');
  const runs = await runsOf(orders.name);
  assert.deepEqual(runs.map((r) => [r.operation, r.status]), [['rewind', 'succeeded']]);
  // The run itself is recorded under alice as the provider authenticated her, not the console's OS user.
  const { user, via, signIn: how } = runs[0]!.actor;
  assert.deepEqual([user, via, how?.kind, how?.issuer, how?.groups], ['alice@example.com', 'console', 'oidc', provider.issuer, ['team-orders']]);
  assert.equal(how?.subject, 'alice', 'the subject the ID token named');
  // Who started it shows in the history, for everyone who may see the connector.
  await bobPage.goto(`${ui.base}/runs?connector=${encodeURIComponent(orders.name)}`);
  assert.deepEqual(await bobPage.$$eval('td.run-by', (tds) => tds.map((td) => td.textContent)), ['alice@example.com']);
  await bobPage.goto(`${ui.base}/runs/${encodeURIComponent(runs[0]!.id)}`);
  assert.match(await bobPage.textContent('.run-actor') ?? '', /^alice@example\.com \(signed in with OpenID Connect, issuer .*, groups team-orders; console on /);
  await alicePage.close();
  await bobPage.close();
});

test('an operator scoped to ^orders- is refused on billing: 403, nothing read or changed', { timeout: 60_000 }, async () => {
  const page = await alice.newPage();
  await page.goto(`${ui.base}/connectors/${encodeURIComponent(billing.name)}`);
  assert.match(await page.textContent('main') ?? '', /offsets/i, 'alice may see billing');
  const before = await cluster.offsets(billing.name);
  assert.equal((await page.goto(`${ui.base}/connectors/${encodeURIComponent(billing.name)}/change`))?.status(), 403);
  assert.match(await page.textContent('[role=alert]') ?? '', /alice@example\.com may not change/);
  await page.goto(`${ui.base}/connectors/${encodeURIComponent(billing.name)}`);
  assert.equal(await forge(page, `/connectors/${encodeURIComponent(billing.name)}/preview`, { mode: 'reset' }), 403);
  assert.equal(await forge(page, `/connectors/${encodeURIComponent(billing.name)}/preview`, { mode: 'json', offsets: '{"offsets": []}' }), 403);
  assert.deepEqual(await runsOf(billing.name), []);
  assert.deepEqual(await cluster.offsets(billing.name), before);
  await page.close();
});

test('a rollback from the console is recorded under the signed-in user: its run, its audit entries and the snapshot it restored', { timeout: 120_000 }, async () => {
  // alice's rewind of orders (above) took a snapshot; she rolls it back from its page.
  const rewind = (await runsOf(orders.name)).find((r) => r.operation === 'rewind' && r.status === 'succeeded');
  assert.ok(rewind, 'the rewind of the test above');
  const listed = await runCli(['snapshots', '--state-dir', stateDir, '-o', 'json']);
  const snapshot = (JSON.parse(listed.stdout) as Array<{ id: string; runId?: string }>).find((x) => x.runId === rewind.id);
  assert.ok(snapshot, `the rewind's snapshot in ${listed.stdout}`);
  const shown = JSON.parse((await runCli(['snapshots', 'show', snapshot.id, '--state-dir', stateDir, '-o', 'json'])).stdout) as { offsets: unknown[] };
  // Since then the source read its file to the end again, which is where the snapshot has it:
  // someone sets it elsewhere by hand (stopped, a PATCH), so the rollback has something to restore.
  await cluster.stop(orders.name);
  await cluster.waitForStopped(orders.name);
  await cluster.expect('PATCH', `/connectors/${encodeURIComponent(orders.name)}/offsets`, [200], { offsets: [{ partition: { filename: orders.file }, offset: { position: 1 } }] });
  const page = await alice.newPage();
  await page.goto(`${ui.base}/snapshots/${encodeURIComponent(snapshot.id)}`);
  await page.fill('input[name=confirm]', orders.name);
  await page.click('form[action*="/plans/"] button[type=submit]');
  await page.waitForURL(/\/jobs\/|\/runs\//, { timeout: 30_000 }).catch(() => undefined);
  const ended = await page.waitForFunction(() => /succeeded|failed|refused/.test(document.querySelector('[data-status]')?.getAttribute('data-status') ?? ''), undefined, { timeout: 90_000 }).then(() => true, () => false);
  assert.ok(ended, `the rollback did not end on ${page.url()}: ${(await page.textContent('main'))?.slice(0, 1500)}`);
  assert.equal(await page.getAttribute('[data-status]', 'data-status'), 'succeeded', await page.textContent('main') ?? '');
  await page.close();
  await cluster.waitRunning(orders.name);
  assert.deepEqual(sortedOffsets(await cluster.offsets(orders.name)), sortedOffsets({ offsets: shown.offsets as never }), 'the snapshot\'s offsets are back');

  const rollback = (await runsOf(orders.name)).find((r) => r.operation === 'rollback');
  assert.deepEqual([rollback?.status, rollback?.actor.user, rollback?.actor.via, rollback?.actor.signIn?.kind], ['succeeded', 'alice@example.com', 'console', 'oidc']);
  const audit = (await runCli(['audit', '--state-dir', stateDir, '--connector', orders.name, '-o', 'json'])).stdout.trim().split('\n')
    .map((l) => JSON.parse(l) as { action: string; outcome: string; runId?: string; snapshotId?: string; actor: { user: string; via: string } })
    .filter((e) => e.action === 'rollback');
  // The start names the snapshot restored; the end the run's own (taken before it wrote anything).
  assert.deepEqual(audit.map((e) => [e.outcome, e.actor.user, e.actor.via, e.runId]), [
    ['started', 'alice@example.com', 'oidc', rollback!.id],
    ['succeeded', 'alice@example.com', 'oidc', rollback!.id],
  ]);
  assert.equal(audit[0]!.snapshotId, snapshot.id);
  assert.match(audit[1]!.snapshotId ?? '', /^snap-/);
});

test('the audit page and `offsetctl audit -o json` show both users\' actions; the client secret is nowhere', { timeout: 120_000 }, async () => {
  // One change from the CLI too: its entry names the OS user.
  const cli = await runCli(['reset', billing.name, '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(cli.status, 0, cli.stderr);

  const page = await alice.newPage();
  await page.goto(`${ui.base}/audit`);
  const rows = await page.$$eval('#audit-table tbody tr', (trs) => trs.map((tr) => [tr.getAttribute('data-user'), tr.getAttribute('data-action'), tr.getAttribute('data-outcome')].join(' ')));
  for (const expected of ['bob@example.com apply refused', 'bob@example.com reset refused', 'alice@example.com rewind started', 'alice@example.com rewind succeeded', 'alice@example.com reset refused']) {
    assert.ok(rows.includes(expected), `${expected} in ${rows.join('; ')}`);
  }
  assert.ok(rows.some((r) => r.endsWith('reset succeeded') && !r.startsWith('alice') && !r.startsWith('bob')), `the CLI's reset: ${rows.join('; ')}`);
  await page.click('#audit-table tbody tr[data-user="alice@example.com"][data-outcome=started] summary');
  await page.screenshot({ path: join(screenshotDir, 'audit.png'), fullPage: true });
  const pageHtml = await page.content();
  await page.close();

  const out = await runCli(['audit', '--state-dir', stateDir, '-o', 'json']);
  assert.equal(out.status, 0, out.stderr);
  const entries = out.stdout.trim().split('\n').map((l) => JSON.parse(l) as { at: string; action: string; outcome: string; connector?: string; actor: { user: string; via: string; issuer?: string; groups?: string[]; osUser?: string }; diff?: Array<{ change: string; from?: unknown; to?: unknown }>; runId?: string; snapshotId?: string });
  assert.deepEqual(entries.map((e) => e.at), [...entries.map((e) => e.at)].sort(), 'JSON lines, oldest first');
  const started = entries.find((e) => e.actor.user === 'alice@example.com' && e.action === 'rewind' && e.outcome === 'started');
  assert.equal(started?.connector, orders.name);
  assert.equal(started?.actor.via, 'oidc');
  assert.equal(started?.actor.issuer?.replace(/\/$/, ''), provider.issuer);
  assert.deepEqual(started?.actor.groups, ['team-orders']);
  assert.equal(started?.diff?.[0]?.change, 'changed');
  assert.deepEqual(started?.diff?.[0]?.to, { position: 0 });
  const done = entries.find((e) => e.actor.user === 'alice@example.com' && e.action === 'rewind' && e.outcome === 'succeeded');
  assert.equal(done?.runId, started?.runId);
  assert.match(done?.snapshotId ?? '', /^snap-/);
  const forged = entries.find((e) => e.actor.user === 'bob@example.com' && e.action === 'apply');
  assert.deepEqual([forged?.outcome, forged?.connector], ['refused', orders.name]);
  assert.ok(entries.some((e) => e.actor.user === 'bob@example.com' && e.action === 'sign-in' && e.outcome === 'done'));
  assert.ok(entries.some((e) => e.actor.user === 'alice@example.com' && e.action === 'sign-out'));
  const fromCli = entries.find((e) => e.actor.via === 'cli' && e.action === 'reset' && e.outcome === 'succeeded');
  assert.equal(fromCli?.connector, billing.name);
  assert.ok(fromCli?.actor.osUser, 'the OS user');
  assert.deepEqual((await runCli(['audit', '--state-dir', stateDir, '--connector', billing.name, '--since', '1h', '-o', 'json'])).stdout.trim().split('\n').map((l) => (JSON.parse(l) as { connector: string }).connector).filter((c) => c !== billing.name), []);

  const secret = provider.clientSecret;
  const forms = [secret, Buffer.from(secret).toString('base64'), encodeURIComponent(secret), Buffer.from(`${provider.clientId}:${secret}`).toString('base64')];
  const stored = readdirSync(stateDir, { withFileTypes: true, recursive: true }).filter((f) => f.isFile())
    .map((f) => readFileSync(join(f.parentPath ?? f.path, f.name)).toString('latin1')).join('\n');
  for (const [where, textOf] of [['the audit page', pageHtml], ['offsetctl audit', out.stdout], ['the console\'s output', ui.output()], ['the state folder', stored]] as const) {
    for (const form of forms) assert.ok(!textOf.includes(form), `the client secret (${form === secret ? 'plain' : 'encoded'}) in ${where}`);
  }
});

test('where a context requires approval, alice\'s change becomes a request; her own approval is refused, bob approves it in the console, alice applies it', { timeout: 180_000 }, async () => {
  const alicePage = await alice.newPage();
  const bobPage = await bob.newPage();
  await alicePage.goto(`${ui.base}/connectors`);
  assert.equal(await forge(alicePage, '/context', { context: 'reviewed' }), 200);
  await bobPage.goto(`${ui.base}/connectors`);
  assert.equal(await forge(bobPage, '/context', { context: 'reviewed' }), 200);
  const runsBefore = (await runsOf(orders.name)).length;
  const before = await cluster.offsets(orders.name);

  // alice previews and confirms a rewind, as anywhere else: here it is recorded as a request.
  await alicePage.goto(`${ui.base}/connectors/${encodeURIComponent(orders.name)}/change`);
  await alicePage.fill('textarea[name=offsets]', JSON.stringify({ offsets: [{ partition: { filename: orders.file }, offset: { position: 1 } }] }));
  await alicePage.click('form:has(textarea[name=offsets]) button[type=submit]');
  assert.match(await alicePage.textContent('#approval-note') ?? '', /requires approval: confirming records a change request/);
  await alicePage.fill('input[name=confirm]', orders.name);
  await alicePage.click('form[action*="/plans/"] button[type=submit]');
  await alicePage.waitForURL(/\/changes\/chg-/);
  const id = /\/changes\/(chg-[^/?#]+)/.exec(alicePage.url())![1]!;
  assert.equal(await alicePage.textContent('#request-status'), 'pending');
  assert.equal(await alicePage.locator('#approve').count(), 0, 'no approve button for the requester');
  assert.match(await alicePage.textContent('#review-note') ?? '', /someone else must approve/);
  // Her forged approval is refused on the server (the signed-in identity is the requester's).
  assert.equal(await forge(alicePage, `/changes/${id}/approve`, {}), 400);
  assert.equal(await forge(alicePage, `/changes/${id}/apply`, {}), 400, 'not approved: not applied');
  assert.equal((await runsOf(orders.name)).length, runsBefore, 'no run');
  assert.deepEqual(await cluster.offsets(orders.name), before, 'offsets unchanged');

  // bob finds it in the list, reads the diff, approves it.
  await bobPage.goto(`${ui.base}/changes`);
  await bobPage.click(`a:has-text("${id}")`);
  assert.match(await bobPage.textContent('table.diff') ?? '', /\{"position":1\}/);
  assert.equal(await bobPage.locator('#apply').count(), 0, 'not approved yet: nothing to apply');
  await bobPage.click('#approve');
  await bobPage.waitForFunction(() => document.querySelector('#request-status')?.textContent === 'approved');
  assert.match(await bobPage.textContent('ol.history') ?? '', /approved by bob@example\.com/);
  await bobPage.screenshot({ path: join(screenshotDir, 'change-request.png'), fullPage: true });

  // alice applies it: the job runs the very plan that was approved.
  await alicePage.goto(`${ui.base}/changes/${id}`);
  await alicePage.click('#apply');
  await alicePage.waitForSelector('[data-status]', { timeout: 90_000 });
  await alicePage.waitForFunction(() => /succeeded|failed|refused/.test(document.querySelector('[data-status]')?.getAttribute('data-status') ?? ''), undefined, { timeout: 90_000 });
  assert.equal(await alicePage.getAttribute('[data-status]', 'data-status'), 'succeeded', await alicePage.textContent('main') ?? '');
  const runs = await runsOf(orders.name);
  assert.equal(runs.length, runsBefore + 1);
  await alicePage.goto(`${ui.base}/changes/${id}`);
  await alicePage.waitForFunction(() => document.querySelector('#request-status')?.textContent === 'applied');

  const out = await runCli(['audit', '--state-dir', stateDir, '--connector', orders.name, '-o', 'json']);
  assert.equal(out.status, 0, out.stderr);
  const steps = out.stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; outcome: string; context?: string; actor: { user: string; via: string } })
    .filter((e) => e.action === 'change-request');
  assert.deepEqual(steps.map((e) => [e.outcome, e.actor.user, e.actor.via, e.context]), [
    ['requested', 'alice@example.com', 'oidc', 'reviewed'], ['refused', 'alice@example.com', 'oidc', 'reviewed'], ['refused', 'alice@example.com', 'oidc', 'reviewed'],
    ['approved', 'bob@example.com', 'oidc', 'reviewed'], ['started', 'alice@example.com', 'oidc', 'reviewed'], ['succeeded', 'alice@example.com', 'oidc', 'reviewed'],
  ]);
  await alicePage.close();
  await bobPage.close();
});

test('a batch request made with the CLI is approved by bob and applied by alice in the console as one batch: a row per connector, a run each', { timeout: 180_000 }, async () => {
  const first = await cluster.createSource(3, { name: uniqueName('orders') });
  const second = await cluster.createSource(3, { name: uniqueName('orders') });
  // The CLI's context of the same name as the console's, requiring approval, on the console's store.
  const env = { OFFSETCTL_CONFIG: join(dir, 'cli-config.yaml'), OFFSETCTL_STATE_DIR: stateDir, OFFSETCTL_URL: undefined, OFFSETCTL_STORE: undefined };
  const made = await runCli(['config', 'set-context', 'reviewed', '--url', cluster.url, '--require-approval'], { env });
  assert.equal(made.status, 0, made.stderr);
  const asked = await runCli(['reset', '--selector', `^(${first.name}|${second.name})$`, '--context', 'reviewed', '--yes', '-o', 'json'], { env });
  assert.equal(asked.status, 0, asked.stderr);
  const { request } = JSON.parse(asked.stdout) as { request: { id: string; status: string } };
  assert.equal(request.status, 'pending');
  const runsBefore = { [first.name]: (await runsOf(first.name)).length, [second.name]: (await runsOf(second.name)).length };

  const bobPage = await bob.newPage();
  await bobPage.goto(`${ui.base}/changes/${request.id}`);
  assert.equal(await bobPage.locator('section.request-plan').count(), 2, 'the diff of both connectors');
  await bobPage.click('#approve');
  await bobPage.waitForFunction(() => document.querySelector('#request-status')?.textContent === 'approved');

  const alicePage = await alice.newPage();
  await alicePage.goto(`${ui.base}/changes/${request.id}`);
  await alicePage.click('#apply');
  await alicePage.waitForURL(/\/jobs\/job-/);
  await alicePage.waitForFunction(() => /succeeded|failed|refused|unchanged/.test(document.querySelector('.outcome[data-status]')?.getAttribute('data-status') ?? ''), undefined, { timeout: 120_000 });
  const main = await alicePage.textContent('main') ?? '';
  assert.equal(await alicePage.getAttribute('.outcome[data-status]', 'data-status'), 'succeeded', main);
  assert.match(main, /reset of 2 connectors/);
  assert.match(main, /2 of 2 connector\(s\) succeeded \(batch batch-/);
  const rows = await alicePage.locator('table.batch-rows tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-connector'), tr.getAttribute('data-status'), tr.querySelector('a.run-id')?.textContent ?? '']));
  assert.deepEqual(rows.map(([name, status]) => [name, status]), [[first.name, 'succeeded'], [second.name, 'succeeded']]);
  // Each connector's line of steps was shown as it ran.
  for (const name of [first.name, second.name]) assert.match(main, new RegExp(`${name}: stopConnector started`));

  for (const [name, , runId] of rows) {
    const runs = await runsOf(name!);
    assert.equal(runs.length, runsBefore[name!]! + 1, name!);
    assert.deepEqual([runs[0]?.id, runs[0]?.operation, runs[0]?.status, runs[0]?.actor.user], [runId, 'reset', 'succeeded', 'alice@example.com'], name!);
  }
  const shown = await runCli(['changes', 'show', request.id, '-o', 'json'], { env });
  const history = JSON.parse(shown.stdout) as { status: string; history: Array<{ action: string; runIds?: string[]; batchId?: string }> };
  assert.equal(history.status, 'applied');
  assert.deepEqual(history.history.map((h) => h.action), ['requested', 'approved', 'applying', 'applied']);
  assert.deepEqual([...history.history.at(-1)!.runIds ?? []].sort(), rows.map((r) => r[2]).sort());

  // bob, a viewer of both connectors, may watch the job too.
  assert.equal((await bobPage.goto(alicePage.url()))?.status(), 200);
  await alicePage.close();
  await bobPage.close();
});

test('a copy request made with the CLI is approved by bob and applied by alice in the console through the ops door: the copy has the offsets, ' +
  'the request is applied, the audit names alice', { timeout: 180_000 }, async () => {
  const original = await cluster.createSource(3, { name: uniqueName('orders') });
  const copyName = `${original.name}-copy`;
  const env = { OFFSETCTL_CONFIG: join(dir, 'cli-config.yaml'), OFFSETCTL_STATE_DIR: stateDir, OFFSETCTL_URL: undefined, OFFSETCTL_STORE: undefined };
  const made = await runCli(['config', 'set-context', 'reviewed', '--url', cluster.url, '--require-approval'], { env });
  assert.equal(made.status, 0, made.stderr);
  const offsets = sortedOffsets(await cluster.offsets(original.name));
  const asked = await runCli(['copy', original.name, '--as', copyName, '--context', 'reviewed', '--yes', '-o', 'json'], { env });
  assert.equal(asked.status, 0, asked.stderr);
  const { request } = JSON.parse(asked.stdout) as { request: { id: string; status: string; operation: string } };
  assert.deepEqual([request.status, request.operation], ['pending', 'copy']);

  const alicePage = await alice.newPage();
  const bobPage = await bob.newPage();
  // Signed in by the earlier tests when the whole file runs; alone, this test signs them in.
  for (const [page, login] of [[alicePage, 'alice'], [bobPage, 'bob']] as const) {
    if ((await page.goto(`${ui.base}/connectors`))?.status() === 403) await signIn(page, login);
  }
  await alicePage.goto(`${ui.base}/ctx/reviewed/changes/${request.id}`);
  assert.equal(await forge(alicePage, `/changes/${request.id}/apply`, {}), 400, 'not approved: not applied');
  await bobPage.goto(`${ui.base}/ctx/reviewed/changes/${request.id}`);
  // What he approves is shown: the copy, its clusters and name (a move request has no offsets diff).
  assert.match(await bobPage.textContent('#request-move') ?? '', new RegExp(`^copy of ${original.name} \\(source, .*\\) from .* as ${copyName}: 1 partition\\(s\\) when requested`));
  await bobPage.click('#approve');
  await bobPage.waitForFunction(() => document.querySelector('#request-status')?.textContent === 'approved');

  await alicePage.goto(`${ui.base}/ctx/reviewed/changes/${request.id}`);
  await alicePage.click('#apply');
  await alicePage.waitForURL(/\/jobs\/job-/);
  await alicePage.waitForFunction(() => /succeeded|failed|refused|unchanged/.test(document.querySelector('.outcome[data-status]')?.getAttribute('data-status') ?? ''), undefined, { timeout: 120_000 });
  const main = await alicePage.textContent('main') ?? '';
  assert.equal(await alicePage.getAttribute('.outcome[data-status]', 'data-status'), 'succeeded', main);
  assert.match(main, new RegExp(`copy of ${original.name} as ${copyName}`));
  await waitFor('the copy', async () => (await cluster.request('GET', `/connectors/${copyName}`)).status === 200, 30_000);
  assert.deepEqual(sortedOffsets(await cluster.offsets(copyName)), offsets, 'the copy starts from the original\'s offsets');
  const shown = await runCli(['changes', 'show', request.id, '-o', 'json'], { env });
  const history = JSON.parse(shown.stdout) as { status: string; history: Array<{ action: string; actor: { user: string }; runIds?: string[] }> };
  assert.equal(history.status, 'applied');
  assert.deepEqual(history.history.map((h) => [h.action, h.actor.user]).slice(1), [['approved', 'bob@example.com'], ['applying', 'alice@example.com'], ['applied', 'alice@example.com']]);
  const audit = await runCli(['audit', '--connector', original.name, '--state-dir', stateDir, '-o', 'json']);
  const entries = audit.stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; outcome: string; message?: string; actor: { user: string } });
  const copies = entries.filter((e) => e.action === 'copy').map((e) => [e.outcome, e.actor.user]);
  assert.deepEqual(copies, [['started', 'alice@example.com'], ['succeeded', 'alice@example.com']]);
  assert.match(entries.find((e) => e.action === 'copy' && e.outcome === 'started')?.message ?? '', new RegExp(`change request ${request.id}`), 'through the door as the request');
  await cluster.request('DELETE', `/connectors/${copyName}`).catch(() => undefined);
  await alicePage.close();
  await bobPage.close();
});

test('the console refuses to apply an approved copy whose new name the user may not operate on: 403, audited, nothing created', { timeout: 180_000 }, async () => {
  const original = await cluster.createSource(3, { name: uniqueName('orders') });
  // alice operates on ^orders- only: a copy named billing-… is not hers to create, though the request is of an orders- connector.
  const copyName = uniqueName('billing');
  const env = { OFFSETCTL_CONFIG: join(dir, 'cli-config.yaml'), OFFSETCTL_STATE_DIR: stateDir, OFFSETCTL_URL: undefined, OFFSETCTL_STORE: undefined };
  assert.equal((await runCli(['config', 'set-context', 'reviewed', '--url', cluster.url, '--require-approval'], { env })).status, 0);
  const asked = await runCli(['copy', original.name, '--as', copyName, '--context', 'reviewed', '--yes', '-o', 'json'], { env });
  assert.equal(asked.status, 0, asked.stderr);
  const { request } = JSON.parse(asked.stdout) as { request: { id: string } };
  const alicePage = await alice.newPage();
  const bobPage = await bob.newPage();
  for (const [page, login] of [[alicePage, 'alice'], [bobPage, 'bob']] as const) {
    if ((await page.goto(`${ui.base}/connectors`))?.status() === 403) await signIn(page, login);
  }
  await bobPage.goto(`${ui.base}/ctx/reviewed/changes/${request.id}`);
  await bobPage.click('#approve');
  await bobPage.waitForFunction(() => document.querySelector('#request-status')?.textContent === 'approved');
  await alicePage.goto(`${ui.base}/ctx/reviewed/changes/${request.id}`);
  assert.equal(await forge(alicePage, `/changes/${request.id}/apply`, {}), 403);
  assert.equal((await cluster.request('GET', `/connectors/${copyName}`)).status, 404, 'nothing created');
  const shown = JSON.parse((await runCli(['changes', 'show', request.id, '-o', 'json'], { env })).stdout) as { status: string };
  assert.equal(shown.status, 'approved', 'still approved: not applying, not applied');
  const audit = await runCli(['audit', '--state-dir', stateDir, '-o', 'json']);
  const refused = audit.stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; outcome: string; connector?: string; actor: { user: string } })
    .filter((e) => e.outcome === 'refused' && e.connector === copyName);
  assert.deepEqual(refused.map((e) => e.actor.user), ['alice@example.com']);
  await alicePage.close();
  await bobPage.close();
});

/** A GET from a chosen local address (node:http binds the client socket to it). */
function getFrom(localAddress: string, url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('behind a proxy: the identity header is believed from the proxy\'s address only, never from 127.0.0.2', { timeout: 60_000 }, async () => {
  const proxyDir = tempDir('ui-team-proxy');
  writeFileSync(join(proxyDir, 'console.yaml'), `listen: 127.0.0.1:0
state-dir: ${stateDir}
contexts:
  sandbox:
    url: ${cluster.url}
${PROXY_SIGN_IN}roles:
  - group: platform
    role: admin
`);
  const proxied = await startService(['--config', join(proxyDir, 'console.yaml')]);
  try {
    const headers = { 'X-Forwarded-Email': 'mallory@example.com', 'X-Forwarded-Groups': 'platform' };
    const spoofed = await getFrom('127.0.0.2', `${proxied.base}/audit`, headers);
    assert.equal(spoofed.status, 403);
    assert.match(spoofed.body, /through its sign-in proxy only/);
    assert.doesNotMatch(spoofed.body, /mallory/);
    const viaProxy = await getFrom('127.0.0.1', `${proxied.base}/ctx/sandbox/audit`, headers);
    assert.equal(viaProxy.status, 200);
    assert.match(viaProxy.body, /mallory@example\.com/);
    await waitFor('the refusal logged', async () => /refused a request from 127\.0\.0\.2/.test(proxied.output()), 10_000);
  } finally {
    await proxied.stop();
  }
  // The spoofed request signed nobody in: the one sign-in of mallory is the proxied one.
  const out = await runCli(['audit', '--state-dir', stateDir, '-o', 'json']);
  const signIns = out.stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; actor: { user: string; via: string } }).filter((e) => e.actor.user === 'mallory@example.com');
  assert.deepEqual(signIns.map((e) => [e.action, e.actor.via]), [['sign-in', 'proxy']]);
});
