// The audit trail's hash chain: each entry carries a digest over its own content and the digest
// of the entry before it, so an entry deleted, edited or inserted out of order shows when the
// chain is walked (`offsetctl audit verify`). Both backends write it the same way, under their
// write lock, so the chain's order is the insertion order (SQLite's rowid, PostgreSQL's seq).
// What a chain cannot show on its own: the newest entries cut off the end by someone who can
// write the table. `audit verify` prints the head digest so it can be recorded elsewhere.
import { createHash } from 'node:crypto';
import type { AuditChainRow, AuditRecord, AuditStore } from './types.js';

export type { AuditChainRow } from './types.js';

/** JSON with every object's keys sorted, so the digest does not depend on how a backend stored it (jsonb reorders keys). */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The digest of one entry chained to the one before (hex SHA-256 over the previous digest and the entry's content). */
export function auditDigest(record: AuditRecord, dbUser: string | undefined, prev: string): string {
  const content = canonicalJson({
    id: record.id, at: record.at, actor: record.actor, action: record.action, outcome: record.outcome,
    context: record.context, clusterUrl: record.clusterUrl, clusterKey: record.clusterKey, connector: record.connector,
    runId: record.runId, snapshotId: record.snapshotId, message: record.message, diff: record.diff, counts: record.counts,
    dbUser,
  });
  return createHash('sha256').update(`offsetctl-audit-v1\n${prev}\n${content}`).digest('hex');
}

export type ChainBreak = 'edited' | 'deleted-before' | 'out-of-order' | 'unchained';

export interface AuditChainReport {
  ok: boolean;
  /** Entries walked. */
  entries: number;
  /** Entries written before the chain began (before the store's migration that added it). */
  beforeChain: number;
  /** The digest of the newest entry: record it elsewhere to notice entries cut off the end. */
  head?: string;
  firstBroken?: { id: string; at: string; seq: number; reason: ChainBreak; message: string };
}

/**
 * Walks rows in insertion order and names the first entry where the chain breaks: an entry whose
 * content no longer matches its digest (edited), one whose predecessor is not the entry before
 * it (an entry deleted before it, or entries inserted out of order), or one without a digest
 * after the chain began.
 */
export function verifyAuditChain(rows: Iterable<AuditChainRow>): AuditChainReport {
  const report: AuditChainReport = { ok: true, entries: 0, beforeChain: 0 };
  // The chained entries walked so far and where each digest is, so a predecessor further back
  // tells entries inserted between (named: the first of them) from an entry deleted.
  const walked: AuditChainRow[] = [];
  const at = new Map<string, number>();
  let last: AuditChainRow | undefined;
  const name = (r: AuditChainRow): string => `${r.record.id} (${r.record.at}, ${r.record.action} ${r.record.outcome}${r.record.connector ? ` of ${r.record.connector}` : ''})`;
  for (const row of rows) {
    report.entries += 1;
    const broken = (reason: ChainBreak, message: string, entry: AuditChainRow = row): AuditChainReport => {
      report.ok = false;
      report.firstBroken = { id: entry.record.id, at: entry.record.at, seq: entry.seq, reason, message };
      return report;
    };
    if (row.digest === null) {
      if (last === undefined) {
        report.beforeChain += 1;
        continue;
      }
      return broken('unchained', `entry ${name(row)} has no digest but follows chained entries: it was inserted or edited outside offsetctl`);
    }
    const expectedPrev = last?.digest ?? '';
    if (row.prev !== expectedPrev) {
      const earlier = row.prev ? at.get(row.prev) : undefined;
      const inserted = earlier === undefined ? undefined : walked[earlier + 1];
      if (inserted) {
        return broken('out-of-order', `entry ${name(inserted)} is not in the chain: it was inserted between ${walked[earlier!]!.record.id} and ${row.record.id}`, inserted);
      }
      return broken('deleted-before', `entry ${name(row)} names a predecessor that is not the entry before it${last ? ` (${last.record.id})` : ''}: an entry before it was deleted or edited`);
    }
    if (auditDigest(row.record, row.dbUser, expectedPrev) !== row.digest) {
      return broken('edited', `entry ${name(row)} no longer matches its digest: it was edited after it was written`);
    }
    at.set(row.digest, walked.length);
    walked.push(row);
    last = row;
    report.head = row.digest;
  }
  return report;
}

/** Walks a store's whole audit trail, a page at a time, in insertion order. */
export async function verifyStoreAudit(store: Pick<AuditStore, 'readAuditChain'>, pageSize = 2000): Promise<AuditChainReport> {
  const rows: AuditChainRow[] = [];
  for (let after = 0; ;) {
    const page = await store.readAuditChain(after, pageSize);
    rows.push(...page);
    if (page.length < pageSize) break;
    after = page[page.length - 1]!.seq;
  }
  return verifyAuditChain(rows);
}
