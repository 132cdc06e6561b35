// Every form a known secret takes is masked (issue 20, point 1: an error body echoing the
// Authorization header leaked base64 of user:password), and an echoed credential is masked even
// unregistered or cut short; prose about authentication keeps its words.
// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { redactAndClip, redactText, redactValue, registerBasicCredential, registerSecret } from './redact.js';

const USER = 'ops';
const PASSWORD = 'Unit/pw+7f3a=91c2!';
const TOKEN = 'tok/Unit+d81b55e0=x';
registerBasicCredential(USER, PASSWORD);
registerSecret(TOKEN);
const basic = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');

test('the password, base64 of user:password (padded or not, base64url, URL-encoded) and the URL-encoded password are masked', () => {
  const forms = [
    PASSWORD,
    encodeURIComponent(PASSWORD),
    basic,
    basic.replace(/=+$/, ''),
    Buffer.from(`${USER}:${PASSWORD}`).toString('base64url'),
    encodeURIComponent(basic),
    JSON.stringify(PASSWORD).slice(1, -1),
  ];
  for (const form of forms) {
    const out = redactText(`before ${form} after`);
    assert.equal(out, 'before *** after', `${form} → ${out}`);
  }
});

test('the bearer token in plain, URL-encoded and base64 form is masked', () => {
  for (const form of [TOKEN, encodeURIComponent(TOKEN), Buffer.from(TOKEN).toString('base64')]) {
    assert.equal(redactText(`x ${form} y`), 'x *** y');
  }
});

test('an echoed Authorization header is masked whatever credential it carries, registered or not', () => {
  const stranger = Buffer.from('someone:else-pw').toString('base64');
  assert.equal(redactText(`Authorization: Basic ${stranger}`), 'Authorization: Basic ***');
  assert.equal(redactText(`{"authorization":"Bearer abc.def.ghi"}`), '{"authorization":"Bearer ***"}');
  assert.equal(redactText(`{\\"Authorization\\": \\"Basic ${stranger}\\"}`), `{\\"Authorization\\": \\"Basic ***\\"}`);
  assert.equal(redactText(`proxy-authorization=Negotiate YIIabc123`), 'proxy-authorization=Negotiate ***');
  // Cut short by whoever truncated the body: what is left still decodes to "user:…".
  assert.equal(redactText(`answered 500: Basic ${stranger.slice(0, 12)}…`), 'answered 500: Basic ***…');
  assert.equal(redactText('prints Basic b3BzOlMz…'), 'prints Basic ***…'); // the example: ops:S3
  assert.equal(redactText(`auth=Basic%20${encodeURIComponent(stranger)}`), 'auth=Basic%20***');
  assert.equal(redactText('Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig'), 'Bearer ***');
});

test('prose about authentication keeps its words', () => {
  for (const prose of [
    'Basic authentication failed; check --user',
    'basic auth is configured, Bearer tokens are not',
    'give either Basic auth (--user with a password) or a bearer token (--token-env/--token-file), not both',
    'Authorization failed for user ops',
  ])
    assert.equal(redactText(prose), prose);
});

test('redactAndClip masks before it cuts, so no start of a secret survives the cut', () => {
  const text = `${'x'.repeat(10)}${PASSWORD}`;
  assert.equal(redactAndClip(text, 14), 'xxxxxxxxxx***');
  assert.equal(redactAndClip(text, 12), 'xxxxxxxxxx**…');
});

test('redactValue masks every form in nested JSON', () => {
  assert.deepEqual(redactValue({ a: [`Basic ${basic}`, { b: encodeURIComponent(TOKEN) }] }), { a: ['Basic ***', { b: '***' }] });
});
