// Who is the requester of a change request (four-eyes): a console's user is the pair (issuer,
// subject) the provider authenticated, not the name (an e-mail that can change), and the console's
// shared database login makes no two of its users one person; the CLI's login still does.
// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Actor } from '../../store/index.js';
import { sameIdentity } from './requests.js';

const base = { osUser: 'svc', host: 'h', pid: 1, version: 't' };
const oidc = (user: string, subject: string, issuer = 'https://idp.example/'): Actor => ({
  ...base, user, via: 'console', dbUser: 'offsetctl_console', signIn: { kind: 'oidc', issuer, subject },
});

test('a console user is (issuer, subject): a changed e-mail is still the requester; another subject on the shared login is not', () => {
  assert.equal(sameIdentity(oidc('alice@example.com', 'alice'), oidc('alice.smith@example.com', 'alice')), true, 'same subject, new e-mail');
  assert.equal(sameIdentity(oidc('alice@example.com', 'alice'), oidc('bob@example.com', 'bob')), false, 'one database login, two people');
  assert.equal(sameIdentity(oidc('x@example.com', 'alice'), oidc('x@example.com', 'bob')), false, 'a name is only a label');
  const withSlash = oidc('b', 'alice', 'https://idp.example/');
  assert.equal(sameIdentity(oidc('a', 'alice', 'https://idp.example'), withSlash), true, 'the issuer with or without its slash');
  assert.equal(sameIdentity(oidc('a', 'alice', 'https://one.example/'), oidc('a2', 'alice', 'https://two.example/')), false, 'another provider\'s alice');
  const proxy = (user: string): Actor => ({ ...base, user, via: 'console', dbUser: 'offsetctl_console', signIn: { kind: 'proxy' } });
  assert.equal(sameIdentity(proxy('carol@example.com'), proxy('dave@example.com')), false);
  assert.equal(sameIdentity(proxy('carol@example.com'), proxy('carol@example.com')), true);
});

test('the CLI: the database login is the person; across faces the names are compared', () => {
  const cli = (user: string, dbUser?: string): Actor => ({ ...base, user, via: 'cli', ...(dbUser ? { dbUser } : {}) });
  assert.equal(sameIdentity(cli('alice', 'alice'), cli('alice', 'alice')), true);
  assert.equal(sameIdentity(cli('alice', 'alice'), cli('bob', 'bob')), false);
  assert.equal(sameIdentity(cli('alice', 'alice'), oidc('alice', 'a-1')), true, 'in doubt, refused');
  assert.equal(sameIdentity(cli('alice', 'alice'), oidc('alice@example.com', 'alice')), false);
});
