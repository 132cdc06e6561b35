// Kafka positions in the web console, in a real browser against the sandbox's broker and workers:
// a sink's log start, log end and lag next to its offsets (read through the context's bootstrap),
// a rewind to the earliest position previewed as the same diff as `rewind --to-earliest --dry-run`
// and applied (the sink replays), a time position, a bad shift-by refused with the CLI's message,
// and a context whose broker does not answer (the page still renders). Screenshots go to
// test-output/ui/ with the others.
// Real parts: the sandbox's Kafka broker and Connect cluster, Chromium, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { Producer, stringSerializers } from '@platformatic/kafka';
import { runInProcess } from '../support/in-process.js';
import { connectFixture, tempDir, uniqueName, waitFor, type ConnectFixture } from '../support/connect.js';
import { MINUTE, createTimedTopic, deleteTopics, sandboxBootstrap } from '../support/positions-kafka.js';
import { launchBrowser, screenshotDir, startUi, type RunningUi } from '../web/browser.js';

let cluster: ConnectFixture;
let bootstrap: string;
let topic: string;
let sink: string;
let out: string;
let stateDir: string;
let env: Record<string, string>;
let ui: RunningUi;
let browser: BrowserContext;
let page: Page;
const pageErrors: string[] = [];
// Record i (value rec-i) is in partition i % 2 at offset floor(i / 2), written at base + i minutes.
const base = Math.floor(Date.now() / MINUTE) * MINUTE - 3 * 3_600_000;

const lines = (): string[] => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter(Boolean) : []);
// A FileStreamSink delivers at least once: a rebalance of its consumer before the first commit (a
// loaded machine) writes some records twice. The waits count the distinct records written from a
// line on, never an exact line count.
const distinctFrom = (from: number): number => new Set(lines().slice(from)).size;
const allRecords = (n: number): string[] => Array.from({ length: n }, (_v, i) => `rec-${i}`).sort();
const shot = (name: string): Promise<Buffer> => page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
const cells = (selector: string): Promise<string[][]> => page.$$eval(`${selector} tbody tr`, (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent?.trim() ?? '')));

async function committed(): Promise<string> {
  const o = await cluster.offsets(sink);
  return [0, 1].map((p) => String(o.offsets.find((e) => e.partition.kafka_partition === p)?.offset?.kafka_offset ?? '-')).join();
}

async function runCount(): Promise<number> {
  await page.goto(`${ui.base}/runs`);
  return page.locator('main table tbody tr').count();
}

interface DryRun {
  status: string;
  diff: { changed: number; added: number; removed: number; unchanged: number };
  positions: { plan: { rows: Array<{ partition: number; committed: number | null; target: number | null; logStart: number; logEnd: number; replay: number; skip: number }> } };
}

/** The CLI's dry run for the same position, through the same context: what the page must show. */
async function cliDryRun(position: string[]): Promise<DryRun> {
  const r = await runInProcess(['rewind', sink, '--context', 'sandbox', '--state-dir', stateDir, ...position, '--dry-run', '--output', 'json'], { env });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as DryRun;
}

before(async () => {
  cluster = await connectFixture();
  bootstrap = await sandboxBootstrap();
  stateDir = tempDir('ui-positions-');
  env = { OFFSETCTL_CONFIG: join(stateDir, 'config.yaml'), OFFSETCTL_BOOTSTRAP: '' };
  topic = uniqueName('ui-positions');
  sink = `${topic}-sink`;
  out = join(cluster.dir, `${sink}.out`);
  await createTimedTopic(bootstrap, topic, { partitions: 2, count: 20, baseMs: base });
  await cluster.createSink(topic, { name: sink, strings: true });
  await waitFor('the sink to write the 20 records', async () => distinctFrom(0) === 20).catch(async (err: Error) => {
    // Say what the sink did: its state and what it wrote (a bare time-out told nothing in CI).
    const status = await cluster.status(sink).catch((e: Error) => e.message);
    throw new Error(`${err.message}; ${lines().length} line(s) written, ${distinctFrom(0)} distinct; committed ${await committed().catch(() => '?')}; status ${JSON.stringify(status)}`);
  });
  await waitFor('the sink to commit 10 on both partitions', async () => (await committed()) === '10,10');
  // The same context the CLI would use (its bootstrap), and one whose broker does not answer.
  for (const [name, servers] of [['sandbox', bootstrap], ['nobroker', '127.0.0.1:1']] as const) {
    const r = await runInProcess(['config', 'set-context', name, '--url', cluster.url, '--bootstrap', servers], { env });
    assert.equal(r.status, 0, r.stderr);
  }
  ui = await startUi(['--context', 'sandbox', '--state-dir', stateDir], env);
  browser = await launchBrowser();
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text()); });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(ui.loginUrl);
});

