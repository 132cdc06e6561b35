// The SQLite backend's snapshots (a part of SqliteStore, store.ts).
import { StoreError } from '../errors.js';
import { urlKey } from '../ids.js';
import type { NewSnapshot, SnapshotFilter, SnapshotRecord, SnapshotsStore } from '../types.js';
import { toSnapshot, type Row, type SqliteAccess } from './rows.js';

export class SqliteSnapshots implements SnapshotsStore {
  readonly #s: SqliteAccess;

  constructor(s: SqliteAccess) {
    this.#s = s;
  }

  // ---- snapshots --------------------------------------------------------------------

  saveSnapshot(snapshot: NewSnapshot, now: Date = new Date()): Promise<SnapshotRecord> {
    return this.#s.async(() => {
      const record: SnapshotRecord = { ...snapshot, clusterKey: snapshot.clusterKey ?? urlKey(snapshot.clusterUrl), id: this.#s.freshId('snap', now), partitions: snapshot.offsets.length, takenAt: now.toISOString() };
      this.#s.db.exec('PRAGMA synchronous = FULL');
      try {
        this.#s.db.prepare(`INSERT INTO snapshots (id, run_id, cluster_url, cluster_key, connector, connector_type, state_before, offsets, partitions, taken_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
          .run(record.id, record.runId ?? null, record.clusterUrl, record.clusterKey, record.connector, record.connectorType, record.stateBefore, JSON.stringify(record.offsets), record.partitions, record.takenAt);
      } finally {
        this.#s.db.exec('PRAGMA synchronous = NORMAL');
      }
      return record;
    });
  }

  getSnapshot(id: string): Promise<SnapshotRecord> {
    return this.#s.async(() => {
      const row = this.#s.db.prepare('SELECT * FROM snapshots WHERE id = ?').get(id) as Row | undefined;
      if (!row) throw new StoreError('E_NOT_FOUND', `no snapshot ${id} in ${this.#s.location} (list them with \`offsetctl snapshots\`)`);
      return toSnapshot(row, true);
    });
  }

  listSnapshots(filter: SnapshotFilter = {}): Promise<SnapshotRecord[]> {
    return this.#s.async(() => {
      const keys = filter.clusterKeys;
      const rows = this.#s.db.prepare(`SELECT id, run_id, cluster_url, cluster_key, connector, connector_type, state_before, '[]' AS offsets, partitions, taken_at
        FROM snapshots WHERE (? IS NULL OR connector = ?) AND (? IS NULL OR cluster_url = ?)
        AND (? IS NULL OR cluster_key IN (SELECT value FROM json_each(?))) ORDER BY taken_at DESC, rowid DESC`)
        .all(filter.connector ?? null, filter.connector ?? null, filter.clusterUrl ?? null, filter.clusterUrl ?? null,
          keys ? 1 : null, JSON.stringify(keys ?? [])) as Row[];
      return rows.map((r) => toSnapshot(r, false));
    });
  }

  latestSnapshot(clusterUrl: string, connector: string): Promise<SnapshotRecord | undefined> {
    return this.#s.async(() => {
      const row = this.#s.db.prepare('SELECT * FROM snapshots WHERE cluster_url = ? AND connector = ? ORDER BY taken_at DESC, rowid DESC LIMIT 1')
        .get(clusterUrl, connector) as Row | undefined;
      return row ? toSnapshot(row, true) : undefined;
    });
  }

  deleteSnapshots(ids: string[]): Promise<number> {
    return this.#s.async(() => {
      const del = this.#s.db.prepare('DELETE FROM snapshots WHERE id = ?');
      let deleted = 0;
      this.#s.immediate(() => {
        for (const id of ids) deleted += Number(del.run(id).changes);
      });
      return deleted;
    });
  }
}
