// The team store's policies (a part of PostgresStore, pg-store.ts): written by the owner role only, so the database
// itself refuses an operator's login.
import { StoreError } from '../errors.js';
import { newId } from '../ids.js';
import { policyScope } from '../rows.js';
import type { NewPolicy, PoliciesStore, PolicyRecord } from '../types.js';
import { toPolicy, type PgAccess } from './rows.js';

export class PgPolicies implements PoliciesStore {
  readonly #db: PgAccess;

  constructor(db: PgAccess) {
    this.#db = db;
  }

  // ---- policies -------------------------------------------------------------------------

  async setPolicy(policy: NewPolicy, now?: Date): Promise<PolicyRecord> {
    await this.#db.ready();
    const setBy = this.#db.actor(policy.actor);
    const id = newId('pol', now ?? new Date());
    try {
      return await this.#db.tx(async (c) => {
        // The owner role writes policies (migration 7): the admin login acts as it; an operator's login cannot.
        await this.#db.actAsDatabaseOwner(c);
        const rows = (await c.query(`INSERT INTO policies (id, cluster_key, scope, context, cluster_url, connectors, actions, require_approval, set_by, set_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, COALESCE($10::timestamptz, now()))
          ON CONFLICT (cluster_key, scope) DO UPDATE SET id = excluded.id, context = excluded.context, cluster_url = excluded.cluster_url,
            require_approval = excluded.require_approval, set_by = excluded.set_by, set_at = excluded.set_at, db_user = session_user RETURNING *`,
        [id, policy.clusterKey, policyScope(policy), policy.context ?? null, policy.clusterUrl ?? null, policy.connectors ?? null,
          policy.actions ? JSON.stringify([...policy.actions].sort()) : null, policy.requireApproval, JSON.stringify(setBy), now?.toISOString() ?? null])).rows;
        return toPolicy(rows[0]!);
      });
    } catch (err) {
      const e = err as { code?: string; cause?: { code?: string } };
      if (e.code === '42501' || e.cause?.code === '42501') {
        throw new StoreError('E_STORE', `${this.#db.dbUser()} may not set a policy in the team store ${this.#db.location()} (${(err as Error).message}): only the team's admin role may; ask whoever holds the admin login (docs/team.md)`, { cause: err });
      }
      throw err;
    }
  }

  async listPolicies(filter: { clusterKeys?: string[] } = {}): Promise<PolicyRecord[]> {
    const rows = await this.#db.query('SELECT * FROM policies WHERE ($1::text[] IS NULL OR cluster_key = ANY($1::text[])) ORDER BY cluster_key, scope', [filter.clusterKeys ?? null]);
    return rows.map(toPolicy);
  }
}
