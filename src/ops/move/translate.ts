// A sink moved to a Connect cluster on another Kafka cluster: its offsets are its consumer
// group's on the old Kafka cluster and mean nothing on the new one. MirrorMaker 2's
// MirrorCheckpointConnector translates the group's committed offsets into the target cluster's
// (src/kafka/checkpoints.ts reads them); this turns the sink's committed offsets and the
// checkpoints into the offsets to write, and says per partition whether the translation is
// current: a checkpoint translates the upstream offset it names, so it is usable only when that
// is exactly the offset the stopped sink committed (an older one would re-deliver or skip).
import type { Checkpoint } from '../../kafka/checkpoints.js';
import type { OffsetEntry } from '../offsets/index.js';

export type TranslationStatus = 'current' | 'behind' | 'missing' | 'renamed';

export interface TranslationRow {
  topic: string;
  partition: number;
  /** The sink's committed offset on the old Kafka cluster. */
  committed: number;
  /** The checkpoint's upstream offset (what it translates) and its translation. */
  upstream?: number;
  downstream?: number;
  /** The topic name on the target when MirrorMaker renamed it (DefaultReplicationPolicy). */
  renamedTo?: string;
  status: TranslationStatus;
  /** The checkpoint was of an earlier offset, taken as a lower bound to check by records (asLowerBound). */
  lowerBound?: boolean;
}

export interface Translation {
  rows: TranslationRow[];
  /** The translated offsets in Kafka Connect's sink shape (only rows that are `current`). */
  offsets: OffsetEntry[];
}

/** The sink's committed offsets (Connect's `{kafka_topic, kafka_partition}` → `{kafka_offset}`), null offsets left out. */
export function committedSinkOffsets(entries: readonly OffsetEntry[]): Array<{ topic: string; partition: number; offset: number }> {
  const out: Array<{ topic: string; partition: number; offset: number }> = [];
  for (const e of entries) {
    const offset = e.offset?.['kafka_offset'];
    if (offset === undefined || offset === null) continue;
    out.push({ topic: String(e.partition['kafka_topic']), partition: Number(e.partition['kafka_partition']), offset: Number(offset) });
  }
  return out.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}

export function translateSinkOffsets(committed: readonly OffsetEntry[], checkpoints: ReadonlyMap<string, Checkpoint>): Translation {
  const rows: TranslationRow[] = [];
  for (const c of committedSinkOffsets(committed)) {
    const cp = checkpoints.get(`${c.topic}:${c.partition}`);
    if (!cp) {
      // MirrorMaker's default policy names the copy `<alias>.<topic>`: the checkpoint is there,
      // but this sink's `topics` name the original, which the target cluster does not have.
      const renamed = [...checkpoints.values()].find((x) => x.partition === c.partition && x.topic.endsWith(`.${c.topic}`));
      rows.push({ topic: c.topic, partition: c.partition, committed: c.offset, status: renamed ? 'renamed' : 'missing', ...(renamed ? { renamedTo: renamed.topic } : {}) });
      continue;
    }
    const status: TranslationStatus = cp.upstreamOffset === c.offset ? 'current' : 'behind';
    rows.push({ topic: c.topic, partition: c.partition, committed: c.offset, upstream: cp.upstreamOffset, downstream: cp.downstreamOffset, status });
  }
  return withOffsets(rows);
}

/** Why a translation cannot be used (missing or renamed partitions), or undefined. */
export function translationRefusal(t: Translation, group: string, topic: string): string | undefined {
  const missing = t.rows.filter((r) => r.status === 'missing');
  const renamed = t.rows.filter((r) => r.status === 'renamed');
  if (renamed.length > 0) {
    const r = renamed[0] as TranslationRow;
    return `MirrorMaker 2 copies ${r.topic} to the target cluster as ${r.renamedTo} (its replication policy renames topics), but the sink reads ${r.topic}: run MirrorMaker with replication.policy.class=org.apache.kafka.connect.mirror.IdentityReplicationPolicy, or copy the sink to the renamed topics first`;
  }
  if (missing.length > 0) {
    const list = missing.slice(0, 5).map((r) => `${r.topic}:${r.partition}`).join(', ');
    return `${topic} has no checkpoint of group ${group} for ${list}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}: MirrorCheckpointConnector must follow that group (its groups.exclude default, "console-consumer-.*, connect-.*, __.*", leaves out every Kafka Connect sink group) and MirrorSourceConnector must replicate those topics`;
  }
  return undefined;
}

/** The partitions whose checkpoint still translates an older offset than the one committed. */
export function behind(t: Translation): TranslationRow[] {
  return t.rows.filter((r) => r.status === 'behind');
}

/**
 * The translation with each `behind` row's checkpoint taken as a lower bound of the committed
 * offset's position (status `current`, `lowerBound` set), for a check record by record only:
 * MirrorMaker's translation of an earlier offset is no further than that offset's copy, which is
 * no further than the committed offset's. Used as it is, it would deliver again what lies between.
 */
export function asLowerBound(t: Translation): Translation {
  return withOffsets(t.rows.map((r) => (r.status === 'behind' ? { ...r, status: 'current', lowerBound: true } : r)));
}

/**
 * Two readings of the checkpoints for one stopped sink, as one: per partition the current
 * translation with the higher downstream offset. MirrorMaker translates from the offset syncs it
 * holds, and never past the record: an offset without a sync of its own becomes the last synced
 * one plus one, which re-delivers what lies between. A later checkpoint of the same committed
 * offset, made from more syncs, is as safe and closer, so the higher one is kept.
 */
export function closerTranslation(a: Translation, b: Translation): Translation {
  const key = (topic: unknown, partition: unknown): string => `${String(topic)}:${String(partition)}`;
  const better = new Map<string, TranslationRow>();
  for (const row of b.rows) if (row.status === 'current') better.set(key(row.topic, row.partition), row);
  const rows = a.rows.map((row) => {
    const next = better.get(key(row.topic, row.partition));
    return row.status === 'current' && next && next.committed === row.committed && (next.downstream ?? -1) > (row.downstream ?? -1) ? next : row;
  });
  return withOffsets(rows);
}

/** The rows, and the offsets to write: each current row's translation in Kafka Connect's sink shape. */
function withOffsets(rows: TranslationRow[]): Translation {
  const offsets = rows.filter((r) => r.status === 'current').map((r) => ({ partition: { kafka_topic: r.topic, kafka_partition: r.partition }, offset: { kafka_offset: r.downstream! } }));
  return { rows, offsets };
}
