// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { profileOptionsFor } from './source-db.js';

function withEnv<T>(env: Record<string, string | undefined>, run: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  return run().finally(() => {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  });
}

test('--source-db: the password comes from PGPASSWORD, else the .pgpass file; never from the URL', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-pgpass-'));
  const pgpass = join(dir, 'pgpass');
  writeFileSync(pgpass, 'db.example:5432:orders:ro:from-file\n');
  chmodSync(pgpass, 0o600);
  const fromFile = await withEnv({ PGPASSWORD: undefined, PGPASSFILE: pgpass }, () => profileOptionsFor({ sourceDb: 'postgres://ro@db.example:5432/orders' }, undefined, 'c'));
  assert.equal(fromFile.sourceDb?.password, 'from-file');
  assert.equal(fromFile.sourceDb?.display, 'postgres://ro@db.example:5432/orders');
  const fromEnv = await withEnv({ PGPASSWORD: 'from-env', PGPASSFILE: pgpass }, () => profileOptionsFor({ sourceDb: 'postgres://ro@db.example:5432/orders' }, undefined, 'c'));
  assert.equal(fromEnv.sourceDb?.password, 'from-env');
  const none = await withEnv({ PGPASSWORD: undefined, PGPASSFILE: join(dir, 'missing') }, () => profileOptionsFor({ sourceDb: 'postgres://ro@db.example:5432/orders' }, undefined, 'c'));
  assert.equal(none.sourceDb?.password, undefined);
  await assert.rejects(profileOptionsFor({ sourceDb: 'postgres://ro:secret@db.example/orders' }, undefined, 'c'), (err: Error & { code?: string; field?: string }) =>
    err.code === 'E_USAGE' && err.field === 'source-db' && /--source-db: the URL holds a password/.test(err.message) && !err.message.includes('secret'));
});

test('a context\'s source-db is chosen by the connector\'s name; --source-db wins; risks are passed on', async () => {
  const context = { url: 'http://c', auth: 'none' as const, sourceDb: { '^orders-': 'postgres://ro@orders-db/orders', '^users-': 'postgres://ro@users-db/users' } };
  await withEnv({ PGPASSWORD: 'x' }, async () => {
    assert.equal((await profileOptionsFor({}, context, 'users-cdc')).sourceDb?.host, 'users-db');
    assert.equal((await profileOptionsFor({}, context, 'billing')).sourceDb, undefined);
    assert.equal((await profileOptionsFor({ sourceDb: 'postgres://ro@other/db' }, context, 'orders-cdc')).sourceDb?.host, 'other');
    // `kafka` resolves the Kafka cluster only when a profile asks (an Iceberg sink's control topic).
    const { kafka, ...risks } = await profileOptionsFor({ skipSourceCheck: true, allowForward: true }, undefined, 'x');
    assert.deepEqual(risks, { skipSourceCheck: true, allowForward: true });
    assert.equal(typeof kafka, 'function');
  });
});

test('the Kafka cluster for a profile comes from --bootstrap, else OFFSETCTL_BOOTSTRAP, read only when asked', async () => {
  await withEnv({ OFFSETCTL_BOOTSTRAP: '127.0.0.1:19092' }, async () => {
    const fromEnv = await profileOptionsFor({}, undefined, 'ice');
    assert.deepEqual(typeof fromEnv.kafka === 'function' ? (await fromEnv.kafka())?.bootstrap : undefined, ['127.0.0.1:19092']);
    const fromFlag = await profileOptionsFor({ bootstrap: '127.0.0.1:29092' } as never, undefined, 'ice');
    assert.deepEqual(typeof fromFlag.kafka === 'function' ? (await fromFlag.kafka())?.bootstrap : undefined, ['127.0.0.1:29092']);
  });
});
