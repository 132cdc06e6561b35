// The team store under the role setup docs/team.md gives a DBA: a NOLOGIN owner role that owns
// the database and its tables (an admin login, a member, migrates), and a NOLOGIN operators role
// whose members read and write through the owner's default privileges. On the tests' real
// PostgreSQL: the whole Store contract passes as an operator, and an operator's login cannot
// edit the audit trail nor disable or drop its guards (PostgreSQL's own refusals asserted).
// Real parts: a real PostgreSQL.
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { PostgresStore } from '../../src/store/postgres/index.js';
import { pgSettings } from '../../src/store/postgres/connection.js';
import { loginPool, newSplitDatabase, type TestLogin } from '../support/postgres.js';
import { storeContract } from './contract.js';

interface SplitDatabase { name: string; admin: TestLogin; operator: TestLogin; url(login: TestLogin): string }

/** docs/team.md's SQL block, run by the superuser, then the schema migrated by the admin login. */
async function splitDatabase(): Promise<SplitDatabase> {
  const db = await newSplitDatabase(1);
  return { name: db.name, admin: db.admin, operator: db.operators[0]!, url: db.url };
}

const databases = await Promise.all(Array.from({ length: 16 }, () => splitDatabase()));
const byUrl = new Map(databases.map((d) => [d.url(d.operator), d]));
const opened: PostgresStore[] = [];
after(async () => {
  for (const s of opened) await s.close();
});

storeContract({
  name: 'PostgreSQL, as an operator of the split roles',
  newLocation: () => {
    const db = databases.pop();
    if (!db) throw new Error('postgres-roles.test.ts made too few databases for the contract: raise the count');
    return db.url(db.operator);
  },
  open: (location, options) => {
    const db = byUrl.get(location)!;
    const store = new PostgresStore(pgSettings(location, { passwordEnv: 'P', env: { P: db.operator.password } }), options);
    opened.push(store);
    return store;
  },
  // Policies are set by the admin login (acting as the owner role); operators only read them.
  openAdmin: (location) => {
    const db = byUrl.get(location)!;
    return new PostgresStore(pgSettings(db.url(db.admin), { passwordEnv: 'P', env: { P: db.admin.password } }), {});
  },
});

test('an operator\'s login appends to the audit but cannot edit it, nor disable or drop its guards', async () => {
  const db = await splitDatabase();
  const store = new PostgresStore(pgSettings(db.url(db.operator), { passwordEnv: 'P', env: { P: db.operator.password } }), {});
  const pool = await loginPool(db.operator, db.name);
  try {
    const entry = await store.recordAudit({ actor: { user: db.operator.user, via: 'cli' }, action: 'stop', outcome: 'done', connector: 'orders-sink' });
    const refused = async (sql: string, pattern: RegExp): Promise<void> => {
      await assert.rejects(pool.query(sql), (err: Error & { code?: string }) => {
        assert.equal(err.code, '42501', `${sql}: ${err.message}`);
        assert.match(err.message, pattern, sql);
        return true;
      });
    };
    await refused('ALTER TABLE audit DISABLE TRIGGER USER', /must be owner of table audit/);
    await refused('ALTER TABLE audit DISABLE TRIGGER audit_append_only', /must be owner of table audit/);
    await refused('DROP TRIGGER audit_append_only ON audit', /must be owner of (table|relation) audit/);
    await refused('DROP FUNCTION offsetctl_audit_append_only() CASCADE', /must be owner of function/);
    await refused(`UPDATE audit SET message = 'nothing' WHERE id = '${entry.id}'`, /permission denied for table audit/);
    await refused(`DELETE FROM audit WHERE id = '${entry.id}'`, /permission denied for table audit/);
    await refused('TRUNCATE audit', /permission denied for table audit/);
    await refused(`SET ROLE ${db.name}_owner`, /permission denied to set role/);
    assert.equal((await store.listAudit()).length, 1);
    // Policies: the operator reads them, only the admin (acting as the owner role) sets them.
    await assert.rejects(store.setPolicy({ clusterKey: 'kafka:x', requireApproval: true }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'E_STORE');
      assert.match(err.message, /may not set a policy .*permission denied for table policies.*only the team's admin role may/);
      return true;
    });
    await refused(`INSERT INTO policies (id, cluster_key, scope, require_approval, set_by) VALUES ('p', 'kafka:x', '', false, '{}')`, /permission denied for table policies/);
    const admin = new PostgresStore(pgSettings(db.url(db.admin), { passwordEnv: 'P', env: { P: db.admin.password } }), {});
    try {
      await admin.setPolicy({ clusterKey: 'kafka:x', requireApproval: true });
    } finally {
      await admin.close();
    }
    assert.deepEqual((await store.listPolicies()).map((p) => [p.clusterKey, p.requireApproval]), [['kafka:x', true]]);
  } finally {
    await pool.end();
    await store.close();
  }
});
