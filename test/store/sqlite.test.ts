// The Store contract, run against the SQLite backend.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/index.js';
import { storeContract } from './contract.js';

storeContract({
  name: 'SQLite',
  newLocation: () => mkdtempSync(join(tmpdir(), 'offsetctl-store-')),
  open: (location, options) => openSqliteStore(location, options),
});
