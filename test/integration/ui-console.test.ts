// The web console end to end, in a real browser against the sandbox: list connectors, open one,
// preview a rewind (the cluster does not change), apply it with the typed confirmation and watch
// the live steps finish, see the sink replay, roll back from the history page, and refuse a bad
// JSON paste and requests without the session or the CSRF token. Screenshots go to
// test-output/ui/.
// Real parts: the sandbox's Kafka broker and Connect cluster, Chromium, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { waitForLines, waitForSinkCommitted } from '../../src/sandbox/index.js';
import { numberedLines, sandboxRest, startPipeline, tempDir, type ConnectRest, type FilePipeline } from '../support/connect.js';
import { runCli } from '../support/cli.js';
import { launchBrowser, screenshotDir, startUi, type RunningUi } from '../web/browser.js';

let rest: ConnectRest;
let pipeline: FilePipeline;
let ui: RunningUi;
let browser: BrowserContext;
let page: Page;
let stateDir: string;
const pageErrors: string[] = [];
const lines = numberedLines('ui', 5);

before(async () => {
  rest = await sandboxRest();
  pipeline = await startPipeline(rest, 'ui', lines);
  await waitForLines(pipeline.outputFile, 5);
  await waitForSinkCommitted(rest, pipeline, 5);
  stateDir = tempDir('ui-state');
  // No config file and no OFFSETCTL_BOOTSTRAP: the console has no Kafka access (checked below).
  ui = await startUi(['--url', rest.baseUrl, '--state-dir', stateDir], { OFFSETCTL_CONFIG: join(stateDir, 'no-config.yaml'), OFFSETCTL_BOOTSTRAP: '' });
  browser = await launchBrowser();
  page = browser.pages()[0] ?? (await browser.newPage());
  // A CSP violation or a script error shows up here (e.g. htmx trying an inline style or eval).
  // (Refusals answer 400 on purpose: failed loads are not counted.)
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text()); });
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

after(async () => {
  await browser?.close();
  await ui?.stop();
  await pipeline?.remove();
});

const shot = (name: string): Promise<Buffer> => page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });

async function sinkOffset(): Promise<unknown> {
  const { offsets } = await rest.offsets(pipeline.sink);
  return offsets.find((o) => o.partition['kafka_topic'] === pipeline.topic)?.offset?.['kafka_offset'];
}

/** Every visible form control has a label (for/aria-label): keyboard and screen-reader users can tell them apart. */
async function unlabelledControls(): Promise<string[]> {
  return page.$$eval('input:not([type=hidden]), select, textarea', (els) =>
    els.filter((e) => (e as HTMLInputElement).labels?.length === 0 && !e.getAttribute('aria-label')).map((e) => e.outerHTML.slice(0, 80)));
}

test('requests without the session, with a spent login token or without the CSRF token are refused with 403', async () => {
  const anonymous = await fetch(`${ui.base}/connectors`);
  assert.equal(anonymous.status, 403);
  assert.equal((await fetch(`${ui.base}/login?token=not-the-token`)).status, 403);
  const assets = await fetch(`${ui.base}/assets/app.js`);
  assert.equal(assets.status, 403, 'assets need the session too');

  const login = await page.goto(ui.loginUrl);
  assert.equal(login?.status(), 200);
  assert.match(new URL(page.url()).pathname, /^\/ctx\/[^/]+\/connectors$/, 'login redirects to the connectors page of the starting context');
  assert.ok(!page.url().includes('token'), `the token must leave the address bar: ${page.url()}`);
  const [cookie] = await browser.cookies(ui.base);
  assert.equal(cookie?.httpOnly, true);
  assert.equal(cookie?.sameSite, 'Strict');
  assert.match(login?.headers()['content-security-policy'] ?? '', /script-src 'self'/);

  // The token works once.
  assert.equal((await fetch(ui.loginUrl, { redirect: 'manual' })).status, 403);
  // With the session but without the CSRF token, a POST is refused and nothing happens.
  const session = `${cookie!.name}=${cookie!.value}`;
  const noCsrf = await fetch(`${ui.base}/connectors/${encodeURIComponent(pipeline.sink)}/preview`, {
    method: 'POST', headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' }, body: 'mode=reset',
  });
  assert.equal(noCsrf.status, 403);
  const wrongCsrf = await fetch(`${ui.base}/context`, {
    method: 'POST', headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' }, body: 'context=&csrf=guess',
  });
  assert.equal(wrongCsrf.status, 403);
  assert.equal((await fetch(`${ui.base}/connectors`, { method: 'DELETE', headers: { cookie: session } })).status, 405);
});

