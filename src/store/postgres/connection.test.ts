// Store URLs read the way libpq reads them, and refused where a password would leak.
// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgSettings, redactUrl } from './connection.js';

const refused = (fn: () => unknown, pattern: RegExp): void => {
  assert.throws(fn, (err: Error & { code?: string }) => {
    assert.equal(err.code, 'E_STORE_USAGE');
    assert.match(err.message, pattern);
    return true;
  });
};

test('a password in the URL is refused, and never repeated in the message', () => {
  refused(() => pgSettings('postgres://alice:s3cr3t-pw@db:5432/offsetctl', { env: {} }), /holds a password; .*PGPASSWORD.*\.pgpass.*--store-password-env/);
  try {
    pgSettings('postgres://alice:s3cr3t-pw@db:5432/offsetctl', { env: {} });
  } catch (err) {
    assert.doesNotMatch((err as Error).message, /s3cr3t/);
  }
  assert.equal(redactUrl('postgres://alice:s3cr3t@db/x'), 'postgres://alice:***@db/x');
});

test('URL parts first, then the PG* variables; the password from --store-password-env, else left to PGPASSWORD/.pgpass', () => {
  const s = pgSettings('postgres://alice@db.example:6543/team', { env: { PGHOST: 'x', PGPORT: '1' } });
  assert.deepEqual([s.host, s.port, s.user, s.database, s.password, s.ssl], ['db.example', 6543, 'alice', 'team', undefined, false]);
  const e = pgSettings('postgres:///', { env: { PGHOST: 'h', PGPORT: '7', PGUSER: 'bob', PGDATABASE: 'd' } });
  assert.deepEqual([e.host, e.port, e.user, e.database], ['h', 7, 'bob', 'd']);
  assert.equal(pgSettings('postgres://alice@db/x', { passwordEnv: 'TEAM_PW', env: { TEAM_PW: 'pw' } }).password, 'pw');
  refused(() => pgSettings('postgres://alice@db/x', { passwordEnv: 'TEAM_PW', env: {} }), /TEAM_PW is not set/);
  refused(() => pgSettings('postgres://db/x', { env: {} }), /no database user/);
  refused(() => pgSettings('postgres://alice@db/x?sslmode=sometimes', { env: {} }), /sslmode=sometimes is not one of/);
  refused(() => pgSettings('postgres://alice@db/x?password=x', { env: {} }), /holds a password \(\?password=\)/);
  refused(() => pgSettings('postgres://alice@db/x?pool=3', { env: {} }), /unknown URL parameter pool \(known: user, host, port, dbname, sslmode/);
  assert.equal(pgSettings('postgres://alice@db/x?statement_timeout=1500', { env: {} }).statementTimeoutMs, 1500);
  assert.equal(pgSettings('postgres://alice@db/x', { env: {} }).display, 'postgres://alice@db/x');
});

test('sslmode: verify-full checks chain and host name, verify-ca the chain, require encrypts; a CA is needed to verify', () => {
  const ca = join(mkdtempSync(join(tmpdir(), 'offsetctl-ca-')), 'ca.crt');
  writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  const full = pgSettings(`postgres://alice@db.example/x?sslmode=verify-full&sslrootcert=${ca}`, { env: {} });
  assert.ok(full.ssl && full.ssl.rejectUnauthorized === true && String(full.ssl.ca).includes('BEGIN CERTIFICATE'));
  assert.equal(full.ssl?.servername, 'db.example');
  const viaEnv = pgSettings('postgres://alice@db/x', { env: { PGSSLMODE: 'verify-ca', PGSSLROOTCERT: ca } });
  assert.ok(viaEnv.ssl && viaEnv.ssl.rejectUnauthorized === true);
  assert.equal(viaEnv.ssl?.checkServerIdentity?.('other', {} as never), undefined, 'verify-ca accepts any name');
  const req = pgSettings('postgres://alice@db/x?sslmode=require', { env: { HOME: '/nonexistent' } });
  assert.ok(req.ssl && req.ssl.rejectUnauthorized === false);
  refused(() => pgSettings('postgres://alice@db/x?sslmode=verify-full&sslrootcert=/nonexistent/ca.crt', { env: {} }), /cannot read sslrootcert/);
});

test('libpq\'s user, host, port and dbname URL parameters are read like the URL\'s parts (issue 30, point 13)', () => {
  const s = pgSettings('postgres://127.0.0.1:35241/offsetctl?user=alice', { env: { PGUSER: 'root' } });
  assert.deepEqual([s.host, s.port, s.user, s.database], ['127.0.0.1', 35241, 'alice', 'offsetctl']);
  assert.equal(s.display, 'postgres://alice@127.0.0.1:35241/offsetctl');
  const all = pgSettings('postgres:///?host=db.example&port=6543&dbname=team&user=bob&sslmode=disable', { env: {} });
  assert.deepEqual([all.host, all.port, all.user, all.database, all.sslmode], ['db.example', 6543, 'bob', 'team', 'disable']);
  assert.equal(all.display, 'postgres://bob@db.example:6543/team?sslmode=disable');
  // The same value twice is fine; two different values are refused, not guessed.
  assert.equal(pgSettings('postgres://alice@db/x?user=alice', { env: {} }).user, 'alice');
  refused(() => pgSettings('postgres://alice@db/x?user=bob', { env: {} }), /user given twice: alice in the URL and bob as \?user=; give it once/);
  refused(() => pgSettings('postgres://alice@db/x?port=70000', { env: {} }), /port 70000 is not a port number/);
});
