// Store URLs read the way libpq reads them, and refused where a password would leak.
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
  refused(() => pgSettings('postgres://alice@db/x?password=x', { env: {} }), /unknown URL parameter password/);
  assert.equal(pgSettings('postgres://alice@db/x?statement_timeout=1500', { env: {} }).statementTimeoutMs, 1500);
  assert.equal(pgSettings('postgres://alice@db/x', { env: {} }).display, 'postgres://alice@db/x');
});

test('sslmode: verify-full checks chain and host name, verify-ca the chain, require encrypts; a CA is needed to verify', () => {
  const ca = join(mkdtempSync(join(tmpdir(), 'offsetctl-ca-')), 'ca.crt');
  writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  const full = pgSettings(`postgres://alice@db.example/x?sslmode=verify-full&sslrootcert=${ca}`, { env: {} });
  assert.ok(full.ssl && full.ssl.rejectUnauthorized === true && String(full.ssl.ca).includes('BEGIN CERTIFICATE'));
  assert.equal(full.ssl && full.ssl.servername, 'db.example');
  const viaEnv = pgSettings('postgres://alice@db/x', { env: { PGSSLMODE: 'verify-ca', PGSSLROOTCERT: ca } });
  assert.ok(viaEnv.ssl && viaEnv.ssl.rejectUnauthorized === true);
  assert.equal(viaEnv.ssl && viaEnv.ssl.checkServerIdentity?.('other', {} as never), undefined, 'verify-ca accepts any name');
  const req = pgSettings('postgres://alice@db/x?sslmode=require', { env: { HOME: '/nonexistent' } });
  assert.ok(req.ssl && req.ssl.rejectUnauthorized === false);
  refused(() => pgSettings('postgres://alice@db/x?sslmode=verify-full&sslrootcert=/nonexistent/ca.crt', { env: {} }), /cannot read sslrootcert/);
});
