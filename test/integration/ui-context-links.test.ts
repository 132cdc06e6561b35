// The console's context lives in the address, end to end: `offsetctl ui --config console.yaml`
// with two contexts on the sandbox (alpha and beta: the two workers of this lane's Connect cluster),
// people signed in by a sign-in proxy's headers (Chromium sends them, from 127.0.0.1, the trusted
// proxy). alice rewinds a connector in alpha; bob, whose last choice is beta, opens the links she
// copied and sees them in alpha; the switcher keeps the page; an old context-less address follows
// the last choice; an unknown context is a 404 naming the known ones; alice's job under beta's
// address is refused and shows nothing of it.
// Real parts: the sandbox's Kafka broker and Connect cluster, Chromium.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { connectFixture, tempDir, uniqueName, type ConnectFixture } from '../support/connect.js';
import { launchChromium, startService, type RunningUi } from '../web/browser.js';
import { PROXY_SIGN_IN } from '../support/console-yaml.js';

let alpha: ConnectFixture;
let beta: ConnectFixture;
let ui: RunningUi;
let browser: Browser;
let alice: BrowserContext;
let bob: BrowserContext;
let source: { name: string; file: string };

before(async () => {
  alpha = await connectFixture(0);
  beta = await connectFixture(1);
  source = await alpha.createSource(5, { name: uniqueName('ctx-links') });
  const dir = tempDir('ui-context-links');
  writeFileSync(join(dir, 'console.yaml'), `# two contexts, one console (written by ui-context-links.test.ts)
listen: 127.0.0.1:0
state-dir: ${join(dir, 'state')}
contexts:
  alpha:
    url: ${alpha.url}
  beta:
    url: ${beta.url}
${PROXY_SIGN_IN}roles:
  - group: platform
    role: operator
`);
  ui = await startService(['--config', join(dir, 'console.yaml')]);
  browser = await launchChromium();
  const as = (user: string) => browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-Email': user, 'X-Forwarded-Groups': 'platform' } });
  alice = await as('alice@example.com');
  bob = await as('bob@example.com');
});

after(async () => {
  await browser?.close();
  await ui?.stop();
  await alpha?.cleanup();
});

/** The context the switcher shows as chosen (its name: the label starts with it). */
async function chosen(page: Page): Promise<string> {
  return page.$eval('#context-select', (s) => (s as HTMLSelectElement).selectedOptions[0]?.textContent?.split(' ')[0] ?? '');
}

async function switchTo(page: Page, context: string): Promise<void> {
  await page.selectOption('#context-select', context);
  await Promise.all([page.waitForNavigation(), page.click('form.context button[type=submit]')]);
}

