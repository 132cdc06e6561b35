// The one offsets module: the entry type, the parser, the partition key and the equality rule
// that pre-flight, the diff, snapshot restore, verification and recovery all use, and the pure
// planning over offset lists. Partitions are matched by key, never by list position (Connect
// returns them in its own order); a sink's numeric strings ("3" for 3) are the same value, a
// source's strings and numbers are not. Linear, for 100,000-partition inputs.
import { OpsError } from '../errors.js';

export type ConnectorType = 'source' | 'sink';

/** One entry: a partition and its offset, or `null` to remove the partition's offset. */
export interface OffsetEntry {
  partition: Record<string, unknown>;
  offset: Record<string, unknown> | null;
}

/** What `GET /connectors/{c}/offsets` returns and `PATCH` accepts. */
export interface ConnectorOffsets {
  offsets: OffsetEntry[];
}

/**
 * The one parser: the entry list of offsets data, `{"offsets": [...]}` (what Connect returns and a
 * file holds) or a bare array (snapshots, workflow inputs and outputs). Throws
 * `E_OFFSETS_INVALID` for anything else; the entries' shape is validateOffsetsShape's job.
 */
export function offsetEntries(input: unknown): OffsetEntry[] {
  if (Array.isArray(input)) return input as OffsetEntry[];
  if (isPlainObject(input)) {
    for (const key of Object.keys(input)) {
      if (key !== 'offsets') {
        throw new OpsError('E_OFFSETS_INVALID', `${key}: unknown top-level field; an offsets file holds {"offsets": [...]} or a bare JSON array`, { field: key });
      }
    }
    if (Array.isArray(input.offsets)) return input.offsets as OffsetEntry[];
    throw new OpsError('E_OFFSETS_INVALID', `offsets: must be an array of {"partition": {...}, "offset": {...}} entries (got ${describe(input.offsets)})`, { field: 'offsets' });
  }
  throw new OpsError('E_OFFSETS_INVALID', `offsets: expected {"offsets": [...]} or a JSON array of {"partition": {...}, "offset": {...}} entries (got ${describe(input)})`, { field: 'offsets' });
}

/**
 * A stable key for a partition: canonical JSON (sorted keys), with a sink's numeric-string
 * `kafka_partition` read as a number, so `"3"` and `3` name the same partition.
 */
export function partitionKey(partition: Record<string, unknown>): string {
  // Validation and the diff both key the same target entries: compute each key once.
  const known = partitionKeys.get(partition);
  if (known !== undefined) return known;
  const p = partition.kafka_partition;
  const key = typeof p === 'string' && isDigits(p, 10) ? canonicalJson({ ...partition, kafka_partition: Number(p) }) : canonicalJson(partition);
  partitionKeys.set(partition, key);
  return key;
}

/** Keys of partition objects already seen; offsets inputs are not mutated after parsing. */
const partitionKeys = new WeakMap<object, string>();

/** JSON with object keys sorted at every level (by UTF-16 code units): equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return out + ']';
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  // The common case, a flat map of primitives whose keys are already in order: the native
  // JSON.stringify output is the canonical text.
  let simple = true;
  for (let i = 0; i < keys.length && simple; i++) {
    const v = obj[keys[i] as string];
    if ((v !== null && typeof v === 'object') || (i > 0 && (keys[i] as string) < (keys[i - 1] as string))) simple = false;
  }
  if (simple) return JSON.stringify(obj);
  // Otherwise build the text directly: a sorted copy would not help, since JavaScript objects
  // always enumerate integer-like keys ("0", "10") first.
  keys.sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    out += (first ? '"' : ',"') + (needsEscape(k) ? JSON.stringify(k).slice(1, -1) : k) + '":' + canonicalJson(v);
    first = false;
  }
  return out + '}';
}

/** True when a key must go through JSON escaping (quotes, backslashes, control characters, lone surrogates). */
function needsEscape(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 || c === 34 || c === 92 || (c >= 0xd800 && c <= 0xdfff)) return true;
  }
  return false;
}

/**
 * The equality rule for offsets: equal when their canonical JSON is equal, a sink's
 * `kafka_offset` read as a number whether written 5 or "5" (digits beyond 2^53 compared as
 * digits). `null` (no offset) equals only `null`.
 */
export function sameOffset(a: Record<string, unknown> | null, b: Record<string, unknown> | null): boolean {
  if (a === null || b === null) return a === b;
  return a === b || offsetKey(a) === offsetKey(b);
}

/** Canonical text of an offset under the equality rule; also how the diff prints it. */
export function offsetKey(offset: Record<string, unknown>): string {
  const o = offset.kafka_offset;
  if (typeof o === 'string' && isDigits(o, 19)) {
    let start = 0;
    while (start < o.length - 1 && o.charCodeAt(start) === 48) start++;
    const digits = o.slice(start);
    const n = Number(digits);
    return canonicalJson({ ...offset, kafka_offset: Number.isSafeInteger(n) ? n : digits });
  }
  return canonicalJson(offset);
}

/**
 * What to write so that the connector's offsets become exactly `snapshot`: every snapshot
 * entry, plus `offset: null` for each partition that exists now but not in the snapshot
 * (PATCH merges, so leaving those out would keep them).
 */
export function planSnapshotRestore(snapshot: OffsetEntry[], current: OffsetEntry[]): OffsetEntry[] {
  const inSnapshot = new Set(snapshot.map((e) => partitionKey(e.partition)));
  const removals = current
    .filter((e) => !inSnapshot.has(partitionKey(e.partition)))
    .map((e) => ({ partition: e.partition, offset: null }));
  return [...snapshot, ...removals];
}

/**
 * Undo a PATCH that wrote `written`: for each of those partitions, its snapshot entry, or
 * `null` when the snapshot did not have it (the PATCH created it). Other partitions were
 * not touched by the PATCH and need nothing.
 */
export function planUndoOfWrite(written: OffsetEntry[], snapshot: OffsetEntry[]): OffsetEntry[] {
  const before = new Map(snapshot.map((e) => [partitionKey(e.partition), e] as const));
  return written.map((e) => before.get(partitionKey(e.partition)) ?? { partition: e.partition, offset: null });
}

export interface OffsetMismatch {
  partition: Record<string, unknown>;
  expected: Record<string, unknown> | null;
  actual: Record<string, unknown> | null;
}

/** Requested entries whose read-back value differs (a `null` request must read back as absent). */
export function findMismatches(requested: OffsetEntry[], readBack: OffsetEntry[]): OffsetMismatch[] {
  const actual = new Map(readBack.map((e) => [partitionKey(e.partition), e.offset] as const));
  const out: OffsetMismatch[] = [];
  for (const want of requested) {
    const got = actual.get(partitionKey(want.partition)) ?? null;
    const same = sameOffset(want.offset, got);
    if (!same) out.push({ partition: want.partition, expected: want.offset, actual: got });
  }
  return out;
}

export function describeMismatches(mismatches: OffsetMismatch[], max = 5): string {
  const lines = mismatches.slice(0, max).map((m) => `${JSON.stringify(m.partition)}: asked ${JSON.stringify(m.expected)}, Connect reports ${JSON.stringify(m.actual)}`);
  if (mismatches.length > max) lines.push(`... and ${mismatches.length - max} more`);
  return lines.join('; ');
}

export function isDigits(s: string, maxLength: number): boolean {
  if (s.length === 0 || s.length > maxLength) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  const text = JSON.stringify(v);
  return `${typeof v} ${text.length > 40 ? text.slice(0, 40) + '…' : text}`;
}
