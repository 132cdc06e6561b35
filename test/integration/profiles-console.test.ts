// The web console and a Debezium PostgreSQL source (issue 34), in a real Chromium against the
// plugins sandbox: the console's context carries `source-db:` per connector pattern as the CLI's
// contexts do (password from the console process's PGPASSWORD/.pgpass: the sandbox's loopback
// login needs none), so a preview reads the replication slot like the CLI's dry run: a target
// between restart_lsn and confirmed_flush_lsn is refused naming why (the CLI's words), a target the
// slot can replay is previewed with the slot's facts. In a service whose context requires approval,
// the approved request is checked again at apply with the slot read the same way (as `offsetctl
// changes apply` does) and runs. Skipped without the plugin (OFFSETCTL_REQUIRE_PLUGINS=1 fails instead).
// Real parts: the sandbox's Kafka broker and Connect cluster, Chromium, a loopback HTTP server, a SQLite store file, spawns the CLI.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import { runCli } from '../support/cli.js';
import { ConnectRest, tempDir, waitFor } from '../support/connect.js';
import { cdcDatabase, debeziumConfig } from '../support/debezium.js';
import { requirePlugins, type PluginSandbox } from '../support/plugin-sandbox.js';
import { launchBrowser, launchChromium, screenshotDir, startService, startUi } from '../web/browser.js';
import { PROXY_SIGN_IN } from '../support/console-yaml.js';

interface Offset { lsn: number; lsn_proc?: number; lsn_commit?: number; txId?: number; ts_usec?: number }

const hex = (n: number): string => `${Math.floor(n / 2 ** 32).toString(16).toUpperCase()}/${(n % 2 ** 32).toString(16).toUpperCase()}`;

interface Source {
  name: string;
  id: string;
  url: string;
  sourceDb: string;
  sql: (q: string) => Promise<Array<Record<string, unknown>>>;
}

async function debeziumSource(t: TestContext, sandbox: PluginSandbox): Promise<Source> {
  const url = sandbox.connect[0]!;
  const rest = new ConnectRest(url);
  let name = '';
  const db = await cdcDatabase(t, sandbox, 'dbzui', ['CREATE TABLE orders (id int PRIMARY KEY, note text)', `INSERT INTO orders SELECT g, 'order ' || g FROM generate_series(1, 10) g`], {
    cleanup: () => rest.deleteConnector(name),
  });
  name = db.name;
  await rest.createConnector(name, debeziumConfig(sandbox.cdc!, db.id, { 'snapshot.mode': 'initial' }));
  await waitFor(`${name} RUNNING with a task`, async () => {
    const s = await rest.status(name);
    return s.connector.state === 'RUNNING' && s.tasks.length === 1 && s.tasks[0]!.state === 'RUNNING';
  });
  return { name, id: db.id, url, sourceDb: db.sourceDb, sql: db.sql };
}

