// The SQLite backend's change requests (a part of SqliteStore, store.ts): each move one conditional UPDATE.
import { displayStatus, movedMeanwhile, moveEvent } from '../change-requests.js';
import { StoreError } from '../errors.js';
import type { Actor, ChangeRequestFilter, ChangeRequestMove, ChangeRequestRecord, ChangeRequestsStore, NewChangeRequest } from '../types.js';
import type { Row, SqliteAccess } from './rows.js';

export class SqliteChangeRequests implements ChangeRequestsStore {
  readonly #s: SqliteAccess;

  constructor(s: SqliteAccess) {
    this.#s = s;
  }

  // ---- change requests --------------------------------------------------------------

  createChangeRequest(request: NewChangeRequest, now: Date = new Date()): Promise<ChangeRequestRecord> {
    return this.#s.async(() => {
      const at = now.toISOString();
      const actor = this.#s.actor(request.actor);
      let id = '';
      this.#s.immediate(() => {
        id = this.#s.freshId('chg', now);
        this.#s.db.prepare(`INSERT INTO change_requests (id, status, cluster_url, cluster_key, operation, connectors, context_name, digest, plan, requested_by, requested_at, expires_at, history, updated_at)
          VALUES (?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
          .run(id, request.clusterUrl, request.clusterKey, request.operation, JSON.stringify(request.connectors), request.contextName ?? null, request.digest,
            JSON.stringify(request.plan), JSON.stringify(actor), at, request.expiresAt, JSON.stringify([{ at, action: 'requested', actor }]), at);
      });
      return this.#getChangeRequest(id, now);
    });
  }

  getChangeRequest(id: string, now: Date = new Date()): Promise<ChangeRequestRecord> {
    return this.#s.async(() => this.#getChangeRequest(id, now));
  }

  listChangeRequests(filter: ChangeRequestFilter = {}, now: Date = new Date()): Promise<ChangeRequestRecord[]> {
    return this.#s.async(() => {
      const rows = this.#s.db.prepare(`SELECT * FROM change_requests WHERE (? IS NULL OR status = ?)
          AND (? IS NULL OR EXISTS (SELECT 1 FROM json_each(connectors) WHERE value = ?))
        ORDER BY requested_at DESC, rowid DESC LIMIT ?`)
        .all(filter.status ?? null, filter.status ?? null, filter.connector ?? null, filter.connector ?? null, filter.limit ?? 1000) as Row[];
      return rows.map((r) => this.#toChangeRequest(r, now));
    });
  }

  moveChangeRequest(id: string, move: ChangeRequestMove, now: Date = new Date()): Promise<ChangeRequestRecord> {
    return this.#s.async(() => {
      const at = now.toISOString();
      const actor = this.#s.actor(move.actor);
      this.#s.immediate(() => {
        const current = this.#getChangeRequest(id, now);
        if (!move.from.includes(current.status) || (move.notExpired && current.displayStatus === 'expired')) throw movedMeanwhile(current, move);
        const history = [...current.history, moveEvent(move, actor, at)];
        this.#s.db.prepare('UPDATE change_requests SET status = ?, history = ?, updated_at = ? WHERE id = ?').run(move.to, JSON.stringify(history), at, id);
      });
      return this.#getChangeRequest(id, now);
    });
  }

  #getChangeRequest(id: string, now: Date): ChangeRequestRecord {
    const row = this.#s.db.prepare('SELECT * FROM change_requests WHERE id = ?').get(id) as Row | undefined;
    if (!row) throw new StoreError('E_NOT_FOUND', `no change request ${id} in ${this.#s.location} (list them with \`offsetctl changes list\`)`);
    return this.#toChangeRequest(row, now);
  }

  #toChangeRequest(r: Row, now: Date): ChangeRequestRecord {
    const status = String(r.status) as ChangeRequestRecord['status'];
    const expiresAt = String(r.expires_at);
    return {
      id: String(r.id), status, displayStatus: displayStatus(status, expiresAt, now), clusterUrl: String(r.cluster_url), clusterKey: String(r.cluster_key),
      operation: String(r.operation), connectors: JSON.parse(String(r.connectors)) as string[], ...(r.context_name ? { contextName: String(r.context_name) } : {}),
      digest: String(r.digest), plan: JSON.parse(String(r.plan)) as unknown, requestedBy: JSON.parse(String(r.requested_by)) as Actor,
      requestedAt: String(r.requested_at), expiresAt, history: JSON.parse(String(r.history)) as ChangeRequestRecord['history'], updatedAt: String(r.updated_at),
    };
  }
}
