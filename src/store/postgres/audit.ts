// The team store's audit trail (a part of PostgresStore, pg-store.ts): append-only, each entry chained to the one before
// by its digest under one advisory lock, so concurrent writers cannot fork the chain.
import { auditDigest } from '../audit-chain.js';
import { newId } from '../ids.js';
import type { AuditChainRow, AuditFilter, AuditRecord, AuditStore, NewAuditEntry } from '../types.js';
import type { PgClient } from './driver.js';
import { AUDIT_CHAIN_LOCK_KEY } from './migrations.js';
import { IdTaken, iso, toAudit, type PgAccess } from './rows.js';

export class PgAudit implements AuditStore {
  readonly #db: PgAccess;

  constructor(db: PgAccess) {
    this.#db = db;
  }

  // ---- the audit trail -------------------------------------------------------------------

  async recordAudit(entry: NewAuditEntry, now?: Date): Promise<AuditRecord> {
    // The entry's time is the server's clock (as a run's start), unless the caller gives one.
    for (let attempt = 0; ; attempt += 1) {
      const id = newId('audit', now ?? new Date());
      try {
        return await this.#db.tx(async (c) => (await this.append(c, { ...entry, id }, now?.toISOString()))!);
      } catch (err) {
        if (err instanceof IdTaken && attempt < 5) continue;
        throw err;
      }
    }
  }

  /**
   * Appends one entry to the audit's hash chain inside a transaction: under the chain's advisory
   * lock, reads the newest digest, the login (session_user, which the row records) and the time,
   * and writes the entry with its digest. Resolves undefined when an entry of that id exists.
   */
  async append(c: PgClient, entry: NewAuditEntry & { id: string }, at: string | undefined, ifAbsent = false): Promise<AuditRecord | undefined> {
    await c.query('SELECT pg_advisory_xact_lock($1)', [AUDIT_CHAIN_LOCK_KEY]);
    const head = (await c.query(`SELECT (SELECT digest FROM audit WHERE digest IS NOT NULL ORDER BY seq DESC LIMIT 1) AS prev, session_user::text AS db_user,
      date_trunc('milliseconds', now()) AS now`)).rows[0]!;
    const prev = head['prev'] == null ? '' : String(head['prev']);
    // The digest covers the entry as it reads back (a JSON round trip; jsonb's key order does not matter to it).
    const record = JSON.parse(JSON.stringify({ ...entry, at: at ?? iso(head['now']) })) as AuditRecord;
    const digest = auditDigest(record, String(head['db_user']), prev);
    const e = record;
    const inserted = await c.query(`INSERT INTO audit (id, at, user_name, actor, action, outcome, context, cluster_url, cluster_key, connector, run_id, snapshot_id, message, diff, counts,
        prev_digest, digest)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)${ifAbsent ? ' ON CONFLICT (id) DO NOTHING' : ''}`,
    [e.id, e.at, e.actor.user, JSON.stringify(e.actor), e.action, e.outcome, e.context ?? null, e.clusterUrl ?? null, e.clusterKey ?? null, e.connector ?? null,
      e.runId ?? null, e.snapshotId ?? null, e.message ?? null, e.diff ? JSON.stringify(e.diff) : null, e.counts ? JSON.stringify(e.counts) : null, prev, digest]);
    return (inserted.rowCount ?? 0) > 0 ? record : undefined;
  }

  async readAuditChain(afterSeq: number, limit: number): Promise<AuditChainRow[]> {
    const rows = await this.#db.query('SELECT * FROM audit WHERE seq > $1 ORDER BY seq LIMIT $2', [afterSeq, limit]);
    return rows.map((r) => ({
      seq: Number(r['seq']), record: toAudit(r), dbUser: String(r['db_user']),
      prev: r['prev_digest'] == null ? null : String(r['prev_digest']), digest: r['digest'] == null ? null : String(r['digest']),
    }));
  }

  async listAudit(filter: AuditFilter = {}): Promise<AuditRecord[]> {
    const rows = await this.#db.query(`SELECT * FROM audit WHERE ($1::text IS NULL OR connector = $1) AND ($2::timestamptz IS NULL OR at >= $2)
        AND ($3::text[] IS NULL OR cluster_key = ANY($3::text[]) OR ($5::boolean AND cluster_key IS NULL)) ORDER BY at DESC, seq DESC LIMIT $4`,
    [filter.connector ?? null, filter.since?.toISOString() ?? null, filter.clusterKeys ?? null, filter.limit ?? 1000, filter.withoutCluster === true]);
    return rows.map(toAudit);
  }
}