test('console preview of a Debezium source: the slot read through the context\'s source-db, a target the slot skipped refused naming why',
  { timeout: 600_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  const s = await debeziumSource(t, sandbox);
  const offsetOf = async (): Promise<Offset | undefined> =>
    ((await (await fetch(`${s.url}/connectors/${s.name}/offsets`)).json()) as { offsets: Array<{ offset: Offset }> }).offsets[0]?.offset;
  const [w] = await s.sql(`SELECT (pg_current_wal_lsn() - '0/0')::text AS wal`);
  await s.sql(`INSERT INTO orders SELECT g, 'order ' || g FROM generate_series(11, 15) g`);
  const current = await waitFor('a streaming offset past the insert', async () => {
    const now = await offsetOf();
    return now && !('snapshot' in now) && now.lsn > Number(w!.wal) ? now : undefined;
  });
  const slot = await waitFor('the slot confirmed past its restart_lsn', async () => {
    const [row] = await s.sql(`SELECT (restart_lsn - '0/0')::text AS restart, (confirmed_flush_lsn - '0/0')::text AS confirmed
      FROM pg_replication_slots WHERE slot_name = '${s.id}'`);
    const now = { restart: Number(row!.restart), confirmed: Number(row!.confirmed) };
    return now.confirmed > now.restart + 1 ? now : undefined;
  });
  const between = Math.floor((slot.restart + slot.confirmed) / 2);
  const offsetsJson = (lsn: number): string =>
    JSON.stringify({ offsets: [{ partition: { server: s.id }, offset: { ...current, lsn, lsn_proc: lsn, lsn_commit: lsn } }] });

  // Two contexts on the same cluster: one names the source database for this connector's pattern, one does not.
  const stateDir = tempDir('profiles-console-');
  const config = join(stateDir, 'config.yaml');
  writeFileSync(config, `contexts:\n  cdc:\n    url: ${s.url}\n    source-db:\n      '^${s.name}$': ${s.sourceDb}\n  blind:\n    url: ${s.url}\n`);
  const env = { OFFSETCTL_CONFIG: config, OFFSETCTL_BOOTSTRAP: '' };
  // What the CLI's dry run says for the same target through the same context: the console must say it too.
  const file = join(stateDir, 'between.json');
  writeFileSync(file, offsetsJson(between));
  const cli = await runCli(['rewind', s.name, '--context', 'cdc', '--state-dir', stateDir, '--offsets', file, '--dry-run'], { env });
  assert.equal(cli.status, 2, cli.stderr);
  const cliWhy = /lies between the slot's restart_lsn .*$/m.exec(cli.stderr)?.[0];
  assert.ok(cliWhy, cli.stderr);

  const ui = await startUi(['--context', 'cdc', '--state-dir', stateDir], env);
  const browser = await launchBrowser();
  t.after(async () => {
    await browser.close();
    await ui.stop();
  });
  const page: Page = browser.pages()[0] ?? (await browser.newPage());
  await page.goto(ui.loginUrl);
  const preview = async (lsn: number): Promise<void> => {
    await page.goto(`${ui.base}/connectors/${encodeURIComponent(s.name)}/change`);
    await page.fill('#offsets-json', offsetsJson(lsn));
    await page.click('form:has(#offsets-json) button[type=submit]');
  };

  await preview(between);
  const refusal = await page.textContent('.error .error-text') ?? '';
  assert.match(refusal, new RegExp(`target ${hex(between)} \\(${between}\\) lies between the slot's restart_lsn ${hex(slot.restart)} \\(${slot.restart}\\) and `
    + `confirmed_flush_lsn [0-9A-F]+/[0-9A-F]+ \\(\\d+\\).*would NOT come back`));
  assert.ok(refusal.includes(cliWhy.replace(/\s+$/, '').slice(0, 200)), `the CLI's words: ${cliWhy}\nthe console's: ${refusal}`);
  await page.screenshot({ path: join(screenshotDir, '40-debezium-refused-between.png'), fullPage: true });

  // The current offset's own LSN with another txId: a change the slot can replay (Debezium confirms the offset it
  // committed: confirmed_flush_lsn ≤ target ≤ current): the preview shows the slot's facts as the CLI's dry run does.
  const replayable = current.lsn;
  await page.goto(`${ui.base}/connectors/${encodeURIComponent(s.name)}/change`);
  const replay = { offsets: [{ partition: { server: s.id }, offset: { ...current, lsn: replayable, txId: (current.txId ?? 0) + 1 } }] };
  await page.fill('#offsets-json', JSON.stringify(replay));
  await page.click('form:has(#offsets-json) button[type=submit]');
  assert.match(await page.textContent('h1') ?? '', /: preview/, await page.textContent('main') ?? '');
  const facts = await page.$$eval('ul.profile-facts li', (lis) => lis.map((li) => li.textContent ?? ''));
  assert.ok(facts.some((f) => new RegExp(`^slot ${s.id}: restart_lsn [0-9A-F]+/[0-9A-F]+ \\(\\d+\\), confirmed_flush_lsn .*active`).test(f)), facts.join('\n'));
  assert.ok(facts.some((f) => f.startsWith('source database ')), facts.join('\n'));
  await page.screenshot({ path: join(screenshotDir, '41-debezium-preview-slot.png'), fullPage: true });
});

