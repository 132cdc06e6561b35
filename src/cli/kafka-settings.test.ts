// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBootstrap, resolveKafkaAccess } from './kafka-settings.js';
import { redactText } from '../http/redact.js';

test('bootstrap lists: host:port entries, listener prefixes dropped, nonsense refused', () => {
  assert.deepEqual(parseBootstrap('a:9092, SASL_SSL://b:9093'), ['a:9092', 'b:9093']);
  assert.throws(() => parseBootstrap('a'), /"a" is not host:port/);
  assert.throws(() => parseBootstrap(' , '), /no servers/);
});

test('flags win; a context\'s SASL credentials go only to its own bootstrap; the password is read late and redacted', async () => {
  const ctx = { bootstrap: 'k1:9092', kafkaSaslUser: 'ops', kafkaSaslMechanism: 'SCRAM-SHA-512', kafkaPasswordEnv: 'K_PASS', kafkaSecurityProtocol: 'SASL_SSL' };
  const env = { K_PASS: 's3cret-kafka' };
  const access = resolveKafkaAccess({}, ctx, env);
  assert.deepEqual(access.bootstrap, ['k1:9092']);
  assert.equal(access.bootstrapFromFlag, false);
  assert.deepEqual(await access.settingsFor(['k1:9092']), { bootstrap: ['k1:9092'], securityProtocol: 'SASL_SSL', sasl: { mechanism: 'SCRAM-SHA-512', username: 'ops', password: 's3cret-kafka' } });
  assert.equal(redactText('pw s3cret-kafka'), 'pw ***');
  // Another cluster (a connector's override) gets no context credentials.
  assert.deepEqual(await access.settingsFor(['other:9092']), { bootstrap: ['other:9092'] });
  const dir = mkdtempSync(join(tmpdir(), 'ks-'));
  writeFileSync(join(dir, 'pw'), 'filepw\n');
  const flagged = resolveKafkaAccess({ bootstrap: 'k2:1', kafkaSaslUser: 'u', kafkaPasswordFile: join(dir, 'pw') }, ctx, env);
  assert.equal(flagged.bootstrapFromFlag, true);
  assert.deepEqual(await flagged.settingsFor(['k2:1']), { bootstrap: ['k2:1'], sasl: { mechanism: 'PLAIN', username: 'u', password: 'filepw' } });
});

test('a literal --kafka-password, a missing password variable and half an mTLS pair are refused', async () => {
  assert.throws(() => resolveKafkaAccess({ kafkaPassword: 'x' }, undefined), (e: { code?: string }) => e.code === 'E_USAGE');
  await assert.rejects(resolveKafkaAccess({ kafkaSaslUser: 'u', kafkaPasswordEnv: 'NOPE_UNSET' }, undefined, {}).settingsFor(['a:1']), /NOPE_UNSET is not set/);
  await assert.rejects(resolveKafkaAccess({ kafkaCert: '/c.pem' }, undefined, {}).settingsFor(['a:1']), /both --kafka-cert and --kafka-key/);
  assert.throws(() => resolveKafkaAccess({ kafkaSaslMechanism: 'GSSAPI' }, undefined), /must be one of PLAIN/);
});

test('contexts keep Kafka references (paths made absolute) and refuse a literal kafka-password or a bad mechanism', async () => {
  const { loadConfig, saveConfig, setContext } = await import('./config-file.js');
  const dir = mkdtempSync(join(tmpdir(), 'ks-ctx-'));
  const file = join(dir, 'config.yaml');
  const { config } = setContext({ contexts: {} }, 'prod', { url: 'http://c:8083', bootstrap: 'k:9092', kafkaSaslUser: 'ops', kafkaPasswordFile: 'pw.txt', kafkaCa: 'ca.pem' }, '/etc/x');
  await saveConfig(config, file);
  const back = await loadConfig(file);
  assert.deepEqual(back.contexts['prod'], { url: 'http://c:8083', auth: 'none', bootstrap: 'k:9092', kafkaSaslUser: 'ops', kafkaPasswordFile: '/etc/x/pw.txt', kafkaCa: '/etc/x/ca.pem' });
  // Switching the password to a variable drops the file reference.
  assert.equal(setContext(back, 'prod', { kafkaPasswordEnv: 'KP' }).config.contexts['prod']?.kafkaPasswordFile, undefined);
  assert.throws(() => setContext(back, 'prod', { kafkaSaslMechanism: 'GSSAPI' }), /kafka-sasl-mechanism: must be one of/);
  writeFileSync(file, 'contexts:\n  p:\n    url: http://c:8083\n    kafka-password: hunter2\n');
  await assert.rejects(loadConfig(file), /kafka-password: secrets are not stored.*kafka-password-env or kafka-password-file/);
});

test('bootstrap: --bootstrap, else OFFSETCTL_BOOTSTRAP, else the context\'s; the first two are explicit (they win over a connector\'s own servers)', () => {
  const ctx = { bootstrap: 'ctx:9092' };
  assert.deepEqual(resolveKafkaAccess({ bootstrap: 'a:1, b:2' }, ctx, { OFFSETCTL_BOOTSTRAP: 'c:3' }).bootstrap, ['a:1', 'b:2']);
  const fromEnv = resolveKafkaAccess({}, ctx, { OFFSETCTL_BOOTSTRAP: 'c:3' });
  assert.deepEqual([fromEnv.bootstrap, fromEnv.bootstrapFromFlag], [['c:3'], true]);
  const fromContext = resolveKafkaAccess({}, ctx, { OFFSETCTL_BOOTSTRAP: ' ' });
  assert.deepEqual([fromContext.bootstrap, fromContext.bootstrapFromFlag], [['ctx:9092'], false]);
  assert.equal(resolveKafkaAccess({}, undefined, {}).bootstrap, undefined);
  assert.throws(() => resolveKafkaAccess({}, undefined, { OFFSETCTL_BOOTSTRAP: 'nohost' }), /OFFSETCTL_BOOTSTRAP: "nohost" is not host:port/);
});
