// The team store over TLS with sslmode=verify-full against a CA of the test's own: a CA and server
// certificates made here with openssl, loaded into the tests' PostgreSQL server (ssl = on, reloaded;
// connections without TLS keep working for the other tests meanwhile; one such file at a time, by a
// lock on the server), then `store status`
// through verify-full (accepted, encrypted), with another CA (refused), and against a certificate
// for another address (verify-full refuses, verify-ca accepts).
// Real parts: a real PostgreSQL, child processes, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { serverOwnedFolder, writeServerFile } from '../../src/sandbox/postgres-server.js';
import { runCli } from '../support/cli.js';
import { adminPool, holdServerLock, newDatabase, type TestDatabase } from '../support/postgres.js';

const work = mkdtempSync(join(tmpdir(), 'offsetctl-tls-'));
const serverDir = serverOwnedFolder();

function openssl(...args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: work, encoding: 'utf8' });
  assert.equal(r.status, 0, `openssl ${args.join(' ')}: ${r.stderr}`);
}

function makeCa(name: string): void {
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`);
}

/** A server certificate signed by the CA for one address; key and certificate handed to the server's user. */
function makeServerCert(name: string, address: string): { cert: string; key: string } {
  writeFileSync(join(work, `${name}.ext`), `subjectAltName=IP:${address}\n`);
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${address}`);
  openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`);
  const cert = join(serverDir, `${name}.crt`);
  const key = join(serverDir, `${name}.key`);
  writeServerFile(cert, readFileSync(join(work, `${name}.crt`), 'utf8'), 0o644);
  writeServerFile(key, readFileSync(join(work, `${name}.key`), 'utf8'), 0o600);
  return { cert, key };
}

async function serveWith(files: { cert: string; key: string } | undefined): Promise<void> {
  const admin = await adminPool();
  try {
    if (files) {
      await admin.query(`ALTER SYSTEM SET ssl_cert_file = '${files.cert}'`);
      await admin.query(`ALTER SYSTEM SET ssl_key_file = '${files.key}'`);
      await admin.query(`ALTER SYSTEM SET ssl = on`);
    } else {
      await admin.query('ALTER SYSTEM RESET ssl');
      await admin.query('ALTER SYSTEM RESET ssl_cert_file');
      await admin.query('ALTER SYSTEM RESET ssl_key_file');
    }
    await admin.query('SELECT pg_reload_conf()');
  } finally {
    await admin.end();
  }
  await sleep(500); // the postmaster reloads asynchronously; new connections get the new settings
}

let db: TestDatabase;
let release: (() => Promise<void>) | undefined;
before(async () => {
  makeCa('ca');
  makeCa('other-ca');
  db = await newDatabase('tls');
  // The server's TLS settings are the server's, not this test's: one file at a time changes them.
  release = await holdServerLock('store-tls');
  await serveWith(makeServerCert('server', '127.0.0.1'));
});
after(async () => {
  try {
    await serveWith(undefined);
  } finally {
    await release?.();
  }
});

const status = (query: string) => runCli(['store', 'status', '--store', `${db.url}?${query}`], {
  env: { PGPASSWORD: db.owner.password, OFFSETCTL_STORE: undefined, PGSSLMODE: undefined, PGSSLROOTCERT: undefined, OFFSETCTL_STATE_DIR: work },
});

test('sslmode=verify-full with the CA that signed the server\'s certificate: connected, encrypted', async () => {
  const r = await status(`sslmode=verify-full&sslrootcert=${join(work, 'ca.crt')}`);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /tls +TLSv1\.[23]/);
  assert.match(r.stdout, new RegExp(`login +${db.owner.user}`));
});

test('sslmode=verify-full with another CA: refused before anything is read, exit 2', async () => {
  const r = await status(`sslmode=verify-full&sslrootcert=${join(work, 'other-ca.crt')}`);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /TLS failed \(sslmode=verify-full\): check sslrootcert/);
});

test('a certificate for another address: verify-full refuses, verify-ca (the chain only) accepts', async () => {
  await serveWith(makeServerCert('elsewhere', '127.0.0.2'));
  let r = await status(`sslmode=verify-full&sslrootcert=${join(work, 'ca.crt')}`);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /127\.0\.0\.1.*(not in the cert's list|altnames)|does not match/i);
  r = await status(`sslmode=verify-ca&sslrootcert=${join(work, 'ca.crt')}`);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /tls +TLSv1/);
  // Without sslmode the connection is not encrypted, and status says how to make it so.
  r = await status('application_name=offsetctl');
  assert.match(r.stdout, /tls +none \(add sslmode=verify-full/);
});