after(async () => {
  await browser?.close();
  await ui?.stop();
  await cluster?.request('DELETE', `/connectors/${sink}`);
  await cluster?.cleanup();
  if (bootstrap && topic) await deleteTopics(bootstrap, [topic]);
});

test('a sink that consumed 10 records a partition, paused while 2 more arrive: log start 0, log end 12, lag 2', { timeout: 120_000 }, async () => {
  assert.equal((await cluster.request('PUT', `/connectors/${sink}/pause`)).status, 202);
  await waitFor('the sink and its task PAUSED', async () => {
    const s = await cluster.status(sink);
    return s.connector.state === 'PAUSED' && s.tasks.every((t) => t.state === 'PAUSED');
  });
  const producer = new Producer({ clientId: 'ui-positions-test', bootstrapBrokers: [bootstrap], serializers: stringSerializers });
  try {
    await producer.send({ messages: [20, 21, 22, 23].map((i) => ({ topic, partition: i % 2, value: `rec-${i}` })) });
  } finally {
    await producer.close();
  }
  await page.goto(`${ui.base}/connectors/${encodeURIComponent(sink)}`);
  const header = await page.$$eval('table.offsets thead th', (ths) => ths.map((th) => th.textContent));
  assert.deepEqual(header, ['Topic', 'Partition', 'Offset', 'Log start', 'Log end', 'Lag']);
  assert.deepEqual(await cells('table.offsets'), [[topic, '0', '10', '0', '12', '2'], [topic, '1', '10', '0', '12', '2']]);
  assert.match(await page.textContent('#log-note') ?? '', new RegExp(`read from Kafka at ${bootstrap.replace(/\./g, '\\.')}`));
  await shot('11-connector-log-positions');

  assert.equal((await cluster.request('PUT', `/connectors/${sink}/resume`)).status, 202);
  await cluster.waitRunning(sink);
  await waitFor('the sink to write the 4 new records', async () => distinctFrom(0) === 24);
  await waitFor('the sink to commit 12 on both partitions', async () => (await committed()) === '12,12');
  await page.reload();
  assert.deepEqual((await cells('table.offsets')).map((r) => r.slice(2)), [['12', '0', '12', '0'], ['12', '0', '12', '0']]);
});

test('rewind to earliest from the position form: the preview is the CLI\'s dry-run diff and changes nothing; apply replays every record', { timeout: 240_000 }, async () => {
  await page.goto(`${ui.base}/connectors/${encodeURIComponent(sink)}/change`);
  await page.check('#position-earliest');
  await page.click('form.position button[type=submit]');
  assert.match(await page.textContent('h1') ?? '', /Rewind .*: preview/);
  assert.equal(await page.textContent('#diff-summary'), '2 changed, 0 added, 0 removed, 0 unchanged.');
  const cli = await cliDryRun(['--to-earliest']);
  assert.equal(cli.status, 'dry-run');
  assert.deepEqual(cli.diff, { changed: 2, added: 0, removed: 0, unchanged: 0 }, 'the CLI\'s dry run counts the same diff');
  const diff = await cells('table.diff');
  assert.deepEqual(diff.map((r) => [r[1], r[2], r[3]]), cli.positions.plan.rows.map((r) => [
    JSON.stringify({ kafka_partition: r.partition, kafka_topic: topic }), JSON.stringify({ kafka_offset: r.committed }), JSON.stringify({ kafka_offset: r.target }),
  ]), 'the same offsets as rewind --to-earliest --dry-run');
  assert.deepEqual(diff.map((r) => r[3]), ['{"kafka_offset":0}', '{"kafka_offset":0}']);
  assert.equal(await page.textContent('#h-positions code'), '--to-earliest');
  const rows = await cells('table.position-plan');
  assert.deepEqual(rows.map((r) => r.slice(1, 8)), cli.positions.plan.rows.map((r) => [r.partition, r.committed, r.target, r.logStart, r.logEnd, r.replay, r.skip].map(String)));
  assert.deepEqual(rows.map((r) => r.slice(1, 8)), [['0', '12', '0', '0', '12', '12', '0'], ['1', '12', '0', '0', '12', '12', '0']]);
  assert.match(await page.textContent('#positions-summary') ?? '', /--to-earliest: 2 of 2 partition\(s\) to write, 24 record\(s\) to replay/);
  await shot('12-position-preview');
  assert.equal(await committed(), '12,12', 'preview must not change the offsets');
  assert.equal((await cluster.status(sink)).connector.state, 'RUNNING');

  const mark = lines().length;
  await page.fill('#confirm', sink);
  await page.click('form:has(#confirm) button[type=submit]');
  await page.waitForURL(/\/jobs\/job-/);
  await page.waitForSelector('.outcome[data-status]', { timeout: 180_000 });
  assert.equal(await page.getAttribute('.outcome', 'data-status'), 'succeeded', await page.textContent('.outcome') ?? '');
  const steps = await page.$$eval('#job-events li.ok', (lis) => lis.map((li) => li.getAttribute('data-step')));
  for (const step of ['stopConnector', 'captureOffsets', 'rewindOffsets', 'verifyOffsets']) assert.ok(steps.includes(step), `step ${step} finished: ${steps.join(', ')}`);
  assert.match(await page.textContent('.snapshot-id') ?? '', /\S/, 'a snapshot was taken first');
  await waitFor('24 re-delivered records', async () => distinctFrom(mark) === 24, 90_000);
  await waitFor('the sink to commit 12 again', async () => (await committed()) === '12,12');
  assert.deepEqual([...new Set(lines().slice(mark))].sort(), allRecords(24), 'the sink writes every record again');
});

