// The SQLite backend's policies (a part of SqliteStore, store.ts).
import { newId } from '../ids.js';
import { policyScope } from '../rows.js';
import type { NewPolicy, PoliciesStore, PolicyRecord } from '../types.js';
import { toPolicy, type Row, type SqliteAccess } from './rows.js';

export class SqlitePolicies implements PoliciesStore {
  readonly #s: SqliteAccess;

  constructor(s: SqliteAccess) {
    this.#s = s;
  }

  // ---- policies ---------------------------------------------------------------------

  setPolicy(policy: NewPolicy, now: Date = new Date()): Promise<PolicyRecord> {
    return this.#s.async(() => {
      const setBy = this.#s.actor(policy.actor);
      const id = newId('pol', now);
      this.#s.immediate(() => {
        this.#s.db.prepare(`INSERT INTO policies (id, cluster_key, scope, context, cluster_url, connectors, actions, require_approval, set_by, set_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (cluster_key, scope) DO UPDATE SET id = excluded.id, context = excluded.context, cluster_url = excluded.cluster_url,
            require_approval = excluded.require_approval, set_by = excluded.set_by, set_at = excluded.set_at`)
          .run(id, policy.clusterKey, policyScope(policy), policy.context ?? null, policy.clusterUrl ?? null, policy.connectors ?? null,
            policy.actions ? JSON.stringify([...policy.actions].sort()) : null, policy.requireApproval ? 1 : 0, JSON.stringify(setBy), now.toISOString());
      });
      return toPolicy(this.#s.db.prepare('SELECT * FROM policies WHERE id = ?').get(id) as Row);
    });
  }

  listPolicies(filter: { clusterKeys?: string[] } = {}): Promise<PolicyRecord[]> {
    return this.#s.async(() => (this.#s.db.prepare(`SELECT * FROM policies WHERE (? IS NULL OR cluster_key IN (SELECT value FROM json_each(?))) ORDER BY cluster_key, scope`)
      .all(filter.clusterKeys ? 1 : null, JSON.stringify(filter.clusterKeys ?? [])) as Row[]).map(toPolicy));
  }
}