test('console service, context with approval: required: a Debezium change request is checked again with the context\'s source-db at apply, and runs',
  { timeout: 600_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  const s = await debeziumSource(t, sandbox);
  const [w] = await s.sql(`SELECT (pg_current_wal_lsn() - '0/0')::text AS wal`);
  await s.sql(`INSERT INTO orders SELECT g, 'order ' || g FROM generate_series(11, 15) g`);
  const current = await waitFor('a streaming offset past the insert', async () => {
    const body = (await (await fetch(`${s.url}/connectors/${s.name}/offsets`)).json()) as { offsets: Array<{ offset: Offset }> };
    const now = body.offsets[0]?.offset;
    return now && !('snapshot' in now) && now.lsn > Number(w!.wal) ? now : undefined;
  });
  const dir = tempDir('profiles-console-service-');
  writeFileSync(join(dir, 'console.yaml'), `listen: 127.0.0.1:0
state-dir: ${dir}
contexts:
  reviewed:
    url: ${s.url}
    approval: required
    source-db:
      '^${s.name}$': ${s.sourceDb}
${PROXY_SIGN_IN}roles:
  - group: dbz
    role: operator
`);
  const ui = await startService(['--config', join(dir, 'console.yaml')], { OFFSETCTL_BOOTSTRAP: '' });
  const browser = await launchChromium();
  t.after(async () => {
    await browser.close();
    await ui.stop();
  });
  // Behind the proxy: who signs in is the header's (from 127.0.0.1, the trusted proxy's address).
  const as = async (email: string): Promise<Page> =>
    (await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-Email': email, 'X-Forwarded-Groups': 'dbz' } })).newPage();
  const alice = await as('alice@example.com');
  const bob = await as('bob@example.com');

  await alice.goto(`${ui.base}/connectors/${encodeURIComponent(s.name)}/change`);
  await alice.fill('#offsets-json', JSON.stringify({ offsets: [{ partition: { server: s.id }, offset: { ...current, txId: (current.txId ?? 0) + 1 } }] }));
  await alice.click('form:has(#offsets-json) button[type=submit]');
  assert.match(await alice.textContent('#approval-note') ?? '', /requires approval/, await alice.textContent('main') ?? '');
  assert.ok((await alice.$$eval('ul.profile-facts li', (lis) => lis.map((li) => li.textContent ?? ''))).some((f) => f.startsWith(`slot ${s.id}: restart_lsn`)));
  await alice.fill('input[name=confirm]', s.name);
  await alice.click('form[action*="/plans/"] button[type=submit]');
  await alice.waitForURL(/\/changes\/chg-/);
  const id = /\/changes\/(chg-[^/?#]+)/.exec(alice.url())![1]!;

  await bob.goto(`${ui.base}/changes/${id}`);
  await bob.click('#approve');
  await bob.waitForFunction(() => document.querySelector('#request-status')?.textContent === 'approved');

  // Applied: checked again (the slot read through the context's source-db), then run. Without it: refused, naming --source-db.
  await alice.goto(`${ui.base}/changes/${id}`);
  await alice.click('#apply');
  await alice.waitForSelector('[data-status], .error', { timeout: 90_000 });
  assert.equal(await alice.locator('.error').count(), 0, await alice.textContent('main') ?? '');
  const ended = (): boolean => /succeeded|failed|refused/.test(document.querySelector('[data-status]')?.getAttribute('data-status') ?? '');
  await alice.waitForFunction(ended, undefined, { timeout: 120_000 });
  assert.equal(await alice.getAttribute('[data-status]', 'data-status'), 'succeeded', await alice.textContent('main') ?? '');
});
