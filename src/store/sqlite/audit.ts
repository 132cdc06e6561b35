// The SQLite backend's audit trail (a part of SqliteStore, store.ts): append-only, each entry chained to the one before.
import { auditDigest } from '../audit-chain.js';
import { newId } from '../ids.js';
import type { AuditChainRow, AuditFilter, AuditRecord, AuditStore, NewAuditEntry } from '../types.js';
import { toAudit, type Row, type SqliteAccess } from './rows.js';

export class SqliteAudit implements AuditStore {
  readonly #s: SqliteAccess;

  constructor(s: SqliteAccess) {
    this.#s = s;
  }

  // ---- the audit trail ---------------------------------------------------------------

  recordAudit(entry: NewAuditEntry, now: Date = new Date()): Promise<AuditRecord> {
    return this.#s.async(() => {
      const record: AuditRecord = { ...entry, id: newId('audit', now), at: now.toISOString() };
      this.#s.immediate(() => this.insertAudit(record));
      return record;
    });
  }

  /** Appends an entry to the hash chain; called inside a write transaction, so the newest digest cannot change under it. */
  insertAudit(entry: AuditRecord): void {
    const newest = this.#s.db.prepare('SELECT digest FROM audit WHERE digest IS NOT NULL ORDER BY rowid DESC LIMIT 1').get() as Row | undefined;
    const prev = newest ? String(newest['digest']) : '';
    // The digest covers the entry as it reads back (JSON round trip), not the object handed in.
    const stored: AuditRecord = JSON.parse(JSON.stringify(entry)) as AuditRecord;
    this.#s.db.prepare(`INSERT INTO audit (id, at, user, actor, action, outcome, context, cluster_url, cluster_key, connector, run_id, snapshot_id, message, diff, counts,
        prev_digest, digest)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(entry.id, entry.at, entry.actor.user, JSON.stringify(entry.actor), entry.action, entry.outcome, entry.context ?? null, entry.clusterUrl ?? null,
        entry.clusterKey ?? null, entry.connector ?? null, entry.runId ?? null, entry.snapshotId ?? null, entry.message ?? null,
        entry.diff ? JSON.stringify(entry.diff) : null, entry.counts ? JSON.stringify(entry.counts) : null, prev, auditDigest(stored, undefined, prev));
  }

  readAuditChain(afterSeq: number, limit: number): Promise<AuditChainRow[]> {
    return this.#s.async(() => (this.#s.db.prepare('SELECT rowid AS seq, * FROM audit WHERE rowid > ? ORDER BY rowid LIMIT ?').all(afterSeq, limit) as Row[])
      .map((r) => ({ seq: Number(r['seq']), record: toAudit(r), prev: r['prev_digest'] == null ? null : String(r['prev_digest']), digest: r['digest'] == null ? null : String(r['digest']) })));
  }

  listAudit(filter: AuditFilter = {}): Promise<AuditRecord[]> {
    return this.#s.async(() => {
      const keys = filter.clusterKeys;
      const rows = this.#s.db.prepare(`SELECT * FROM audit WHERE (? IS NULL OR connector = ?) AND (? IS NULL OR at >= ?)
          AND (? IS NULL OR cluster_key IN (SELECT value FROM json_each(?)) OR (? = 1 AND cluster_key IS NULL))
        ORDER BY at DESC, rowid DESC LIMIT ?`)
        .all(filter.connector ?? null, filter.connector ?? null, filter.since?.toISOString() ?? null, filter.since?.toISOString() ?? null,
          keys ? 1 : null, JSON.stringify(keys ?? []), filter.withoutCluster ? 1 : 0, filter.limit ?? 1000) as Row[];
      return rows.map(toAudit);
    });
  }
}
