// The team store's snapshots (a part of PostgresStore, pg-store.ts): saved in one committed transaction before any change.
import { StoreError } from '../errors.js';
import { newId, urlKey } from '../ids.js';
import type { NewSnapshot, SnapshotFilter, SnapshotRecord, SnapshotsStore } from '../types.js';
import { IdTaken, iso, toSnapshot, type PgAccess } from './rows.js';

export class PgSnapshots implements SnapshotsStore {
  readonly #db: PgAccess;

  constructor(db: PgAccess) {
    this.#db = db;
  }

  // ---- snapshots ------------------------------------------------------------------------

  async saveSnapshot(snapshot: NewSnapshot, now?: Date): Promise<SnapshotRecord> {
    const clusterKey = snapshot.clusterKey ?? urlKey(snapshot.clusterUrl);
    for (let attempt = 0; ; attempt += 1) {
      const id = newId('snap', now ?? new Date());
      try {
        const rows = await this.#db.tx(async (c) => (await c.query(`INSERT INTO snapshots (id, run_id, cluster_url, cluster_key, connector, connector_type, state_before, offsets, partitions, taken_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, COALESCE($10::timestamptz, now())) RETURNING taken_at`,
        [id, snapshot.runId ?? null, snapshot.clusterUrl, clusterKey, snapshot.connector, snapshot.connectorType, snapshot.stateBefore,
          JSON.stringify(snapshot.offsets), snapshot.offsets.length, now?.toISOString() ?? null])).rows);
        return { ...snapshot, clusterKey, id, partitions: snapshot.offsets.length, takenAt: iso(rows[0]!.taken_at) };
      } catch (err) {
        if (err instanceof IdTaken && attempt < 5) continue;
        throw err;
      }
    }
  }

  async getSnapshot(id: string): Promise<SnapshotRecord> {
    const rows = await this.#db.query('SELECT * FROM snapshots WHERE id = $1', [id]);
    if (rows.length === 0) throw new StoreError('E_NOT_FOUND', `no snapshot ${id} in ${this.#db.location()} (list them with \`offsetctl snapshots\`)`);
    return toSnapshot(rows[0]!, true);
  }

  async listSnapshots(filter: SnapshotFilter = {}): Promise<SnapshotRecord[]> {
    const rows = await this.#db.query(`SELECT id, run_id, cluster_url, cluster_key, connector, connector_type, state_before, partitions, taken_at FROM snapshots
      WHERE ($1::text IS NULL OR connector = $1) AND ($2::text IS NULL OR cluster_url = $2) AND ($3::text[] IS NULL OR cluster_key = ANY($3::text[]))
      ORDER BY taken_at DESC, seq DESC`, [filter.connector ?? null, filter.clusterUrl ?? null, filter.clusterKeys ?? null]);
    return rows.map((r) => toSnapshot(r, false));
  }

  async latestSnapshot(clusterUrl: string, connector: string): Promise<SnapshotRecord | undefined> {
    const rows = await this.#db.query('SELECT * FROM snapshots WHERE cluster_url = $1 AND connector = $2 ORDER BY taken_at DESC, seq DESC LIMIT 1', [clusterUrl, connector]);
    return rows[0] ? toSnapshot(rows[0], true) : undefined;
  }

  async deleteSnapshots(ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.#db.tx(async (c) => (await c.query('DELETE FROM snapshots WHERE id = ANY($1::text[])', [ids])).rowCount ?? 0);
  }
}
