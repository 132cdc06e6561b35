// Real parts: the sandbox's Connect workers, the tests' PostgreSQL, real console processes (`offsetctl
// ui --config`, signed in behind a proxy). The console's contexts are found by identity as the
// CLI's are: two contexts reaching one Connect cluster (127.0.0.1 and localhost) with different
// team stores stop the console from starting, naming both; a context whose cluster another context
// governs with a team store the console does not use stops it too; and a context with no rules of
// its own takes the governing context's: its confirmed change becomes a change request.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectFixture, sortedOffsets, tempDir, uniqueName, type ConnectFixture } from '../support/connect.js';
import { cliPath, repoRoot } from '../support/repo.js';
import { addOperator, newDatabase, type TestDatabase, type TestLogin } from '../support/postgres.js';
import { startService } from '../web/browser.js';
import { PROXY_SIGN_IN } from '../support/console-yaml.js';

let cluster: ConnectFixture;
let db: TestDatabase;
let consoleLogin: TestLogin;
before(async () => {
  cluster = await connectFixture();
  db = await newDatabase('consolegov');
  consoleLogin = await addOperator(db, 'console');
});
after(async () => cluster?.cleanup());

const localhost = (url: string): string => url.replace('127.0.0.1', 'localhost');

function consoleYaml(dir: string, store: string, contexts: string): string {
  const path = join(dir, `console-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, `listen: 127.0.0.1:0
state-dir: ${join(dir, 'state')}
${store}
contexts:
${contexts}
${PROXY_SIGN_IN}roles:
  - group: platform
    role: admin
`);
  return path;
}

/** Starts a console that must refuse: its exit status and what it printed. */
function refusedStart(config: string): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [cliPath, 'ui', '--config', config], {
    cwd: repoRoot, encoding: 'utf8', timeout: 60_000, env: { ...process.env, OFFSETCTL_STORE: undefined, PGPASSWORD: undefined } as NodeJS.ProcessEnv,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

test('two console contexts for one cluster with different team stores: the console refuses to start naming both; so does one whose governing store is not the console\'s', { timeout: 120_000 }, async () => {
  const dir = tempDir('offsetctl-console-gov-');
  const two = refusedStart(consoleYaml(dir, '', `  prod:
    url: ${cluster.url}
    store: postgres://alice@127.0.0.1:5999/orders
  mirror:
    url: ${localhost(cluster.url)}
    store: postgres://alice@127.0.0.1:5999/billing`));
  assert.equal(two.status, 2, two.output);
  assert.match(two.output, /contexts prod \(store postgres:\/\/127\.0\.0\.1:5999\/orders\) and mirror \(store postgres:\/\/127\.0\.0\.1:5999\/billing\) reach one Connect cluster \(kafka:/);
  assert.doesNotMatch(two.output, /serving/);

  const elsewhere = refusedStart(consoleYaml(dir, '', `  prod:
    url: ${cluster.url}
    store: postgres://alice@127.0.0.1:5999/orders
  direct:
    url: ${localhost(cluster.url)}`));
  assert.equal(elsewhere.status, 2, elsewhere.output);
  assert.match(elsewhere.output, /context (prod|direct) reaches kafka:\S+, which context prod governs with store postgres:\/\/127\.0\.0\.1:5999\/orders; this console's store is its state folder's SQLite file/);
});

test('a console context with no rules of its own, for a cluster a team-store context governs with approval: a confirmed change becomes a request; nothing changes', { timeout: 120_000 }, async () => {
  const dir = tempDir('offsetctl-console-gov-');
  const source = await cluster.createSource(3, { name: uniqueName('congov') });
  const config = consoleYaml(dir, `store: ${db.urlFor(consoleLogin)}\nstore-password-env: CONSOLE_PG`, `  prod:
    url: ${cluster.url}
    store: ${db.url}
    approval: required
  direct:
    url: ${localhost(cluster.url)}`);
  const ui = await startService(['--config', config], { CONSOLE_PG: consoleLogin.password, OFFSETCTL_STORE: undefined, PGPASSWORD: undefined });
  try {
    const headers = { 'X-Forwarded-Email': 'carol@example.com', 'X-Forwarded-Groups': 'platform' };
    let cookie = '';
    const send = async (path: string, form?: Record<string, string>): Promise<{ status: number; text: string; location: string | null }> => {
      const res = await fetch(`${ui.base}${path}`, {
        method: form ? 'POST' : 'GET', redirect: 'manual',
        headers: { ...headers, ...(cookie ? { cookie } : {}), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      });
      const set = res.headers.get('set-cookie');
      if (set) cookie = set.split(';')[0]!;
      return { status: res.status, text: await res.text(), location: res.headers.get('location') };
    };
    const page = await send('/ctx/direct/connectors');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
    assert.ok(csrf, page.text.slice(0, 300));
    const before = sortedOffsets(await cluster.offsets(source.name));
    const offsets = { offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] };
    const preview = await send(`/ctx/direct/connectors/${encodeURIComponent(source.name)}/preview`, { mode: 'json', offsets: JSON.stringify(offsets), csrf });
    assert.equal(preview.status, 200, preview.text.slice(0, 500));
    assert.match(preview.text, /requires approval/);
    const apply = /action="(\/ctx\/direct\/plans\/[^"]+\/apply)"/.exec(preview.text)?.[1];
    assert.ok(apply);
    const applied = await send(apply, { confirm: source.name, csrf });
    assert.equal(applied.status, 303, applied.text.slice(0, 500));
    assert.match(applied.location ?? '', /^\/ctx\/direct\/changes\/chg-/, 'a change request, not a job');
    assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), before, 'offsets unchanged');
  } finally {
    await ui.stop();
  }
});
