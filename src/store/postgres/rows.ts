// The team store's rows: how a PostgreSQL row becomes a record, the selects shared by runs and locks, and
// what the concern files (snapshots.ts, batches.ts, change-requests.ts, console-state.ts) use of the store.
import { createHash } from 'node:crypto';
import { displayStatus } from '../change-requests.js';
import { auditFromRow, policyFromRow } from '../rows.js';
import type { Actor, ActorSource, AuditRecord, ChangeRequestRecord, PolicyRecord, SnapshotRecord } from '../types.js';
import type { PgClient } from './driver.js';

export type Row = Record<string, unknown>;

/** What a concern's file may do through the store: its queries and transactions, who acts, where it is. */
export interface PgAccess {
  query(text: string, values?: unknown[]): Promise<Row[]>;
  /** One transaction (BEGIN … COMMIT, WAL flushed) on one connection. */
  tx<T>(body: (c: PgClient) => Promise<T>): Promise<T>;
  /** Resolves once the store is open (connected, migrated). */
  ready(): Promise<void>;
  actor(source?: ActorSource): Actor;
  location(): string;
  /** The database login this store acts as (session_user). */
  dbUser(): string;
  /** In a transaction: act as the database's owner role when this login is a member (policies are the owner's). */
  actAsDatabaseOwner(c: PgClient): Promise<void>;
}

/** A new id met one drawn by another process in the same second: drawn again. */
export class IdTaken extends Error {}

export function toChangeRequest(r: Row, now: Date): ChangeRequestRecord {
  const status = String(r.status) as ChangeRequestRecord['status'];
  const expiresAt = iso(r.expires_at);
  return {
    id: String(r.id), status, displayStatus: displayStatus(status, expiresAt, now), clusterUrl: String(r.cluster_url), clusterKey: String(r.cluster_key),
    operation: String(r.operation), connectors: r.connectors as string[], ...(r.context_name ? { contextName: String(r.context_name) } : {}),
    digest: String(r.digest), plan: r.plan, requestedBy: r.requested_by as Actor, requestedAt: iso(r.requested_at), expiresAt,
    history: r.history as ChangeRequestRecord['history'], updatedAt: iso(r.updated_at),
  };
}

/** A run with whether its lock's lease is live by the server's clock. */
export const RUN_SELECT = 'SELECT r.*, (l.expires_at > now()) AS lease_live FROM runs r LEFT JOIN locks l ON l.run_id = r.id';
export const LOCK_SELECT = 'SELECT l.*, (l.expires_at > now()) AS lease_live FROM locks l';

export function iso(value: unknown): string {
  return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function toSnapshot(r: Row, withOffsets: boolean): SnapshotRecord {
  return {
    id: String(r.id),
    ...(r.run_id ? { runId: String(r.run_id) } : {}),
    clusterUrl: String(r.cluster_url), clusterKey: String(r.cluster_key), connector: String(r.connector),
    connectorType: r.connector_type === 'sink' ? 'sink' : 'source',
    stateBefore: String(r.state_before),
    offsets: withOffsets ? (JSON.parse(String(r.offsets)) as unknown[]) : [],
    partitions: Number(r.partitions), takenAt: iso(r.taken_at),
  };
}

export function toPolicy(r: Row): PolicyRecord {
  return policyFromRow(r, { setAt: iso(r.set_at), setBy: r.set_by, actions: r.actions });
}

export function toAudit(r: Row): AuditRecord {
  return auditFromRow(r, { at: iso(r.at), actor: r.actor, counts: r.counts });
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
