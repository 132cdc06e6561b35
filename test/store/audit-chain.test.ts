// The audit trail's hash chain on both backends (real SQLite file, the tests' real PostgreSQL):
// entries verify as written; an entry edited, deleted or slipped in by someone with write access
// to the table (the SQLite file's owner, PostgreSQL's superuser) is named by `verifyStoreAudit`.
// Real parts: a real PostgreSQL, a SQLite store file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore, verifyAuditChain, verifyStoreAudit, type NewAuditEntry, type Store } from '../../src/store/index.js';
import { auditDigest, type AuditChainRow } from '../../src/store/audit-chain.js';
import { openDatabase } from '../../src/store/sqlite/index.js';
import { PostgresStore } from '../../src/store/postgres/index.js';
import { pgSettings } from '../../src/store/postgres/connection.js';
import { adminPool, newDatabase } from '../support/postgres.js';

const entry = (n: number, extra: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  actor: { user: `op${n}@host`, via: 'cli', osUser: 'op', host: 'host' }, action: 'rewind', outcome: n % 2 ? 'started' : 'succeeded',
  connector: `sink-${n}`, clusterKey: 'kafka:abc', message: `entry ${n} — ünïcode`, diff: [{ change: 'changed', partition: { topic: 't', partition: n }, from: { offset: n }, to: { offset: 0 } }],
  counts: { changed: 1, unchanged: n }, ...extra,
});

async function fill(store: Store, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) ids.push((await store.recordAudit(entry(i))).id);
  return ids;
}

test('the chain alone: edited, deleted, inserted and unchained entries are each named', () => {
  const rows: AuditChainRow[] = [];
  let prev = '';
  for (let i = 1; i <= 4; i++) {
    const record = { ...entry(i), id: `a${i}`, at: `2026-12-04T00:00:0${i}.000Z` };
    const digest = auditDigest(record, undefined, prev);
    rows.push({ seq: i, record, prev, digest });
    prev = digest;
  }
  assert.equal(verifyAuditChain(rows).ok, true);
  assert.equal(verifyAuditChain(rows).head, rows[3]!.digest);
  const edited = rows.map((r) => (r.seq === 2 ? { ...r, record: { ...r.record, message: 'nothing happened' } } : r));
  assert.deepEqual([verifyAuditChain(edited).firstBroken?.id, verifyAuditChain(edited).firstBroken?.reason], ['a2', 'edited']);
  const deleted = rows.filter((r) => r.seq !== 2);
  assert.deepEqual([verifyAuditChain(deleted).firstBroken?.id, verifyAuditChain(deleted).firstBroken?.reason], ['a3', 'deleted-before']);
  // A forged entry with a correct digest slipped in between a1 and a2 (a seq in a gap).
  const forged = { ...entry(9), id: 'x', at: '2026-12-04T00:00:01.500Z' };
  const inserted = [rows[0]!, { seq: 1.5, record: forged, prev: rows[0]!.digest, digest: auditDigest(forged, undefined, rows[0]!.digest!) }, ...rows.slice(1)];
  assert.deepEqual([verifyAuditChain(inserted).firstBroken?.id, verifyAuditChain(inserted).firstBroken?.reason], ['x', 'out-of-order']);
  const unchained = [...rows, { seq: 5, record: { ...entry(5), id: 'a5', at: '2026-12-04T00:00:05.000Z' }, prev: null, digest: null }];
  assert.deepEqual([verifyAuditChain(unchained).firstBroken?.id, verifyAuditChain(unchained).firstBroken?.reason], ['a5', 'unchained']);
  const older = [{ seq: 0, record: { ...entry(0), id: 'old', at: '2026-01-01T00:00:00.000Z' }, prev: null, digest: null }, ...rows];
  assert.deepEqual([verifyAuditChain(older).ok, verifyAuditChain(older).beforeChain], [true, 1]);
});

test('SQLite: the trail verifies; an UPDATE or DELETE made with the file in hand is named', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-audit-chain-'));
  const store = openSqliteStore(dir);
  const ids = await fill(store, 5);
  const report = await verifyStoreAudit(store, 2);
  assert.deepEqual([report.ok, report.entries], [true, 5]);
  await store.close();
  const db = openDatabase(join(dir, 'offsetctl.db'));
  db.prepare('UPDATE audit SET outcome = ? WHERE id = ?').run('failed', ids[2]);
  const reopened = openSqliteStore(dir);
  const edited = await verifyStoreAudit(reopened);
  assert.deepEqual([edited.ok, edited.firstBroken?.id, edited.firstBroken?.reason], [false, ids[2], 'edited']);
  db.prepare('UPDATE audit SET outcome = ? WHERE id = ?').run('started', ids[2]);
  assert.equal((await verifyStoreAudit(reopened)).ok, true, 'put back as it was, it verifies again');
  db.prepare('DELETE FROM audit WHERE id = ?').run(ids[1]);
  const deleted = await verifyStoreAudit(reopened);
  assert.deepEqual([deleted.ok, deleted.firstBroken?.id, deleted.firstBroken?.reason], [false, ids[2], 'deleted-before']);
  db.close();
  await reopened.close();
});

test('PostgreSQL: the trail verifies across logins; the superuser\'s edit or delete (guard disabled) is named', async () => {
  const db = await newDatabase('chain');
  const store = new PostgresStore(pgSettings(db.url, { passwordEnv: 'P', env: { P: db.owner.password } }), {});
  try {
    // Concurrent appends still make one chain (the advisory lock orders them).
    await Promise.all([fill(store, 4), fill(store, 4)]);
    const ids = (await store.readAuditChain(0, 100)).map((r) => r.record.id);
    assert.equal(ids.length, 8);
    const report = await verifyStoreAudit(store, 3);
    assert.equal(report.ok, true, report.firstBroken?.message);
    const admin = await adminPool(db.name);
    try {
      await admin.query('ALTER TABLE audit DISABLE TRIGGER USER');
      await admin.query('UPDATE audit SET message = $1 WHERE id = $2', ['nothing to see', ids[4]]);
      const edited = await verifyStoreAudit(store);
      assert.deepEqual([edited.ok, edited.firstBroken?.id, edited.firstBroken?.reason], [false, ids[4], 'edited']);
      await admin.query('DELETE FROM audit WHERE id = $1', [ids[4]]);
      const deleted = await verifyStoreAudit(store);
      assert.deepEqual([deleted.ok, deleted.firstBroken?.id, deleted.firstBroken?.reason], [false, ids[5], 'deleted-before']);
    } finally {
      await admin.end();
    }
  } finally {
    await store.close();
  }
});
