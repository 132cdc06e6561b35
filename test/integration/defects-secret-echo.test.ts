// Issue 20, point 1: a worker (or a proxy in front of it) that answers 500 and echoes the
// request's Authorization header. Before the fix offsetctl masked the plain password but printed
// `Basic b3BzOl…` — base64 of user:password — on stderr, in `-o json`, in the journal and in the
// console. Every form of a known secret (plain, base64 of user:password, the bearer token,
// URL-encoded) must be masked wherever people read it. Point 9 rides along: a pre-flight GET
// answered 500 changed nothing, so it is a refusal (exit 2), not a failed run (exit 1).
// Real parts: the sandbox's Kafka broker and Connect cluster, Chromium, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runInProcess } from '../support/in-process.js';
import { connectFixture, tempDir, type ConnectFixture } from '../support/connect.js';
import { startEchoWorker, type EchoWorker } from '../support/echo-worker.js';
import { startUi } from '../web/browser.js';
import { offsetsFile } from './defects-support.js';

const USER = 'ops';
const PASSWORD = 'Echo/pw+7f3a=91c2!';
const TOKEN = 'tok/Echo+d81b55e0=x';
const basic = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
/** Every form the two secrets could leak in; the first 12 characters catch a cut-short echo. */
const FORMS: Record<string, string> = {
  password: PASSWORD,
  'password URL-encoded': encodeURIComponent(PASSWORD),
  'base64 of user:password': basic,
  'base64 of user:password, cut short': basic.slice(0, 12),
  'base64 of user:password, URL-encoded': encodeURIComponent(basic),
  token: TOKEN,
  'token URL-encoded': encodeURIComponent(TOKEN),
  'token, cut short': TOKEN.slice(0, 12),
};
const ENV = { ECHO_PW: PASSWORD, ECHO_TOKEN: TOKEN };

let cluster: ConnectFixture;
let source: { name: string; file: string };
let echo: EchoWorker;

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(3);
  echo = await startEchoWorker(cluster.url, () => false);
});
after(async () => {
  await echo?.stop();
  await cluster?.cleanup();
});

function assertClean(where: string, text: string): void {
  for (const [form, value] of Object.entries(FORMS)) assert.ok(!text.includes(value), `${where} shows the ${form}:\n${text.slice(0, 3000)}`);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
}

const basicFlags = ['--user', USER, '--password-env', 'ECHO_PW'];
const bearerFlags = ['--token-env', 'ECHO_TOKEN'];

test('1: a pre-flight answer that echoes the Authorization header shows no form of the password or token (text and JSON)', async () => {
  const target = offsetsFile([{ partition: { filename: source.file }, offset: { position: 1 } }]);
  echo.setFailing((method, path) => method === 'GET' && path.startsWith(`/connectors/${source.name}`));
  try {
    for (const auth of [basicFlags, bearerFlags]) {
      for (const output of [[], ['--output', 'json']]) {
        const r = await runInProcess(['rewind', source.name, '--offsets', target, '--yes', '--url', echo.url, ...auth, ...output, '--state-dir', tempDir('echo-state')], { env: ENV });
        assert.notEqual(r.status, 0, r.stdout + r.stderr);
        assert.match(r.stdout + r.stderr, /answered 500/);
        assert.match(r.stdout + r.stderr, /Authorization: (Basic|Bearer) \*\*\*/, 'the echo is there, masked');
        assertClean(`stdout+stderr of rewind ${[...auth, ...output].join(' ')}`, r.stdout + r.stderr);
      }
    }
    assert.ok(echo.echoed.length >= 4, `the echo worker answered: ${echo.echoed.join(', ')}`);
  } finally {
    echo.setFailing(() => false);
  }
});

test('1: a change answered with the echo: the output, runs show (text and JSON) and every file of the state folder hold no form of the password', async () => {
  const state = tempDir('echo-state');
  const target = offsetsFile([{ partition: { filename: source.file }, offset: { position: 1 } }]);
  // The rewind's PATCH gets the echo once; the recovery's PATCH (the snapshot written back) goes through.
  let once = true;
  echo.setFailing((method, path) => {
    if (method !== 'PATCH' || !path.endsWith('/offsets') || !once) return false;
    once = false;
    return true;
  });
  try {
    const r = await runInProcess(['rewind', source.name, '--offsets', target, '--yes', '--url', echo.url, ...basicFlags, '--state-dir', state], { env: ENV });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /answered 500|HTTP 500|500/);
    assertClean('the failed rewind', r.stdout + r.stderr);
    const runs = JSON.parse((await runInProcess(['runs', '--output', 'json', '--state-dir', state])).stdout) as Array<{ id: string }>;
    assert.equal(runs.length, 1);
    for (const output of [[], ['--output', 'json']]) {
      const shown = await runInProcess(['runs', 'show', runs[0]!.id, ...output, '--state-dir', state]);
      assert.equal(shown.status, 0, shown.stderr);
      assert.match(shown.stdout, /Authorization/, 'the journal keeps the echoed answer (masked)');
      assertClean(`runs show ${output.join(' ')}`, shown.stdout + shown.stderr);
    }
    for (const file of filesUnder(state)) assertClean(file, readFileSync(file).toString('latin1'));
  } finally {
    echo.setFailing(() => false);
  }
  await cluster.waitRunning(source.name);
});

test('1: the console shows the echoed error with the credential masked', async () => {
  echo.setFailing((method, path) => method === 'GET' && path.startsWith('/connectors'));
  const ui = await startUi(['--url', echo.url, ...basicFlags, '--state-dir', tempDir('echo-ui')], { ...ENV, OFFSETCTL_CONFIG: join(tempDir('echo-ui-config'), 'none.yaml'), OFFSETCTL_BOOTSTRAP: '' });
  try {
    const login = await fetch(ui.loginUrl, { redirect: 'manual' });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    assert.ok(cookie.includes('='), `a session cookie: ${login.status}`);
    for (const page of ['/connectors', `/connectors/${encodeURIComponent(source.name)}`]) {
      const res = await fetch(`${ui.base}${page}`, { headers: { cookie } });
      const html = await res.text();
      assert.match(html, /500/, `${page} shows the failure`);
      assertClean(`the console's ${page}`, html);
    }
    assertClean('the console\'s own output', ui.output());
  } finally {
    echo.setFailing(() => false);
    await ui.stop();
  }
});

test('9: a pre-flight GET answered 500 changes nothing and exits 2 (a refusal), text and JSON', async () => {
  const target = offsetsFile([{ partition: { filename: source.file }, offset: { position: 1 } }]);
  echo.setFailing((method, path) => method === 'GET' && path.startsWith(`/connectors/${source.name}/offsets`));
  try {
    const r = await runInProcess(['rewind', source.name, '--offsets', target, '--yes', '--url', echo.url, '--state-dir', tempDir('echo-state')]);
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /nothing (was )?changed/i);
    const j = await runInProcess(['reset', source.name, '--yes', '--output', 'json', '--url', echo.url, '--state-dir', tempDir('echo-state')]);
    assert.equal(j.status, 2, j.stdout + j.stderr);
    assert.equal((JSON.parse(j.stdout) as { error: { exitStatus: number } }).error.exitStatus, 2);
  } finally {
    echo.setFailing(() => false);
  }
  const status = await cluster.status(source.name);
  assert.equal(status.connector.state, 'RUNNING', 'the connector was never stopped');
});
