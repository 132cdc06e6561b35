// The Store contract, run against the SQLite backend.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { openDatabase } from '../../src/store/sqlite.js';
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
