// Real parts: the sandbox's Connect cluster, the tests' PostgreSQL as the team store, the console
// (`offsetctl ui --store …`) and Chromium. The Audit page says whether the audit chain verifies,
// as `offsetctl audit verify` does; after a superuser edits an entry (with the guard disabled),
// it says the chain does not verify and names that entry.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { connectFixture, tempDir, uniqueName, type ConnectFixture } from '../support/connect.js';
import { runCli } from '../support/cli.js';
import { adminPool, newDatabase, type TestDatabase } from '../support/postgres.js';
import { launchBrowser, screenshotDir, startUi, type RunningUi } from '../web/browser.js';

let cluster: ConnectFixture;
let db: TestDatabase;
let ui: RunningUi | undefined;
let browser: BrowserContext | undefined;
before(async () => {
  cluster = await connectFixture();
  db = await newDatabase('uiaudit');
});
after(async () => {
  await browser?.close();
  await ui?.stop();
  await cluster?.cleanup();
});

test('the Audit page says the audit chain verifies, then names the entry a superuser edited', { timeout: 180_000 }, async () => {
  const dir = tempDir('offsetctl-uiaudit-');
  const env = { PGPASSWORD: db.owner.password, OFFSETCTL_STORE: undefined, OFFSETCTL_CONFIG: join(dir, 'no-config.yaml'), OFFSETCTL_BOOTSTRAP: '' };
  const src = await cluster.createSource(3, { name: uniqueName('auditchain') });
  // Two audited acts of the CLI on the team store: a stop and a resume.
  for (const verb of ['stop', 'resume']) {
    const r = await runCli([verb, src.name, '--url', cluster.url, '--store', db.url, '--state-dir', join(dir, 'cli')], { env });
    assert.equal(r.status, 0, r.stderr);
  }
  const verified = await runCli(['audit', 'verify', '--store', db.url, '--state-dir', join(dir, 'cli'), '-o', 'json'], { env });
  assert.equal(verified.status, 0, verified.stdout + verified.stderr);

  ui = await startUi(['--url', cluster.url, '--store', db.url, '--state-dir', join(dir, 'ui')], env);
  browser = await launchBrowser();
  const page = await browser.newPage();
  await page.goto(ui.loginUrl);
  await page.goto(`${ui.base}/audit`);
  const ok = page.locator('#audit-chain');
  assert.equal(await ok.getAttribute('data-ok'), 'true', await ok.innerText());
  assert.match(await ok.innerText(), /verifies.*The audit chain verifies: \d+ entries, head digest [0-9a-f]{64}/s);

  // The superuser edits the stop's entry, its guard disabled: nothing else would show the edit.
  const stopEntry = (await runCli(['audit', '--store', db.url, '--state-dir', join(dir, 'cli'), '-o', 'json'], { env })).stdout.trim().split('\n')
    .map((l) => JSON.parse(l) as { id: string; action: string; connector?: string })
    .find((e) => e.action === 'stop' && e.connector === src.name);
  assert.ok(stopEntry, 'the stop is in the audit');
  const su = await adminPool(db.name);
  try {
    await su.query('ALTER TABLE audit DISABLE TRIGGER USER');
    await su.query(`UPDATE audit SET message = 'nothing happened here' WHERE id = $1`, [stopEntry.id]);
    await su.query('ALTER TABLE audit ENABLE TRIGGER USER');
  } finally {
    await su.end();
  }
  await page.goto(`${ui.base}/audit`);
  const bad = page.locator('#audit-chain');
  assert.equal(await bad.getAttribute('data-ok'), 'false', await bad.innerText());
  assert.equal(await bad.getAttribute('data-first-broken'), stopEntry.id);
  assert.match(await bad.innerText(), new RegExp(`does not verify.*entry ${stopEntry.id} .*no longer matches its digest: it was edited`, 's'));
  await page.screenshot({ path: join(screenshotDir, 'audit-chain-broken.png'), fullPage: true });
  // The CLI says the same.
  const cli = await runCli(['audit', 'verify', '--store', db.url, '--state-dir', join(dir, 'cli')], { env });
  assert.equal(cli.status, 1);
  assert.match(cli.stdout + cli.stderr, new RegExp(stopEntry.id));
});
