// Real parts: a loopback HTTP server, a SQLite store file.
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConnection, resolveStateDir, type ConnectionOptions } from './connection.js';
import { saveConfig, setContext } from './config-file.js';
import { redactText } from '../http/redact.js';
import { OpsError } from '../ops/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'offsetctl-conn-'));
const noConfig = { OFFSETCTL_CONFIG: join(dir, 'none.yaml') };

// A local server that records the headers it receives: how credentials reach the wire.
let lastHeaders: IncomingHttpHeaders = {};
const server = createServer((req, res) => {
  lastHeaders = req.headers;
  res.setHeader('content-type', 'application/json');
  res.end('[]');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
after(() => server.close());

async function authorizationFor(opts: ConnectionOptions, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const c = await resolveConnection(opts, env);
  try {
    await c.http.send({ method: 'GET', url: `${c.url}/connectors` });
  } finally {
    await c.http.close();
  }
  return lastHeaders.authorization;
}

async function refused(p: Promise<unknown>, code: string, words: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof OpsError, String(err));
    assert.equal(err.code, code);
    assert.match(err.message, words);
    return true;
  });
}

async function writeConfig(): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), 'offsetctl-conn-cfg-')), 'config.yaml');
  let { config } = setContext({ contexts: {} }, 'lab', { url: base, user: 'ops', passwordEnv: 'LAB_PW' });
  ({ config } = setContext(config, 'other', { url: 'http://other.invalid:8083' }));
  await saveConfig({ ...config, currentContext: 'lab' }, path);
  return path;
}

test('no URL anywhere: E_CONFIG naming --url, OFFSETCTL_URL and contexts', async () => {
  await refused(resolveConnection({}, noConfig), 'E_CONFIG', /--url <connect-url>.*OFFSETCTL_URL.*offsetctl config set-context/);
});

test('URL precedence: --url, then --context, then OFFSETCTL_URL, then the current context', async () => {
  const env = { OFFSETCTL_CONFIG: await writeConfig(), LAB_PW: 'lab-secret' };
  const url = async (opts: ConnectionOptions, extra: NodeJS.ProcessEnv = {}) => {
    const c = await resolveConnection(opts, { ...env, ...extra });
    await c.http.close();
    return [c.url, c.contextName];
  };
  assert.deepEqual(await url({}), [base, 'lab']);
  assert.deepEqual(await url({}, { OFFSETCTL_URL: 'http://env:8083/' }), ['http://env:8083', undefined]);
  assert.deepEqual(await url({ context: 'other' }, { OFFSETCTL_URL: 'http://env:8083' }), ['http://other.invalid:8083', 'other']);
  assert.deepEqual(await url({ url: 'https://flag:8443/', context: 'other' }, { OFFSETCTL_URL: 'http://env:8083' }), ['https://flag:8443', 'other']);
  await refused(resolveConnection({ context: 'nope' }, env), 'E_CONFIG', /context "nope" not found.*known: lab, other/);
});

test('the current context supplies its credentials; a URL from elsewhere does not get them', async () => {
  const env = { OFFSETCTL_CONFIG: await writeConfig(), LAB_PW: 'lab-secret' };
  assert.equal(await authorizationFor({}, env), `Basic ${Buffer.from('ops:lab-secret').toString('base64')}`);
  assert.equal(await authorizationFor({ url: `${base}/` }, env), `Basic ${Buffer.from('ops:lab-secret').toString('base64')}`, 'same URL as the current context');
  const elsewhere = await resolveConnection({ url: 'http://127.0.0.1:9/' }, env);
  await elsewhere.http.close();
  assert.equal(elsewhere.contextName, undefined, 'another URL: the current context is not used');
});

test('Basic auth from --user with --password-env, --password-file (trailing newline dropped) or OFFSETCTL_PASSWORD', async () => {
  const file = join(dir, 'pw');
  writeFileSync(file, 'from-file\n');
  const basic = (pw: string) => `Basic ${Buffer.from(`admin:${pw}`).toString('base64')}`;
  assert.equal(await authorizationFor({ url: base, user: 'admin', passwordEnv: 'MY_PW' }, { ...noConfig, MY_PW: 'from-env' }), basic('from-env'));
  assert.equal(await authorizationFor({ url: base, user: 'admin', passwordFile: file }, noConfig), basic('from-file'));
  assert.equal(await authorizationFor({ url: base, user: 'admin' }, { ...noConfig, OFFSETCTL_PASSWORD: 'from-default-env' }), basic('from-default-env'));
  // Every secret read is registered for redaction.
  assert.equal(redactText('x from-env y from-file z'), 'x *** y *** z');
});

