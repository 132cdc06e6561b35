// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configPath, findContext, loadConfig, saveConfig, setContext } from './config-file.js';
import { OpsError } from '../ops/errors.js';

const fresh = () => join(mkdtempSync(join(tmpdir(), 'offsetctl-config-')), 'nested', 'config.yaml');

function refused(err: unknown, words: RegExp): true {
  assert.ok(err instanceof OpsError, String(err));
  assert.equal(err.code, 'E_CONFIG');
  assert.match(err.message, words);
  return true;
}

test('the config path honours OFFSETCTL_CONFIG, then XDG_CONFIG_HOME', () => {
  assert.equal(configPath({ OFFSETCTL_CONFIG: '/etc/o.yaml' }), '/etc/o.yaml');
  assert.equal(configPath({ XDG_CONFIG_HOME: '/x' }), '/x/offsetctl/config.yaml');
});

test('a missing config file is an empty config', async () => {
  assert.deepEqual(await loadConfig(fresh()), { contexts: {} });
});

test('a context round-trips through the file, owner-only, with absolute paths and no secret values', async () => {
  const path = fresh();
  const { config, created } = setContext({ contexts: {} }, 'prod', { url: 'https://connect:8443', user: 'ops', passwordEnv: 'CONNECT_PW', ca: 'certs/ca.pem', insecure: false }, '/home/me');
  assert.equal(created, true);
  await saveConfig({ ...config, currentContext: 'prod' }, path);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const text = readFileSync(path, 'utf8');
  assert.match(text, /password-env: CONNECT_PW/);
  assert.doesNotMatch(text, /^\s*password:/m);
  const loaded = await loadConfig(path);
  assert.equal(loaded.currentContext, 'prod');
  assert.deepEqual(loaded.contexts.prod, { url: 'https://connect:8443', auth: 'basic', user: 'ops', passwordEnv: 'CONNECT_PW', ca: '/home/me/certs/ca.pem', insecure: false });
});

test('updating a context keeps its other fields; switching to a token drops the basic auth references', () => {
  let { config } = setContext({ contexts: {} }, 'dev', { url: 'http://a:8083', user: 'u', passwordFile: '/p' });
  ({ config } = setContext(config, 'dev', { ca: '/ca.pem' }));
  assert.deepEqual(config.contexts.dev, { url: 'http://a:8083', auth: 'basic', user: 'u', passwordFile: '/p', ca: '/ca.pem' });
  const updated = setContext(config, 'dev', { tokenEnv: 'TOKEN' });
  assert.equal(updated.created, false);
  assert.deepEqual(updated.config.contexts.dev, { url: 'http://a:8083', auth: 'bearer', tokenEnv: 'TOKEN', ca: '/ca.pem' });
});

test('a new context needs a URL, and basic plus bearer at once is refused', () => {
  assert.throws(() => setContext({ contexts: {} }, 'x', { user: 'u' }), /needs --url/);
  assert.throws(() => setContext({ contexts: {} }, 'x', { url: 'http://a', user: 'u', tokenEnv: 'T' }), /not both/);
});

test('a literal password in the file is refused with the way to reference it', async () => {
  const path = fresh();
  await saveConfig({ contexts: {} }, path);
  writeFileSync(path, 'contexts:\n  prod:\n    url: http://a:8083\n    user: ops\n    password: hunter2\n');
  await assert.rejects(loadConfig(path), (err) => refused(err, /contexts\.prod\.password: secrets are not stored in the config file; reference one with password-env or password-file/));
});

test('unknown fields and wrong types are refused, naming the field', async () => {
  const path = fresh();
  await saveConfig({ contexts: {} }, path);
  writeFileSync(path, 'contexts:\n  prod:\n    url: http://a:8083\n    usr: ops\n');
  await assert.rejects(loadConfig(path), (err) => refused(err, /contexts\.prod\.usr: unknown field/));
  writeFileSync(path, 'contexts:\n  prod:\n    url: http://a:8083\n    insecure: "yes"\n');
  await assert.rejects(loadConfig(path), (err) => refused(err, /contexts\.prod\.insecure must be true or false/));
  writeFileSync(path, 'contexts:\n  prod:\n    url: http://a:8083\n    production: "yes"\n');
  await assert.rejects(loadConfig(path), (err) => refused(err, /contexts\.prod\.production must be true or false/));
  writeFileSync(path, 'contexts:\n  prod:\n    url: http://a:8083\n    production: true\n');
  assert.equal((await loadConfig(path)).contexts.prod?.production, true);
  writeFileSync(path, 'contexts:\n  prod:\n    user: ops\n');
  await assert.rejects(loadConfig(path), (err) => refused(err, /contexts\.prod\.url is missing/));
  writeFileSync(path, 'contexts: [\n');
  await assert.rejects(loadConfig(path), (err) => refused(err, /not valid YAML/));
});

test('relative paths written by hand are relative to the config file', async () => {
  const path = fresh();
  await saveConfig({ contexts: {} }, path);
  writeFileSync(path, 'contexts:\n  prod:\n    url: https://a:8443\n    ca: certs/ca.pem\n');
  const config = await loadConfig(path);
  assert.equal(config.contexts.prod?.ca, join(path, '..', 'certs', 'ca.pem'));
});

test('an unknown context name lists the known ones and how to create it', () => {
  const { config } = setContext({ contexts: {} }, 'dev', { url: 'http://a' });
  assert.throws(() => findContext(config, 'prod', '/c.yaml'), (err) => refused(err, /context "prod" not found in \/c\.yaml \(known: dev\).*set-context prod/));
});

test('a context\'s source-db maps connector patterns to postgres URLs, never with a password', async () => {
  const path = fresh();
  await saveConfig({ contexts: {} }, path);
  writeFileSync(path, "contexts:\n  prod:\n    url: http://a:8083\n    source-db:\n      '^orders-': postgres://ro@db/orders\n");
  assert.deepEqual((await loadConfig(path)).contexts.prod?.sourceDb, { '^orders-': 'postgres://ro@db/orders' });
  writeFileSync(path, "contexts:\n  prod:\n    url: http://a:8083\n    source-db:\n      '^orders-': postgres://ro:hunter2@db/orders\n");
  await assert.rejects(loadConfig(path), (err) => refused(err, /contexts\.prod\.source-db\.\^orders-: holds a password; .*PGPASSWORD or a \.pgpass file/) && !(err as Error).message.includes('hunter2'));
  writeFileSync(path, "contexts:\n  prod:\n    url: http://a:8083\n    source-db:\n      '(': postgres://ro@db/orders\n");
  await assert.rejects(loadConfig(path), (err) => refused(err, /source-db: "\(" is not a regular expression/));
  writeFileSync(path, 'contexts:\n  prod:\n    url: http://a:8083\n    source-db: postgres://ro@db/orders\n');
  await assert.rejects(loadConfig(path), (err) => refused(err, /source-db must be a mapping of connector-name pattern/));
});