test('a time position (UTC) previews the first record at or after it on each partition, as the CLI plans it', { timeout: 120_000 }, async () => {
  // 14.5 minutes after the base: the first records at or after are rec-15 (partition 1, offset 7) and rec-16 (partition 0, offset 8).
  const at = new Date(base + 14 * MINUTE + 30_000).toISOString();
  await page.goto(`${ui.base}/connectors/${encodeURIComponent(sink)}/change`);
  await page.check('#position-time');
  await page.fill('#position-time-value', at.slice(0, 19));
  await page.click('form.position button[type=submit]');
  assert.equal(await page.textContent('#h-positions code'), `--to-time ${at}`);
  const rows = await cells('table.position-plan');
  assert.deepEqual(rows.map((r) => r.slice(1, 8)), [['0', '12', '8', '0', '12', '4', '0'], ['1', '12', '7', '0', '12', '5', '0']]);
  const cli = await cliDryRun(['--to-time', at]);
  assert.deepEqual(rows.map((r) => r.slice(1, 8)), cli.positions.plan.rows.map((r) => [r.partition, r.committed, r.target, r.logStart, r.logEnd, r.replay, r.skip].map(String)));
  assert.deepEqual((await cells('table.diff')).map((r) => r[3]), ['{"kafka_offset":8}', '{"kafka_offset":7}']);
  await shot('13-time-preview');
  assert.equal(await committed(), '12,12', 'preview must not change the offsets');
});

test('a bad shift-by gets the CLI\'s message, keeps what was typed, and changes nothing', async () => {
  const runs = await runCount();
  await page.goto(`${ui.base}/connectors/${encodeURIComponent(sink)}/change`);
  // Every control of the position form has a label (keyboard and screen-reader users).
  const unlabelled = await page.$$eval('input:not([type=hidden]), select, textarea', (els) =>
    els.filter((e) => (e as HTMLInputElement).labels?.length === 0 && !e.getAttribute('aria-label')).map((e) => e.outerHTML.slice(0, 80)));
  assert.deepEqual(unlabelled, []);
  await page.fill('#position-shift-value', '-2.5');
  assert.equal(await page.isChecked('#position-shift'), true, 'typing a shift picks its radio button (app.js)');
  await page.click('form.position button[type=submit]');
  const error = await page.textContent('[role=alert]');
  assert.match(error ?? '', /Refused, nothing was changed/);
  assert.match(error ?? '', /--shift-by: expected a whole number of records like -5000 \(back\) or \+100 \(forward\), got "-2\.5"/);
  assert.equal(await page.inputValue('#position-shift-value'), '-2.5', 'the typed value is kept for fixing');
  assert.equal(await page.isChecked('#position-shift'), true);
  await shot('14-bad-shift');
  // A time in the future is refused as the CLI refuses it.
  await page.check('#position-time');
  await page.fill('#position-time-value', '2999-01-01T00:00:00');
  await page.click('form.position button[type=submit]');
  assert.match(await page.textContent('[role=alert]') ?? '', /--to-time: 2999-01-01T00:00:00\.000Z is in the future/);
  assert.equal(await committed(), '12,12');
  assert.equal((await cluster.status(sink)).connector.state, 'RUNNING');
  assert.equal(await runCount(), runs, 'no run was started');
  assert.deepEqual(pageErrors, [], 'no script error or CSP violation in the browser');
});

