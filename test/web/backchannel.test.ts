// Back-channel logout on a one-process console (SQLite, sessions in memory), through the Hono app
// in memory, against a real oidc-provider in this process whose signing key the test holds, so it
// can make the logout tokens a provider sends and the ones it must never accept: each check of
// OpenID Connect Back-Channel Logout 1.0 (2.6) refuses its token with 400 and ends nothing; a good
// token with a sid ends the sessions of that provider session only, one with only a sub every
// session of that person; both are audited.
// Real parts: a SQLite store file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importJWK, SignJWT, type JWK } from 'jose';
import { HttpClient } from '../../src/http/client.js';
import { openStore } from '../../src/store/index.js';
import { createConsole } from '../../src/web/app.js';
import { Access } from '../../src/web/auth/roles.js';
import { parseServiceConfig } from '../../src/web/auth/service-config.js';
import { startOidcProvider } from '../support/oidc-provider.js';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** A service console (SQLite, in memory) signing in at a real provider whose signing key the test holds. */
async function setUp() {
  const key = { ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig', alg: 'RS256' } as JWK;
  const provider = await startOidcProvider('https://127.0.0.1:8443/auth/callback', {}, { jwks: { keys: [key] } });
  const store = openStore(mkdtempSync(join(tmpdir(), 'offsetctl-ui-backchannel-')));
  const http = new HttpClient({ timeoutMs: 1000 });
  const oidc = { issuer: provider.issuer, 'client-id': provider.clientId, 'client-secret-env': 'S' };
  const doc = { contexts: {}, 'sign-in': { oidc }, roles: [{ group: 'team-orders', role: 'operator' }] };
  const service = parseServiceConfig(doc, '/c.yaml', ['prod'], { S: provider.clientSecret });
  const ui = createConsole({
    store, secure: true, service, publicUrl: () => 'https://127.0.0.1:8443',
    contexts: { initialLabel: 'prod', initialName: 'prod', names: async () => [], resolve: async () => ({ url: 'http://127.0.0.1:9', http }) },
  });
  /** A signed-in session of this subject, opened in this provider session: its cookie. */
  const session = (subject: string, sid: string): string => {
    const identity = { user: `${subject}@example.com`, groups: ['team-orders'], via: 'oidc' as const, issuer: provider.issuer, subject };
    const s = ui.sessions.create(identity, Access.of(['team-orders'], service.grants));
    s.providerSid = sid;
    return `offsetctl_session=${s.id}`;
  };
  const alive = async (...cookies: string[]): Promise<boolean[]> =>
    Promise.all(cookies.map(async (cookie) => (await ui.app.request('/ctx/prod/changes', { headers: { cookie } })).status === 200));
  const signing = await importJWK(key, 'RS256');
  /** A logout token as the provider makes one (these claims over the defaults), signed by its key unless another is given. */
  const token = async (claims: Record<string, unknown>, options: { key?: unknown; iat?: number } = {}): Promise<string> =>
    new SignJWT({ events: { [EVENT]: {} }, jti: `j-${Math.random()}`, ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'logout+jwt' }).setIssuer(String(claims.iss ?? provider.issuer))
      .setAudience(String(claims.aud ?? provider.clientId)).setIssuedAt(options.iat ?? Math.floor(Date.now() / 1000))
      .sign((options.key ?? signing) as Parameters<SignJWT['sign']>[0]);
  const send = async (logoutToken: string | undefined): Promise<{ status: number; text: string }> => {
    const body = new URLSearchParams(logoutToken === undefined ? {} : { logout_token: logoutToken }).toString();
    const res = await ui.app.request('/auth/backchannel-logout', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    return { status: res.status, text: await res.text() };
  };
  const close = async (): Promise<void> => {
    await store.close();
    await http.close();
    await provider.close();
  };
  return { provider, store, session, alive, token, send, close };
}

test('every check refuses a bad logout token with 400 and ends nothing; each refusal audited; then the limit', async () => {
  const { provider, store, session, alive, token, send, close } = await setUp();
  try {
    const laptop = session('alice', 'sid-1');
    const phone = session('alice', 'sid-2');
    const bob = session('bob', 'sid-3');
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: provider.issuer, aud: provider.clientId, iat: now, sub: 'alice', events: { [EVENT]: {} } };
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const bad: Array<[string, string | undefined, RegExp]> = [
      ['none at all', undefined, /the request has no logout_token/],
      ['not a JWT', 'not-a-jwt', /the logout token was refused/],
      ['a foreign key', await token({ sub: 'alice' }, { key: foreign }), /signature verification failed/],
      ['alg none', unsigned, /the logout token was refused/],
      ['another audience', await token({ sub: 'alice', aud: 'someone-else' }), /unexpected "aud" claim value/],
      ['another issuer', await token({ sub: 'alice', iss: 'http://127.0.0.1:1' }), /unexpected "iss" claim value/],
      ['an hour ahead', await token({ sub: 'alice' }, { iat: now + 3600 }), /iat|issued in the future/],
      ['an ID token (nonce)', await token({ sub: 'alice', nonce: 'n' }), /has a nonce/],
      ['no events', await token({ sub: 'alice', events: { other: {} } }), /events claim has no http:\/\/schemas\.openid\.net\/event\/backchannel-logout/],
      ['neither sub nor sid', await token({}), /names neither a subject \(sub\) nor a session \(sid\)/],
    ];
    for (const [what, logoutToken, why] of bad) {
      const res = await send(logoutToken);
      assert.equal(res.status, 400, `${what}: ${res.text}`);
      assert.match((JSON.parse(res.text) as { error_description: string }).error_description, why, what);
    }
    assert.deepEqual(await alive(laptop, phone, bob), [true, true, true], 'no refused token ended a session');
    assert.equal((await send(await token({ sub: 'alice' }))).status, 429, 'ten failures a minute from one address: the next waits (rate-limit 10)');
    const refusals = (await store.listAudit()).filter((e) => e.action === 'sign-out' && e.outcome === 'refused').map((e) => e.message ?? '');
    assert.equal(refusals.filter((m) => /^\[invalid-logout-token\] back-channel logout: /.test(m)).length, bad.length, 'each refusal in the audit');
    assert.equal(refusals.filter((m) => /^\[rate-limited\] too many failed back-channel logouts/.test(m)).length, 1);
  } finally {
    await close();
  }
});

test('a good logout token with a sid ends that provider session\'s console sessions; with only a sub every session of the person; audited', async () => {
  const { session, alive, token, send, store, close } = await setUp();
  try {
    const laptop = session('alice', 'sid-1');
    const tablet = session('alice', 'sid-1');
    const phone = session('alice', 'sid-2');
    const bob = session('bob', 'sid-3');
    assert.equal((await send(await token({ sub: 'alice', sid: 'sid-1' }))).status, 200);
    assert.deepEqual(await alive(laptop, tablet, phone, bob), [false, false, true, true], 'the sessions of sid-1 only');
    assert.equal((await send(await token({ sub: 'alice' }))).status, 200);
    assert.deepEqual(await alive(phone, bob), [false, true], 'every session of alice; not bob\'s');
    const entries = (await store.listAudit()).filter((e) => e.action === 'sign-out').reverse();
    assert.deepEqual(entries.map((e) => [e.actor.subject, e.outcome, e.message?.replace(/ \(client .*\)$/, '')]), [
      ['alice', 'done', 'back-channel logout from the identity provider of its session: 2 sessions ended'],
      ['alice', 'done', 'back-channel logout from the identity provider of subject alice: 1 session ended'],
    ]);
  } finally {
    await close();
  }
});
