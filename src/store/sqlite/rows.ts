// The SQLite backend's rows: how a row becomes a record, and what the concern files (snapshots.ts, batches.ts, audit.ts,
// policies.ts, change-requests.ts) use of the store.
import { urlKey } from '../ids.js';
import { auditFromRow, policyFromRow } from '../rows.js';
import type { Actor, ActorSource, AuditRecord, PolicyRecord, SnapshotRecord } from '../types.js';
import type { SqliteDatabase } from './driver.js';

export type Row = Record<string, unknown>;

/** What a concern's file may do through the store: its database, its transactions, who acts, where it is. */
export interface SqliteAccess {
  readonly db: SqliteDatabase;
  readonly location: string;
  /** Runs a synchronous body and hands its result (or error) over as a promise. */
  async<T>(body: () => T): Promise<T>;
  /** A write transaction that takes the write lock up front (BEGIN IMMEDIATE). */
  immediate(body: () => void): void;
  /** A new id of this kind not yet in its table. */
  freshId(kind: 'run' | 'snap' | 'chg', now: Date): string;
  /** Who acts: the store's actor with what the caller adds. */
  actor(source?: ActorSource): Actor;
}

export function toSnapshot(r: Row, withOffsets: boolean): SnapshotRecord {
  return {
    id: String(r.id),
    ...(r.run_id ? { runId: String(r.run_id) } : {}),
    clusterUrl: String(r.cluster_url), clusterKey: String(r.cluster_key || urlKey(String(r.cluster_url))), connector: String(r.connector),
    connectorType: r.connector_type === 'sink' ? 'sink' : 'source',
    stateBefore: String(r.state_before),
    offsets: withOffsets ? (JSON.parse(String(r.offsets)) as unknown[]) : [],
    partitions: Number(r.partitions), takenAt: String(r.taken_at),
  };
}

export function toPolicy(r: Row): PolicyRecord {
  return policyFromRow(r, { setAt: String(r.set_at), setBy: JSON.parse(String(r.set_by)), actions: r.actions != null ? JSON.parse(String(r.actions)) : undefined });
}

export function toAudit(r: Row): AuditRecord {
  return auditFromRow(r, { at: String(r.at), actor: JSON.parse(String(r.actor)), counts: r.counts != null ? JSON.parse(String(r.counts)) : undefined });
}
