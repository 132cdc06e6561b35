// What a change would do to a connector's offsets, partition by partition: data for the plan,
// rendered by the faces (src/cli/render/diff.ts). Partitions and offsets are compared with the
// offsets module's key and equality rule, so key order and a sink's "3" versus 3 do not create
// false differences. Linear in the number of partitions.
import { offsetEntries, partitionKey, sameOffset, type OffsetEntry } from './offsets.js';

export type DiffKind = 'unchanged' | 'changed' | 'added' | 'removed';

export interface OffsetDiffEntry {
  /** Canonical JSON of the partition; also what the renderer prints. */
  key: string;
  partition: Record<string, unknown>;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  kind: DiffKind;
}

export interface OffsetDiff {
  entries: OffsetDiffEntry[];
  counts: Record<DiffKind, number>;
}

export interface DiffOptions {
  /**
   * `merge` (default) is PATCH semantics: partitions absent from the target keep their offset.
   * `replace` means the target is the complete result (reset, rollback): absent partitions are removed.
   */
  mode?: 'merge' | 'replace';
}

/**
 * Compares current offsets with a target; both may be `{"offsets": [...]}` or a bare array.
 * An entry whose target offset is `null` is `removed` when the partition has an offset now.
 *
 * @example diffOffsets(await getOffsets(http, url, 'my-sink'), target).counts.changed
 */
export function diffOffsets(current: unknown, target: unknown, options: DiffOptions = {}): OffsetDiff {
  const now = offsetEntries(current);
  const keys: string[] = new Array<string>(now.length);
  const index = new Map<string, number>();
  for (let i = 0; i < now.length; i++) {
    const key = partitionKey((now[i] as OffsetEntry).partition);
    keys[i] = key;
    index.set(key, i);
  }
  // Which current partitions the target names; the others are reported after the target's.
  const touched = new Uint8Array(now.length);
  const entries: OffsetDiffEntry[] = [];
  const counts: Record<DiffKind, number> = { unchanged: 0, changed: 0, added: 0, removed: 0 };
  for (const entry of offsetEntries(target)) {
    const key = partitionKey(entry.partition);
    const at = index.get(key);
    let before: Record<string, unknown> | null = null;
    if (at !== undefined) {
      touched[at] = 1;
      before = (now[at] as OffsetEntry).offset ?? null;
    }
    const after = entry.offset ?? null;
    const kind: DiffKind =
      before === null ? (after === null ? 'unchanged' : 'added') : after === null ? 'removed' : sameOffset(before, after) ? 'unchanged' : 'changed';
    counts[kind]++;
    entries.push({ key, partition: entry.partition, before, after, kind });
  }
  for (let i = 0; i < now.length; i++) {
    const key = keys[i] as string;
    // A partition listed twice by the cluster is reported once (its last listing, as the Map holds).
    if (touched[i] === 1 || index.get(key) !== i) continue;
    const entry = now[i] as OffsetEntry;
    const kind: DiffKind = options.mode === 'replace' && entry.offset !== null ? 'removed' : 'unchanged';
    counts[kind]++;
    entries.push({ key, partition: entry.partition, before: entry.offset, after: kind === 'removed' ? null : entry.offset, kind });
  }
  return { entries, counts };
}