test('the connectors page lists the pipeline, filters it, refreshes itself, and is keyboard-reachable', { timeout: 60_000 }, async () => {
  await page.goto(`${ui.base}/connectors`);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
  const prefix = pipeline.source.replace(/-source$/, '');
  await page.fill('#filter', prefix);
  // htmx swaps the table in without a reload.
  await page.waitForFunction((p) => {
    const rows = Array.from(document.querySelectorAll('#connectors-table tbody tr'));
    return rows.length === 2 && rows.every((r) => r.textContent?.includes(p));
  }, prefix, { timeout: 15_000 });
  const rows = await page.$$eval('#connectors-table tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent?.trim())));
  assert.deepEqual(rows.map((r) => [r[0], r[1], r[2]]).sort(), [[pipeline.sink, 'sink', 'RUNNING'], [pipeline.source, 'source', 'RUNNING']]);
  assert.deepEqual(await unlabelledControls(), []);

  // Auto-refresh: a state change on the cluster appears without a reload.
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
  assert.equal((await rest.request('PUT', `/connectors/${encodeURIComponent(pipeline.source)}/pause`)).status, 202);
  try {
    await page.waitForFunction((name) => Array.from(document.querySelectorAll('#connectors-table tbody tr'))
      .some((tr) => tr.textContent?.includes(name) && tr.textContent.includes('PAUSED')), pipeline.source, { timeout: 20_000 });
    assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true);
  } finally {
    await rest.resume(pipeline.source);
    await rest.waitForRunning(pipeline.source);
  }
  await page.waitForFunction((name) => Array.from(document.querySelectorAll('#connectors-table tbody tr'))
    .every((tr) => !tr.textContent?.includes(name) || tr.textContent.includes('RUNNING')), pipeline.source, { timeout: 20_000 });
  await shot('01-connectors');
  await page.setViewportSize({ width: 420, height: 900 });
  await shot('01-connectors-narrow');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow} px at 420 px`);
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.deepEqual(pageErrors, [], 'no script error or CSP violation in the browser');
});

test('the connector page shows state, tasks, config and offsets', async () => {
  await page.goto(`${ui.base}/connectors`);
  await page.fill('#filter', pipeline.sink);
  await page.click(`a:text-is("${pipeline.sink}")`);
  await page.waitForURL(/\/connectors\/[^/]+$/);
  assert.equal(await page.textContent('h1'), `Connector ${pipeline.sink}`);
  const offsets = await page.$$eval('table.offsets tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)));
  assert.deepEqual(offsets, [[pipeline.topic, '0', '5']]);
  const config = await page.textContent('table.config');
  assert.match(config ?? '', /FileStreamSinkConnector/);
  // Started with --url alone: no Kafka access, said in one line (not an error).
  assert.match(await page.textContent('#log-note') ?? '', /Log start, log end and lag are not shown: no Kafka bootstrap servers are configured/);
  assert.equal(await page.locator('[role=alert]').count(), 0);
  await shot('02-connector');
});

test('a bad JSON paste shows the CLI\'s error and changes nothing', async () => {
  await page.goto(`${ui.base}/connectors/${encodeURIComponent(pipeline.sink)}/change`);
  assert.deepEqual(await unlabelledControls(), []);
  await page.fill('#offsets-json', '{"offsets": [\n  {"partition": }');
  await page.click('form:has(#offsets-json) button[type=submit]');
  const error = await page.textContent('[role=alert]');
  assert.match(error ?? '', /pasted offsets:2:\d+: not valid JSON/);
  assert.match(error ?? '', /Refused, nothing was changed/);
  assert.equal(await page.inputValue('#offsets-json'), '{"offsets": [\n  {"partition": }', 'the paste is kept for fixing');
  await shot('03-bad-json');
  assert.equal(await sinkOffset(), 5);
  assert.equal((await rest.status(pipeline.sink)).connector.state, 'RUNNING');
  await page.goto(`${ui.base}/runs`);
  assert.match(await page.textContent('main') ?? '', /No runs yet/);
});

test('editing in the table previews the same diff; a bad value is refused naming the field', async () => {
  await page.goto(`${ui.base}/connectors/${encodeURIComponent(pipeline.sink)}/change`);
  assert.equal(await page.inputValue('#row-0'), '5');
  await page.fill('#row-0', 'abc');
  await page.click('form:has(#row-0) button[type=submit]');
  assert.match(await page.textContent('[role=alert]') ?? '', /offsets\[0\]\.offset\.kafka_offset/);
  await page.fill('#row-0', '2');
  await page.click('form:has(#row-0) button[type=submit]');
  assert.equal(await page.textContent('#diff-summary'), '1 changed, 0 added, 0 removed, 0 unchanged.');
  assert.match(await page.textContent('table.diff tbody') ?? '', /\{"kafka_offset":5\}\{"kafka_offset":2\}/);
  assert.equal(await sinkOffset(), 5, 'preview must not change the offsets');
});

test('preview shows the diff and leaves the cluster alone; apply needs the typed name, streams the steps, and the sink replays', { timeout: 180_000 }, async () => {
  await page.goto(`${ui.base}/connectors/${encodeURIComponent(pipeline.sink)}/change`);
  const target = { offsets: [{ partition: { kafka_topic: pipeline.topic, kafka_partition: 0 }, offset: { kafka_offset: 0 } }] };
  await page.fill('#offsets-json', JSON.stringify(target, null, 2));
  await page.click('form:has(#offsets-json) button[type=submit]');
  assert.equal(await page.textContent('#diff-summary'), '1 changed, 0 added, 0 removed, 0 unchanged.');
  const row = await page.$$eval('table.diff tbody tr', (trs) => trs.map((tr) => [tr.className, ...Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)]));
  assert.deepEqual(row, [['diff-changed', '~changed', `{"kafka_partition":0,"kafka_topic":"${pipeline.topic}"}`, '{"kafka_offset":5}', '{"kafka_offset":0}']]);
  assert.deepEqual(await unlabelledControls(), []);
  await shot('04-preview');
  assert.equal(await sinkOffset(), 5, 'preview must not change the offsets');
  assert.equal((await rest.status(pipeline.sink)).connector.state, 'RUNNING');

  await page.fill('#confirm', 'not-the-name');
  await page.click('form:has(#confirm) button[type=submit]');
  assert.match(await page.textContent('[role=alert]') ?? '', /not the connector's name/);
  assert.equal(await sinkOffset(), 5);

  let loads = 0;
  page.on('load', () => loads++);
  await page.fill('#confirm', pipeline.sink);
  await page.click('form:has(#confirm) button[type=submit]');
  await page.waitForURL(/\/jobs\/job-/);
  const jobUrl = page.url();
  await page.waitForSelector('.outcome[data-status]', { timeout: 150_000 });
  assert.equal(await page.getAttribute('.outcome', 'data-status'), 'succeeded', await page.textContent('.outcome') ?? '');
  assert.ok(loads >= 2, 'the live view reloads itself when the server-sent end event arrives');
  const steps = await page.$$eval('#job-events li.ok', (lis) => lis.map((li) => li.getAttribute('data-step')));
  for (const step of ['stopConnector', 'captureOffsets', 'rewindOffsets', 'verifyOffsets']) assert.ok(steps.includes(step), `step ${step} finished: ${steps.join(', ')}`);
  assert.match(await page.textContent('.outcome') ?? '', /connector RUNNING/);
  const snapshotId = await page.textContent('.snapshot-id');
  assert.match(snapshotId ?? '', /\S/);
  await shot('05-run-live');

  // The same events over Server-Sent Events, replayed for a late subscriber, end with `end`.
  const cookie = (await browser.cookies(ui.base))[0]!;
  const sse = await fetch(`${jobUrl}/events`, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
  assert.equal(sse.headers.get('content-type'), 'text/event-stream');
  const stream = await sse.text();
  assert.match(stream, /event: step\ndata: .*"stepId":"rewindOffsets".*"status":"passed"/);
  assert.match(stream, /event: end\ndata: {"status":"succeeded"}/);

  const replayed = await waitForLines(pipeline.outputFile, 10, 60_000);
  assert.deepEqual(replayed, [...lines, ...lines], 'the sink writes every record again');
});

test('roll back from the history page, guarded by the typed name', { timeout: 180_000 }, async () => {
  await waitForSinkCommitted(rest, pipeline, 5);
  await page.goto(`${ui.base}/runs`);
  await shot('06-runs');
  const runs = await page.$$eval('main table tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent?.trim())));
  assert.equal(runs.length, 1);
  assert.equal(runs[0]?.[2], 'rewind');
  assert.equal(runs[0]?.[3], 'succeeded');
  await page.click('a.rollback-link');
  await page.waitForURL(/\/snapshots\//);
  // The sink replayed up to 5 again, which is what the snapshot holds.
  assert.equal(await page.textContent('#diff-summary'), 'No change: the target equals the current offsets (1 partition).');
  await shot('07-snapshot');
  await page.fill('#confirm', pipeline.sink);
  await page.click('form:has(#confirm) button[type=submit]');
  await page.waitForSelector('.outcome[data-status]', { timeout: 150_000 });
  // The snapshot equals the current offsets (the diff said so): nothing to change, so nothing is
  // stopped, no snapshot is taken and no run is recorded (issue 14, point 7).
  assert.equal(await page.getAttribute('.outcome', 'data-status'), 'unchanged', await page.textContent('.outcome') ?? '');
  assert.match(await page.textContent('.outcome') ?? '', /nothing to change/);
  assert.equal(await sinkOffset(), 5, 'the snapshot held kafka_offset 5');

  await page.goto(`${ui.base}/runs`);
  const after = await page.$$eval('main table tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent?.trim())));
  assert.deepEqual(after.map((r) => [r[2], r[3]]), [['rewind', 'succeeded']]);
  await page.click(`main table tbody tr:first-child a[href*="/runs/"]`);
  assert.match(await page.textContent('main') ?? '', /step\.finished rewindOffsets/);
  await shot('08-run');
  await page.goto(`${ui.base}/snapshots`);
  assert.equal(await page.locator('main table tbody tr').count(), 1, 'only the rewind stored a snapshot');
  await shot('09-snapshots');
  assert.deepEqual(pageErrors, [], 'no script error or CSP violation in the browser');
});

test('an interrupted run (its CLI process killed) is resumed from the run page', { timeout: 180_000 }, async () => {
  // A partition the source does not read, so the pipeline's data is not disturbed.
  const other = { filename: join(tempDir('ui-other'), 'elsewhere.txt') };
  const file = join(tempDir('ui-target'), 'target.json');
  writeFileSync(file, JSON.stringify({ offsets: [{ partition: other, offset: { position: 7 } }] }));
  const killed = await runCli(['rewind', pipeline.source, '--offsets', file, '--yes', '--url', rest.baseUrl, '--state-dir', stateDir], {
    env: { OFFSETCTL_TEST_KILL_BEFORE_STEP: 'rewindOffsets' },
  });
  assert.notEqual(killed.status, 0, 'the test hook kills the CLI before its PATCH');
  assert.equal((await rest.status(pipeline.source)).connector.state, 'STOPPED');

  await page.goto(`${ui.base}/runs`);
  const first = await page.$$eval('main table tbody tr:first-child td', (tds) => tds.map((td) => td.textContent?.trim()));
  assert.equal(first[1], pipeline.source);
  assert.equal(first[3], 'interrupted');
  await page.click('main table tbody tr:first-child a[href*="/runs/"]');
  await page.click('button:text-is("Preview resume")');
  assert.match(await page.textContent('h1') ?? '', /Resume run/);
  await page.fill('#confirm', pipeline.source);
  await page.click('form:has(#confirm) button[type=submit]');
  await page.waitForSelector('.outcome[data-status]', { timeout: 150_000 });
  assert.equal(await page.getAttribute('.outcome', 'data-status'), 'succeeded', await page.textContent('.outcome') ?? '');
  await rest.waitForRunning(pipeline.source);
  const { offsets } = await rest.offsets(pipeline.source);
  assert.deepEqual(offsets.find((o) => o.partition['filename'] === other.filename)?.offset, { position: 7 });
});

test('reset from the change page: every offset removed (− in the diff), and the source reads its file again', { timeout: 180_000 }, async () => {
  const before = (await rest.offsets(pipeline.source)).offsets.length;
  await page.goto(`${ui.base}/connectors/${encodeURIComponent(pipeline.source)}/change`);
  // A FileStreamSource is offered the one position offsetctl can compute for it: earliest (byte 0).
  assert.deepEqual(await page.$$eval('input[name=position]', (inputs) => inputs.map((i) => (i as HTMLInputElement).value)), ['earliest', 'latest']);
  await page.click('button:text-is("Preview reset")');
  assert.equal(await page.textContent('#diff-summary'), `0 changed, 0 added, ${before} removed, 0 unchanged.`);
  const marks = await page.$$eval('table.diff tbody td.mark span[aria-hidden]', (spans) => spans.map((s) => s.textContent));
  assert.deepEqual(marks, Array(before).fill('−'));
  await page.setViewportSize({ width: 420, height: 900 });
  await shot('10-reset-preview-narrow');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.fill('#confirm', pipeline.source);
  await page.click('form:has(#confirm) button[type=submit]');
  await page.waitForSelector('.outcome[data-status]', { timeout: 150_000 });
  assert.equal(await page.getAttribute('.outcome', 'data-status'), 'succeeded', await page.textContent('.outcome') ?? '');
  // The source starts its file over: the sink receives the five lines a third time.
  const all = await waitForLines(pipeline.outputFile, 15, 60_000);
  assert.deepEqual(all.slice(10), lines);
});
