// PostgreSQL log sequence numbers (LSNs) as Debezium and PostgreSQL write them: Debezium's offsets
// hold decimals (`"lsn": 26665976`), PostgreSQL writes `0/196E9F8` (two 32-bit halves in hex).
// People compare what they read in the server's log and in `pg_replication_slots` with the plan,
// so every LSN is shown both ways. BigInt throughout: an LSN is 64 bits, beyond a double's 53.
import type { OffsetEntry } from '../offsets/index.js';

export type Lsn = bigint;

/** `0/196E9F8` (PostgreSQL), a decimal string or a JSON number (Debezium) → an LSN; undefined when it is none. */
export function parseLsn(value: unknown): Lsn | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined;
  if (typeof value === 'bigint') return value >= 0n ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  const pg = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (pg) return (BigInt(`0x${pg[1]}`) << 32n) | BigInt(`0x${pg[2]}`);
  if (/^\d{1,20}$/.test(text)) {
    const n = BigInt(text);
    return n < 1n << 64n ? n : undefined;
  }
  return undefined;
}

/** An LSN as PostgreSQL writes it: `0/196E9F8`. */
export function pgLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** Both ways, as plans and refusals show it: `0/196E9F8 (26665976)`. */
export function showLsn(lsn: Lsn): string {
  return `${pgLsn(lsn)} (${lsn.toString()})`;
}

/** Debezium's `ts_usec` (microseconds since 1970) as an ISO time, or undefined when it is none. */
export function usecTime(value: unknown): string | undefined {
  const usec = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(usec) || usec <= 0) return undefined;
  const date = new Date(Math.floor(usec / 1000));
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The LSN fields of a Debezium PostgreSQL offset, in the order they are shown. */
const LSN_FIELDS = ['lsn', 'lsn_proc', 'lsn_commit'] as const;

export interface DebeziumPosition {
  /** Where streaming resumes from: the lowest of `lsn`, `lsn_proc`, `lsn_commit` present (Debezium re-reads from there). */
  lsn: Lsn;
  fields: Partial<Record<(typeof LSN_FIELDS)[number], Lsn>>;
  txId?: number;
  /** `ts_usec` as an ISO time. */
  time?: string;
  /** The offset says a snapshot was under way (`snapshot`/`last_snapshot_record`). */
  snapshot: boolean;
}

/** The position one Debezium PostgreSQL offset names; undefined for a removed offset or one without an LSN. */
export function debeziumPosition(offset: OffsetEntry['offset']): DebeziumPosition | undefined {
  if (!offset) return undefined;
  const fields: DebeziumPosition['fields'] = {};
  for (const key of LSN_FIELDS) {
    const lsn = parseLsn(offset[key]);
    if (lsn !== undefined) fields[key] = lsn;
  }
  const values = Object.values(fields);
  if (values.length === 0) return undefined;
  const lsn = values.reduce((a, b) => (b < a ? b : a));
  const time = usecTime(offset['ts_usec']);
  const txId = typeof offset['txId'] === 'number' ? offset['txId'] : undefined;
  const snapshot = offset['snapshot'] === true || offset['snapshot'] === 'true' || offset['last_snapshot_record'] !== undefined;
  return { lsn, fields, ...(txId !== undefined ? { txId } : {}), ...(time ? { time } : {}), snapshot };
}

/** One line for a plan: `lsn 0/196E9F8 (26665976), txId 771, ts_usec 2026-12-04T05:10:00.000Z`. */
export function describePosition(p: DebeziumPosition): string {
  const lsns = LSN_FIELDS.filter((k) => p.fields[k] !== undefined).map((k) => `${k} ${showLsn(p.fields[k]!)}`);
  return [...lsns, ...(p.txId !== undefined ? [`txId ${p.txId}`] : []), ...(p.time ? [`ts_usec ${p.time}`] : [])].join(', ');
}

/** What the replication slot holds, as read from `pg_replication_slots` and the server. */
export interface SlotWindow {
  restartLsn: Lsn;
  confirmedFlushLsn: Lsn;
  /** `pg_current_wal_lsn()`: the end of the WAL. */
  walLsn: Lsn;
}

/**
 * Where a target LSN falls, and so what Debezium and PostgreSQL will do with it:
 * - `beyond-wal`: past the end of the WAL: the slot jumps there, rows committed before are lost;
 * - `forward`: past the connector's current offset: the rows between are skipped for good;
 * - `below-restart`: the WAL there is gone from the slot: the task fails, or re-snapshots (`snapshot.mode`);
 * - `already-streamed`: below `confirmed_flush_lsn`: PostgreSQL forwards to it silently, the rows between never come back;
 * - `replays`: `confirmed_flush_lsn` ≤ target ≤ current: really replayed.
 */
export type TargetClass = 'beyond-wal' | 'forward' | 'below-restart' | 'already-streamed' | 'replays';

export function classifyTarget(target: Lsn, slot: SlotWindow, current?: Lsn): TargetClass {
  if (target > slot.walLsn) return 'beyond-wal';
  if (current !== undefined && target > current) return 'forward';
  if (target < slot.restartLsn) return 'below-restart';
  if (target < slot.confirmedFlushLsn) return 'already-streamed';
  return 'replays';
}