test('a link copied in context alpha opens in alpha for a colleague whose last choice is beta; the switcher keeps the page; old paths, unknown contexts, another context\'s job', { timeout: 180_000 }, async () => {
  const base = ui.base;
  const alicePage = await alice.newPage();
  await alicePage.goto(`${base}/connectors`);
  assert.equal(alicePage.url(), `${base}/ctx/alpha/connectors`, 'a new session starts in the default context');

  // alice rewinds her connector in alpha: the job's page is alpha's.
  await alicePage.goto(`${base}/ctx/alpha/connectors/${encodeURIComponent(source.name)}/change`);
  await alicePage.fill('textarea[name=offsets]', JSON.stringify({ offsets: [{ partition: { filename: source.file }, offset: { position: 1 } }] }));
  await alicePage.click('form:has(textarea[name=offsets]) button[type=submit]');
  assert.match(await alicePage.getAttribute('form[action*="/plans/"]', 'action') ?? '', /^\/ctx\/alpha\/plans\/plan-[^/]+\/apply$/, 'the apply form names its context');
  await alicePage.fill('input[name=confirm]', source.name);
  await alicePage.click('form[action*="/plans/"] button[type=submit]');
  await alicePage.waitForURL(/\/ctx\/alpha\/jobs\/job-[0-9a-f]+$/);
  const jobUrl = alicePage.url();
  const jobId = /jobs\/(job-[0-9a-f]+)$/.exec(jobUrl)![1]!;
  await alicePage.waitForFunction(() => /succeeded|failed|refused|unchanged/.test(document.querySelector('[data-status]')?.getAttribute('data-status') ?? ''), undefined, { timeout: 90_000 });
  assert.equal(await alicePage.getAttribute('[data-status]', 'data-status'), 'succeeded', await alicePage.textContent('main') ?? '');
  const connectorLink = `${base}${await alicePage.getAttribute('main a[href*="/connectors/"]', 'href')}`;
  assert.equal(connectorLink, `${base}/ctx/alpha/connectors/${encodeURIComponent(source.name)}`, 'the job page links to the connector in its context');

  // bob last chose beta.
  const bobPage = await bob.newPage();
  await bobPage.goto(`${base}/connectors`);
  await switchTo(bobPage, 'beta');
  assert.equal(bobPage.url(), `${base}/ctx/beta/connectors`);

  // alice's links open in alpha for him.
  const job = await bobPage.goto(jobUrl);
  assert.equal(job?.status(), 200);
  assert.equal(bobPage.url(), jobUrl);
  assert.equal(await chosen(bobPage), 'alpha', 'the switcher shows the address\'s context');
  assert.match(await bobPage.textContent('main h1') ?? '', new RegExp(`rewind of ${source.name}`));
  const navigation = await bobPage.$$eval('header nav a', (links) => links.map((a) => a.getAttribute('href')));
  assert.deepEqual(navigation, ['/ctx/alpha/connectors', '/ctx/alpha/runs', '/ctx/alpha/snapshots', '/ctx/alpha/changes', '/ctx/alpha/audit']);
  const connector = await bobPage.goto(connectorLink);
  assert.equal(connector?.status(), 200);
  assert.equal(await chosen(bobPage), 'alpha');

  // The switcher keeps the page: the same connector in beta.
  await switchTo(bobPage, 'beta');
  assert.equal(bobPage.url(), `${base}/ctx/beta/connectors/${encodeURIComponent(source.name)}`);
  assert.equal(await chosen(bobPage), 'beta');

  // alice's job under beta's address: refused, nothing of it shown.
  const wrong = await bobPage.goto(jobUrl.replace('/ctx/alpha/', '/ctx/beta/'));
  assert.equal(wrong?.status(), 404);
  const wrongText = await bobPage.textContent('main') ?? '';
  assert.match(wrongText, new RegExp(`no job ${jobId} in context beta`));
  assert.doesNotMatch(wrongText, new RegExp(source.name), 'nothing of the job');
  const events = await bobPage.request.get(`${base}/ctx/beta/jobs/${jobId}/events`);
  assert.equal(events.status(), 404);
  const jobs = await (await bobPage.request.get(`${base}/ctx/beta/jobs`)).text();
  assert.ok(!jobs.includes(jobId), 'beta\'s job list does not list alpha\'s job');
  assert.ok((await (await bobPage.request.get(`${base}/ctx/alpha/jobs`)).text()).includes(jobId), 'alpha\'s does');

  // An old address (a bookmark from before) follows each person's last choice.
  await bobPage.goto(`${base}/runs?connector=${encodeURIComponent(source.name)}`);
  assert.equal(bobPage.url(), `${base}/ctx/beta/runs?connector=${encodeURIComponent(source.name)}`);
  await alicePage.goto(`${base}/runs`);
  assert.equal(alicePage.url(), `${base}/ctx/alpha/runs`);

  // A context this console does not have.
  const unknown = await bobPage.goto(`${base}/ctx/gamma/connectors`);
  assert.equal(unknown?.status(), 404);
  assert.match(await bobPage.textContent('main') ?? '', /context "gamma" is not one of this console's: "alpha", "beta"/);
});
