// How many records a sink's change delivers again: per partition, committed − target when the
// target is lower, and partitions whose offset is removed (everything still in them). The plan's
// positions table counts the same from the broker when the targets came from a position.
import { partitionKey, type OffsetEntry } from '../offsets/index.js';
import type { Replayed } from './profile.js';

export function replayedRecords(current: readonly OffsetEntry[], target: readonly OffsetEntry[], mode: 'merge' | 'replace' = 'merge'): Replayed {
  const now = new Map(current.map((e) => [partitionKey(e.partition), sinkOffset(e.offset)]));
  let records = 0;
  let wholePartitions = 0;
  const named = new Set<string>();
  for (const t of target) {
    const key = partitionKey(t.partition);
    named.add(key);
    const before = now.get(key);
    const after = sinkOffset(t.offset);
    if (after === undefined) {
      if (before !== undefined) wholePartitions++;
      continue;
    }
    if (before !== undefined && after < before) records += before - after;
  }
  // A rollback or a reset replaces the whole set: partitions it leaves out lose their offsets.
  if (mode === 'replace') for (const [key, before] of now) if (!named.has(key) && before !== undefined) wholePartitions++;
  return { records, wholePartitions };
}

function sinkOffset(offset: OffsetEntry['offset']): number | undefined {
  const v = offset?.['kafka_offset'];
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}