test('a bearer token from --token-file', async () => {
  const file = join(dir, 'token');
  writeFileSync(file, 'tok-123456\n');
  assert.equal(await authorizationFor({ url: base, tokenFile: file }, noConfig), 'Bearer tok-123456');
});

test('secrets as literal option values are refused, and the value is never repeated', async () => {
  await assert.rejects(resolveConnection({ url: base, user: 'a', password: 'literal-pw-1' }, noConfig), (err: unknown) => {
    assert.ok(err instanceof OpsError);
    assert.equal(err.code, 'E_USAGE');
    assert.match(err.message, /--password is not accepted: .*shell history.*--password-env VAR or --password-file PATH/);
    assert.ok(!err.message.includes('literal-pw-1'));
    return true;
  });
  await refused(resolveConnection({ url: base, token: 'literal-token-1' }, noConfig), 'E_USAGE', /--token is not accepted/);
});

test('missing or unreadable secret references say which one, never a value', async () => {
  await refused(resolveConnection({ url: base, user: 'admin' }, noConfig), 'E_CONFIG', /user admin has no password: give --password-env VAR, --password-file PATH or set OFFSETCTL_PASSWORD/);
  await refused(resolveConnection({ url: base, user: 'admin', passwordEnv: 'UNSET_VAR_X' }, noConfig), 'E_CONFIG', /the password variable UNSET_VAR_X is not set/);
  await refused(resolveConnection({ url: base, user: 'admin', passwordFile: join(dir, 'missing') }, noConfig), 'E_CONFIG', /cannot read the password file .*missing \(ENOENT\)/);
  await refused(resolveConnection({ url: base, user: 'admin', passwordEnv: 'A', tokenEnv: 'B' }, noConfig), 'E_USAGE', /not both/);
  await refused(resolveConnection({ url: base, passwordEnv: 'A' }, { ...noConfig, A: 'xxxx' }), 'E_USAGE', /need --user/);
});

test('URLs: http and https only, no credentials, no query', async () => {
  await refused(resolveConnection({ url: 'ftp://a' }, noConfig), 'E_CONFIG', /only http:\/\/ and https:\/\//);
  await refused(resolveConnection({ url: 'not a url' }, noConfig), 'E_CONFIG', /not a valid URL/);
  await refused(resolveConnection({ url: 'http://u:pw-in-url@a:8083' }, noConfig), 'E_CONFIG', /credentials in the URL are not accepted/);
  await refused(resolveConnection({ url: 'http://a:8083/?x=1' }, noConfig), 'E_CONFIG', /query/);
});

test('TLS material: a certificate needs its key; files must be PEM', async () => {
  const pem = join(dir, 'c.pem');
  writeFileSync(pem, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
  const der = join(dir, 'c.der');
  writeFileSync(der, Buffer.from([0x30, 0x82, 0x01]));
  await refused(resolveConnection({ url: 'https://a', cert: pem }, noConfig), 'E_USAGE', /give --key <pem> too/);
  await refused(resolveConnection({ url: 'https://a', ca: der }, noConfig), 'E_CONFIG', /not PEM text/);
});

test('--output and --timeout are checked', async () => {
  await refused(resolveConnection({ url: base, output: 'yaml' }, noConfig), 'E_USAGE', /--output: must be text or json/);
  await refused(resolveConnection({ url: base, timeout: '-5' }, noConfig), 'E_USAGE', /--timeout/);
});

test('state folder: --state-dir, then OFFSETCTL_STATE_DIR, then ${XDG_STATE_HOME}/offsetctl', () => {
  assert.equal(resolveStateDir('/flag', { OFFSETCTL_STATE_DIR: '/env' }), '/flag');
  assert.equal(resolveStateDir(undefined, { OFFSETCTL_STATE_DIR: '/env', XDG_STATE_HOME: '/xdg' }), '/env');
  assert.equal(resolveStateDir(undefined, { XDG_STATE_HOME: '/xdg' }), '/xdg/offsetctl');
  assert.match(resolveStateDir(undefined, {}), /\/\.local\/state\/offsetctl$/);
});
