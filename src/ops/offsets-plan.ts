// Pure planning over Kafka Connect offset lists: which offsets to write to restore a snapshot,
// and whether what Connect reports back is what was asked. Partitions are matched by a
// canonical key, never by list position (Connect returns them in its own order).

export interface OffsetEntry {
  partition: Record<string, unknown>;
  offset: Record<string, unknown> | null;
}

/** `{"offsets": [...]}` or a bare list → the list (anything else → empty). */
export function offsetsList(value: unknown): OffsetEntry[] {
  if (Array.isArray(value)) return value as OffsetEntry[];
  const inner = (value as { offsets?: unknown } | null)?.offsets;
  return Array.isArray(inner) ? (inner as OffsetEntry[]) : [];
}

/**
 * Canonical text of a partition (or offset): keys sorted, and the numeric strings Connect
 * accepts for sink fields (`"10"` for 10) read as numbers, so both spellings compare equal.
 */
export function canonicalKey(value: unknown): string {
  return JSON.stringify(canonicalize(value));
}

function canonicalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalize);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      out[key] = SINK_NUMERIC_FIELDS.has(key) && typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : canonicalize(v);
    }
    return out;
  }
  return value;
}

const SINK_NUMERIC_FIELDS = new Set(['kafka_partition', 'kafka_offset']);

/**
 * What to write so that the connector's offsets become exactly `snapshot`: every snapshot
 * entry, plus `offset: null` for each partition that exists now but not in the snapshot
 * (PATCH merges, so leaving those out would keep them).
 */
export function planSnapshotRestore(snapshot: OffsetEntry[], current: OffsetEntry[]): OffsetEntry[] {
  const inSnapshot = new Set(snapshot.map((e) => canonicalKey(e.partition)));
  const removals = current
    .filter((e) => !inSnapshot.has(canonicalKey(e.partition)))
    .map((e) => ({ partition: e.partition, offset: null }));
  return [...snapshot, ...removals];
}

/**
 * Undo a PATCH that wrote `written`: for each of those partitions, its snapshot entry, or
 * `null` when the snapshot did not have it (the PATCH created it). Other partitions were
 * not touched by the PATCH and need nothing.
 */
export function planUndoOfWrite(written: OffsetEntry[], snapshot: OffsetEntry[]): OffsetEntry[] {
  const before = new Map(snapshot.map((e) => [canonicalKey(e.partition), e] as const));
  return written.map((e) => before.get(canonicalKey(e.partition)) ?? { partition: e.partition, offset: null });
}

export interface OffsetMismatch {
  partition: Record<string, unknown>;
  expected: Record<string, unknown> | null;
  actual: Record<string, unknown> | null;
}

/** Requested entries whose read-back value differs (a `null` request must read back as absent). */
export function findMismatches(requested: OffsetEntry[], readBack: OffsetEntry[]): OffsetMismatch[] {
  const actual = new Map(readBack.map((e) => [canonicalKey(e.partition), e.offset] as const));
  const out: OffsetMismatch[] = [];
  for (const want of requested) {
    const got = actual.get(canonicalKey(want.partition)) ?? null;
    const same = want.offset === null ? got === null : got !== null && canonicalKey(want.offset) === canonicalKey(got);
    if (!same) out.push({ partition: want.partition, expected: want.offset, actual: got });
  }
  return out;
}

export function describeMismatches(mismatches: OffsetMismatch[], max = 5): string {
  const lines = mismatches.slice(0, max).map((m) => `${JSON.stringify(m.partition)}: asked ${JSON.stringify(m.expected)}, Connect reports ${JSON.stringify(m.actual)}`);
  if (mismatches.length > max) lines.push(`... and ${mismatches.length - max} more`);
  return lines.join('; ');
}
