// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { SECRET_PLACEHOLDER, configSecrets, isReference, maskedConfig, secretValues, withoutKeys } from './config-secrets.js';

const definition = [
  { name: 'connection.password', type: 'PASSWORD' },
  { name: 'connection.user', type: 'STRING' },
  // A key the plugin defines as a plain string is not a secret, whatever its name says.
  { name: 'token', type: 'STRING' },
];

test('PASSWORD-typed keys with literal values are secrets; config-provider references stay references', () => {
  const config = {
    'connection.password': 'hunter2-literal',
    'connection.user': 'app',
    token: 'not-a-secret-by-definition',
    'consumer.override.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";',
    'value.converter.basic.auth.user.info': '${file:/etc/kafka/sr.properties:user.info}',
    'producer.override.ssl.truststore.password': '${env:TRUSTSTORE_PASSWORD}',
    'transforms.mask.api.key': 'k-123',
    'errors.tolerance': 'all',
  };
  const found = configSecrets(config, definition);
  assert.deepEqual(found.literal, ['connection.password', 'consumer.override.sasl.jaas.config', 'transforms.mask.api.key']);
  assert.deepEqual(found.references, ['producer.override.ssl.truststore.password', 'value.converter.basic.auth.user.info']);
});

test('references are recognised inside longer values too; an empty secret is nothing to hide', () => {
  assert.ok(isReference('${vault:secret/db:password}'));
  assert.ok(isReference('jdbc:postgresql://db/app?password=${env:PW}'));
  assert.ok(!isReference('plain-${not a reference'));
  assert.deepEqual(configSecrets({ 'connection.password': '' }, definition).literal, []);
});

test('a config without its secrets, their values, and the masked copy that is stored', () => {
  const config = { a: '1', 'connection.password': 's3cret!' };
  assert.deepEqual(withoutKeys(config, ['connection.password']), { a: '1' });
  assert.deepEqual(secretValues(config, ['connection.password', 'missing']), ['s3cret!']);
  assert.deepEqual(maskedConfig(config, ['connection.password']), { a: '1', 'connection.password': SECRET_PLACEHOLDER });
});
