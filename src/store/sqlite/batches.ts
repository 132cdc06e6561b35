// The SQLite backend's batches and their members (a part of SqliteStore, store.ts).
import { StoreError } from '../errors.js';
import { batchFromRow } from '../rows.js';
import type { BatchRecord, BatchesStore, NewBatch } from '../types.js';
import type { Row, SqliteAccess } from './rows.js';

export class SqliteBatches implements BatchesStore {
  readonly #s: SqliteAccess;

  constructor(s: SqliteAccess) {
    this.#s = s;
  }

  // ---- batches ------------------------------------------------------------------------

  saveBatch(batch: NewBatch): Promise<BatchRecord> {
    return this.#s.async(() => {
      const createdAt = new Date().toISOString();
      try {
        this.#s.db.prepare('INSERT INTO batches (id, cluster_url, cluster_key, operation, resume_after, members, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
          .run(batch.id, batch.clusterUrl, batch.clusterKey, batch.operation, batch.resumeAfter, JSON.stringify(batch.members), createdAt);
      } catch (err) {
        throw new StoreError('E_STORE', `cannot record batch ${batch.id} in ${this.#s.location}: ${(err as Error).message}`, { cause: err });
      }
      return { ...batch, createdAt };
    });
  }

  getBatch(id: string): Promise<BatchRecord | undefined> {
    return this.#s.async(() => {
      const row = this.#s.db.prepare('SELECT * FROM batches WHERE id = ?').get(id) as Row | undefined;
      if (!row) return undefined;
      return batchFromRow(row, String(row['created_at']));
    });
  }

  listBatches(): Promise<BatchRecord[]> {
    return this.#s.async(() => {
      const rows = this.#s.db.prepare('SELECT * FROM batches ORDER BY created_at, id').all() as Row[];
      return rows.map((row) => batchFromRow(row, String(row['created_at'])));
    });
  }
}
