// The team store's change requests (a part of PostgresStore, pg-store.ts): each move is one conditional UPDATE, so two
// reviewers racing cannot both move a request.
import { movedMeanwhile, moveEvent } from '../change-requests.js';
import { StoreError } from '../errors.js';
import { newId } from '../ids.js';
import type { ChangeRequestFilter, ChangeRequestMove, ChangeRequestRecord, ChangeRequestsStore, NewChangeRequest } from '../types.js';
import { IdTaken, toChangeRequest, type PgAccess } from './rows.js';

export class PgChangeRequests implements ChangeRequestsStore {
  readonly #db: PgAccess;

  constructor(db: PgAccess) {
    this.#db = db;
  }

  // ---- change requests ------------------------------------------------------------------

  async createChangeRequest(request: NewChangeRequest, now: Date = new Date()): Promise<ChangeRequestRecord> {
    await this.#db.ready();
    const actor = this.#db.actor(request.actor);
    const at = now.toISOString();
    for (let attempt = 0; ; attempt += 1) {
      const id = newId('chg', now);
      try {
        await this.#db.tx(async (c) => {
          await c.query(`INSERT INTO change_requests (id, status, cluster_url, cluster_key, operation, connectors, context_name, digest, plan, requested_by, requested_at, expires_at, history, updated_at)
            VALUES ($1, 'pending', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $10)`,
          [id, request.clusterUrl, request.clusterKey, request.operation, JSON.stringify(request.connectors), request.contextName ?? null, request.digest,
            JSON.stringify(request.plan), JSON.stringify(actor), at, request.expiresAt, JSON.stringify([{ at, action: 'requested', actor }])]);
        });
        return await this.getChangeRequest(id, now);
      } catch (err) {
        if (err instanceof IdTaken && attempt < 5) continue;
        throw err;
      }
    }
  }

  async getChangeRequest(id: string, now: Date = new Date()): Promise<ChangeRequestRecord> {
    const rows = await this.#db.query('SELECT * FROM change_requests WHERE id = $1', [id]);
    if (rows.length === 0) throw new StoreError('E_NOT_FOUND', `no change request ${id} in ${this.#db.location()} (list them with \`offsetctl changes list\`)`);
    return toChangeRequest(rows[0]!, now);
  }

  async listChangeRequests(filter: ChangeRequestFilter = {}, now: Date = new Date()): Promise<ChangeRequestRecord[]> {
    const rows = await this.#db.query(`SELECT * FROM change_requests WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR connectors ? $2)
      ORDER BY requested_at DESC, seq DESC LIMIT $3`, [filter.status ?? null, filter.connector ?? null, filter.limit ?? 1000]);
    return rows.map((r) => toChangeRequest(r, now));
  }

  async moveChangeRequest(id: string, move: ChangeRequestMove, now: Date = new Date()): Promise<ChangeRequestRecord> {
    await this.#db.ready();
    const actor = this.#db.actor(move.actor);
    const at = now.toISOString();
    const moved = await this.#db.tx(async (c) => (await c.query(`UPDATE change_requests SET status = $2, history = history || $3::jsonb, updated_at = $4
        WHERE id = $1 AND status = ANY($5::text[]) AND (NOT $6 OR expires_at > $4) RETURNING id`,
    [id, move.to, JSON.stringify([moveEvent(move, actor, at)]), at, move.from, move.notExpired === true])).rowCount ?? 0);
    const current = await this.getChangeRequest(id, now);
    if (moved === 0) throw movedMeanwhile(current, move);
    return current;
  }
}
