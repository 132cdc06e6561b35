// The team store's batches and their members (a part of PostgresStore, pg-store.ts).
import { batchFromRow } from '../rows.js';
import type { BatchRecord, BatchesStore, NewBatch } from '../types.js';
import type { PgAccess } from './rows.js';

export class PgBatches implements BatchesStore {
  readonly #db: PgAccess;

  constructor(db: PgAccess) {
    this.#db = db;
  }

  // ---- batches ------------------------------------------------------------------------

  async saveBatch(batch: NewBatch): Promise<BatchRecord> {
    const createdAt = new Date().toISOString();
    // A second save of one id is refused by the primary key (E_STORE, as the contract asks).
    await this.#db.tx((c) => c.query('INSERT INTO batches (id, cluster_url, cluster_key, operation, resume_after, members, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [batch.id, batch.clusterUrl, batch.clusterKey, batch.operation, batch.resumeAfter, JSON.stringify(batch.members), createdAt]));
    return { ...batch, createdAt };
  }

  async getBatch(id: string): Promise<BatchRecord | undefined> {
    const row = (await this.#db.query('SELECT * FROM batches WHERE id = $1', [id]))[0];
    if (!row) return undefined;
    return batchFromRow(row, row['created_at'] instanceof Date ? row['created_at'].toISOString() : String(row['created_at']));
  }

  async listBatches(): Promise<BatchRecord[]> {
    const rows = await this.#db.query('SELECT * FROM batches ORDER BY created_at, id', []);
    const at = (value: unknown): string => (value instanceof Date ? value.toISOString() : String(value));
    return rows.map((row) => batchFromRow(row, at(row['created_at'])));
  }
}
