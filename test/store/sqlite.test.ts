// The Store contract, run against the SQLite backend.
// Real parts: a SQLite store file.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { openDatabase } from '../../src/store/sqlite/index.js';
import { openSqliteStore, STORE_FILE } from '../../src/store/index.js';
import { storeContract } from './contract.js';

storeContract({
  name: 'SQLite',
  newLocation: () => mkdtempSync(join(tmpdir(), 'offsetctl-store-')),
  open: (location, options) => openSqliteStore(location, options),
});

test('a store written by a newer offsetctl (a higher schema version) is refused before anything is written', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-store-newer-'));
  await openSqliteStore(dir).close();
  const db = openDatabase(join(dir, STORE_FILE));
  db.exec('PRAGMA user_version = 99');
  db.close();
  assert.throws(() => openSqliteStore(dir), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'E_STORE');
    assert.match(err.message, /written by a newer offsetctl \(store schema 99/);
    return true;
  });
});

test('runs and snapshots opened many in one second all get distinct ids (ids hold the second and 4 random hex digits)', async () => {
  const store = openSqliteStore(mkdtempSync(join(tmpdir(), 'offsetctl-store-ids-')));
  try {
    const now = new Date('2026-01-01T00:00:00Z');
    const ids = new Set<string>();
    // 1,000 draws from 65,536 repeat one with probability 0.9995: without the check this fails.
    for (let i = 0; i < 1000; i++) {
      const run = await store.beginRun({ clusterUrl: 'http://127.0.0.1:8083', connector: `c${i}`, operation: 'rewind', workflowFile: 'w', workflowId: 'w', inputs: {} }, { now });
      ids.add(run.id);
      ids.add((await store.saveSnapshot({ clusterUrl: 'http://127.0.0.1:8083', connector: `c${i}`, connectorType: 'source', stateBefore: 'RUNNING', offsets: [] }, now)).id);
    }
    assert.equal(ids.size, 2000);
  } finally {
    await store.close();
  }
});
