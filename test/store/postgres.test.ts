// The Store contract, run against the PostgreSQL backend on the tests' server (test/support/postgres.ts),
// and then the cases only a shared store can fail (shared-contract.ts).
// Real parts: a real PostgreSQL.
import { after } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/index.js';
import { pgSettings } from '../../src/store/postgres/connection.js';
import { newDatabase, type TestDatabase } from '../support/postgres.js';
import { storeContract } from './contract.js';
import { sharedStoreContract } from './shared-contract.js';

// The contract asks for locations synchronously: databases are made up front, one per test.
const databases: TestDatabase[] = await Promise.all(Array.from({ length: 16 }, () => newDatabase('contract')));
const byUrl = new Map(databases.map((d) => [d.url, d]));
const opened: PostgresStore[] = [];
after(async () => {
  for (const s of opened) await s.close();
});

storeContract({
  name: 'PostgreSQL',
  newLocation: () => {
    const db = databases.pop();
    if (!db) throw new Error('postgres.test.ts made too few databases for the contract: raise the count');
    return db.url;
  },
  open: (location, options) => {
    const db = byUrl.get(location)!;
    const store = new PostgresStore(pgSettings(location, { passwordEnv: 'P', env: { P: db.owner.password } }), options);
    opened.push(store);
    return store;
  },
});

sharedStoreContract();