test('a context whose broker does not answer: the connector page says so and still shows the offsets; a position is refused', { timeout: 120_000 }, async () => {
  await page.goto(`${ui.base}/connectors`);
  await page.selectOption('#context-select', 'nobroker');
  await page.click('form.context button[type=submit]');
  await page.waitForURL(/\/connectors$/);
  const started = Date.now();
  await page.goto(`${ui.base}/connectors/${encodeURIComponent(sink)}`);
  assert.ok(Date.now() - started < 15_000, `the page waited ${Date.now() - started} ms for the broker`);
  assert.match(await page.textContent('#log-note') ?? '', /Log start, log end and lag are not shown: Kafka at 127\.0\.0\.1:1 over PLAINTEXT/);
  assert.deepEqual(await page.$$eval('table.offsets thead th', (ths) => ths.map((th) => th.textContent)), ['Topic', 'Partition', 'Offset']);
  assert.deepEqual(await cells('table.offsets'), [[topic, '0', '12'], [topic, '1', '12']]);
  await shot('15-connector-broker-down');
  await page.goto(`${ui.base}/connectors/${encodeURIComponent(sink)}/change`);
  await page.check('#position-latest');
  await page.click('form.position button[type=submit]');
  assert.match(await page.textContent('[role=alert]') ?? '', /Kafka at 127\.0\.0\.1:1 over PLAINTEXT: cannot/);
  assert.equal(await committed(), '12,12');
  assert.equal((await cluster.status(sink)).connector.state, 'RUNNING');
});

test('a FileStreamSource is offered the two positions offsetctl can compute (earliest: byte 0; latest: its size), previewed as the CLI plans it; other kinds are refused', { timeout: 120_000 }, async () => {
  const source = await cluster.createSource(5);
  const before = JSON.stringify(await cluster.offsets(source.name));
  await page.goto(`${ui.base}/connectors/${encodeURIComponent(source.name)}/change`);
  const kinds = await page.$$eval('form.position input[name=position]', (inputs) => inputs.map((i) => (i as HTMLInputElement).value));
  assert.deepEqual(kinds, ['earliest', 'latest'], 'a file source offers its start and its end (its size)');
  assert.match(await page.textContent('#position-lookup') ?? '', /earliest: position 0 of .*\(the whole file is read again\); latest: its size/);
  await page.click('form.position button[type=submit]');
  assert.match(await page.textContent('h1') ?? '', /Rewind .*: preview/);
  assert.equal(await page.textContent('#diff-summary'), '1 changed, 0 added, 0 removed, 0 unchanged.');
  const diff = await cells('table.diff');
  assert.equal(diff[0]?.[3], '{"position":0}', 'the target is byte 0 of the file');
  assert.equal(await page.locator('table.position-plan').count(), 0, 'no Kafka partitions: no empty per-partition table');
  const cli = await runInProcess(['rewind', source.name, '--context', 'sandbox', '--state-dir', stateDir, '--to-earliest', '--dry-run', '--output', 'json'], { env });
  assert.equal(cli.status, 0, cli.stderr);
  assert.deepEqual((JSON.parse(cli.stdout) as DryRun).diff, { changed: 1, added: 0, removed: 0, unchanged: 0 }, 'the CLI plans the same change');
  await shot('16-file-source-position-preview');
  assert.equal(JSON.stringify(await cluster.offsets(source.name)), before, 'preview must not change the offsets');

  // A kind the form does not offer, sent anyway (a crafted request), is refused with the reason and changes nothing.
  const csrf = await page.getAttribute('input[name=csrf]', 'value');
  const here = page.url().replace(/\/connectors\/.*$/, '');
  const refused = await page.request.post(`${here}/connectors/${encodeURIComponent(source.name)}/preview`, { form: { csrf: csrf ?? '', mode: 'position', position: 'time', time: '2026-01-01T00:00:00Z' } });
  assert.equal(refused.status(), 400);
  assert.match(await refused.text(), /only earliest, latest can be computed for it/);
  assert.equal(JSON.stringify(await cluster.offsets(source.name)), before);
  assert.equal((await cluster.status(source.name)).connector.state, 'RUNNING');
});
