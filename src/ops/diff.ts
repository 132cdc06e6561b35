// What a change would do to a connector's offsets, partition by partition, shown before the
// operator confirms. Partitions are matched by canonical JSON (see partitionKey), so key order
// and a sink's "3" versus 3 do not create false differences. Linear in the number of partitions.
import { canonicalJson, offsetsList, partitionKey, type ConnectorOffset } from './offsets-shape.js';

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
  const now = offsetsList(current) as ConnectorOffset[];
  const keys: string[] = new Array<string>(now.length);
  const index = new Map<string, number>();
  for (let i = 0; i < now.length; i++) {
    const key = partitionKey((now[i] as ConnectorOffset).partition);
    keys[i] = key;
    index.set(key, i);
  }
  // Which current partitions the target names; the others are reported after the target's.
  const touched = new Uint8Array(now.length);
  const entries: OffsetDiffEntry[] = [];
  const counts: Record<DiffKind, number> = { unchanged: 0, changed: 0, added: 0, removed: 0 };
  for (const entry of offsetsList(target) as ConnectorOffset[]) {
    const key = partitionKey(entry.partition);
    const at = index.get(key);
    let before: Record<string, unknown> | null = null;
    if (at !== undefined) {
      touched[at] = 1;
      before = (now[at] as ConnectorOffset).offset ?? null;
    }
    const after = entry.offset ?? null;
    const kind: DiffKind =
      before === null ? (after === null ? 'unchanged' : 'added') : after === null ? 'removed' : sameValue(before, after) ? 'unchanged' : 'changed';
    counts[kind]++;
    entries.push({ key, partition: entry.partition, before, after, kind });
  }
  for (let i = 0; i < now.length; i++) {
    const key = keys[i] as string;
    // A partition listed twice by the cluster is reported once (its last listing, as the Map holds).
    if (touched[i] === 1 || index.get(key) !== i) continue;
    const entry = now[i] as ConnectorOffset;
    const kind: DiffKind = options.mode === 'replace' && entry.offset !== null ? 'removed' : 'unchanged';
    counts[kind]++;
    entries.push({ key, partition: entry.partition, before: entry.offset, after: kind === 'removed' ? null : entry.offset, kind });
  }
  return { entries, counts };
}

export interface RenderDiffOptions {
  /** ANSI colours (the CLI passes true only for a terminal). */
  color?: boolean;
  /** List unchanged partitions too; by default only their count is shown. */
  showUnchanged?: boolean;
}

const MARK: Record<DiffKind, string> = { unchanged: '=', changed: '~', added: '+', removed: '-' };
const COLOR: Record<DiffKind, string> = { unchanged: '\x1b[2m', changed: '\x1b[33m', added: '\x1b[32m', removed: '\x1b[31m' };
const RESET = '\x1b[0m';

/** One line per partition (`~ partition: before → after`) and a summary line. */
export function renderDiff(diff: OffsetDiff, options: RenderDiffOptions = {}): string {
  const lines: string[] = [];
  for (const e of diff.entries) {
    if (e.kind === 'unchanged' && !options.showUnchanged) continue;
    const before = e.before === null ? '(none)' : offsetText(e.before);
    const change = e.kind === 'unchanged' ? before : `${before} → ${e.after === null ? '(removed)' : offsetText(e.after)}`;
    const line = `${MARK[e.kind]} ${e.key}: ${change}`;
    lines.push(options.color ? COLOR[e.kind] + line + RESET : line);
  }
  const { changed, added, removed, unchanged } = diff.counts;
  lines.push(
    changed + added + removed === 0
      ? `No change: the target equals the current offsets (${unchanged} partition${unchanged === 1 ? '' : 's'}).`
      : `${changed} changed, ${added} added, ${removed} removed, ${unchanged} unchanged.`,
  );
  return lines.join('\n');
}

/** Deep JSON equality without building strings; a sink's kafka_offset "5" equals 5. */
function sameValue(a: unknown, b: unknown, key?: string): boolean {
  if (a === b) return true;
  if (key === 'kafka_offset' && (typeof a === 'string' || typeof b === 'string')) return String(a) === String(b) || Number(a) === Number(b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k)) return false;
    if (!sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], k)) return false;
  }
  return true;
}

/** Canonical text of an offset; a sink's numeric-string kafka_offset reads as the number. */
function offsetText(offset: Record<string, unknown>): string {
  const o = offset.kafka_offset;
  if (typeof o === 'string' && o.length > 0 && o.length < 16 && Number.isSafeInteger(Number(o))) return canonicalJson({ ...offset, kafka_offset: Number(o) });
  return canonicalJson(offset);
}
