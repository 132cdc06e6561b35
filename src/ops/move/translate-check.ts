// MirrorMaker 2 translates a consumer group's offset from the offset syncs it still holds, and
// never past the record: when it holds no sync of the committed offset itself, the translation is
// the last synced record's copy plus one (Kafka 3.5+, KAFKA-14666) — safe, but every record
// between is delivered again. It keeps syncs sparse (more of them near the newest), so a sink
// stopped while its topic keeps growing is often translated a few records short: seen in CI as
// committed 14 → 14 where the exact copy was at 19.
//
// With the source Kafka cluster readable, the translation is checked record by record: the
// record the sink delivered last (committed − 1, on the source) is looked for among the target's
// copies from MirrorMaker's translation − 1 onwards, and the offset after its first copy is the
// exact position. MirrorMaker copies key, value, headers and timestamp as they are, so the true
// copy matches; taking the first match from MirrorMaker's lower bound can only land on the true
// copy or an earlier look-alike (which re-delivers, never skips).
import type { PartitionRecord } from '../../kafka/partition-records.js';
import { asLowerBound, type Translation, type TranslationRow } from './translate.js';

/** How the translation of a partition was checked against the records themselves. */
export type TranslationCheck =
  /** MirrorMaker's translation is exactly the position after the last delivered record's copy. */
  | 'exact'
  /** MirrorMaker's translation was short; the position after the copy is used instead. */
  | 'refined'
  /** Not checked (no source Kafka cluster given, nothing delivered yet, or the records are gone). */
  | 'unchecked';

/** How many copies are looked through past MirrorMaker's translation before giving up (keeping it). */
export const MAX_SCAN = 100_000;

export type PartitionReader = (side: 'source' | 'target', topic: string, partition: number, from: number, max: number) => Promise<PartitionRecord[]>;

export function sameRecord(a: PartitionRecord, b: PartitionRecord): boolean {
  if (a.timestamp !== b.timestamp) return false;
  if (!sameBytes(a.key, b.key) || !sameBytes(a.value, b.value)) return false;
  const ka = Object.keys(a.headers).sort();
  const kb = Object.keys(b.headers).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a.headers[k] === b.headers[k]);
}

function sameBytes(a: Buffer | undefined, b: Buffer | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.equals(b);
}

/**
 * The exact downstream position for one partition: the offset after the first copy of `last`
 * (the record before the committed offset) among `copies` (from MirrorMaker's translation − 1,
 * in order); undefined when no copy is among them.
 */
export function positionAfterCopy(last: PartitionRecord, copies: readonly PartitionRecord[], lowerBound: number): number | undefined {
  for (const c of copies) if (c.offset >= lowerBound - 1 && sameRecord(c, last)) return c.offset + 1;
  return undefined;
}

export interface CheckedRow extends TranslationRow {
  check?: TranslationCheck;
  /** MirrorMaker's own translation, when the check moved it. */
  mirrorMaker?: number;
}

/**
 * The `behind` rows checked from their earlier checkpoint as a lower bound (asLowerBound), or
 * undefined unless every one of them was found by its records: a lower bound left unchecked
 * would deliver again the records between the two offsets.
 */
export async function checkFromEarlierCheckpoints(t: Translation, read: PartitionReader, options: { attempts?: number; pauseMs?: number } = {}): Promise<{ rows: CheckedRow[]; offsets: Translation['offsets'] } | undefined> {
  const checked = await checkTranslation(asLowerBound(t), read, options);
  return checked.rows.every((r) => !r.lowerBound || r.check === 'exact' || r.check === 'refined') ? checked : undefined;
}

/** Each current row checked against the records (see the file's comment); the offsets follow the checked rows. */
export async function checkTranslation(t: Translation, read: PartitionReader, options: { attempts?: number; pauseMs?: number } = {}): Promise<{ rows: CheckedRow[]; offsets: Translation['offsets'] }> {
  const attempts = options.attempts ?? 5;
  const rows: CheckedRow[] = [];
  for (const row of t.rows) {
    if (row.status !== 'current' || row.downstream === undefined || row.committed <= 0) {
      rows.push(row.status === 'current' ? { ...row, check: 'unchecked' } : row);
      continue;
    }
    const [last] = await read('source', row.topic, row.partition, row.committed - 1, 1);
    if (!last || last.offset !== row.committed - 1) {
      rows.push({ ...row, check: 'unchecked' });
      continue;
    }
    // MirrorMaker may not have copied the sink's last record yet: read again a few times.
    let exact: number | undefined;
    for (let i = 0; i < attempts && exact === undefined; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, options.pauseMs ?? 1000));
      const copies = await read('target', row.topic, row.partition, Math.max(0, row.downstream - 1), MAX_SCAN);
      exact = positionAfterCopy(last, copies, row.downstream);
    }
    if (exact === undefined) rows.push({ ...row, check: 'unchecked' });
    else if (exact === row.downstream) rows.push({ ...row, check: 'exact' });
    else rows.push({ ...row, downstream: exact, check: 'refined', mirrorMaker: row.downstream });
  }
  const offsets = rows.filter((r) => r.status === 'current').map((r) => ({ partition: { kafka_topic: r.topic, kafka_partition: r.partition }, offset: { kafka_offset: r.downstream! } }));
  return { rows, offsets };
}
