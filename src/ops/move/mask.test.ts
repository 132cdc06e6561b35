// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskDeep, maskText, secretForms } from './mask.js';

const SECRET = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="pw-7f/3+a";';

test('a secret is masked as is, inside JSON text, URL-encoded and base64', () => {
  const forms = secretForms([SECRET, 'abc']);
  const body = JSON.stringify({ config: { 'sasl.jaas.config': SECRET } });
  for (const text of [SECRET, body, JSON.stringify(body), encodeURIComponent(SECRET), Buffer.from(SECRET).toString('base64')]) {
    const masked = maskText(text, forms);
    assert.ok(!masked.includes('pw-7f/3+a'), masked);
    assert.ok(!masked.includes(Buffer.from(SECRET).toString('base64')), masked);
  }
  assert.equal(maskText('abc stays: too short to mask safely', forms), 'abc stays: too short to mask safely');
});

test('objects are masked deeply; other values are kept', () => {
  const forms = secretForms(['s3cret-value']);
  assert.deepEqual(maskDeep({ a: ['x s3cret-value y', 3, null], b: { c: 's3cret-value' } }, forms), { a: ['x *** y', 3, null], b: { c: '***' } });
});
