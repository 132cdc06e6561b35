// How a connector's offsets moved between planning and applying, and whether that changes what
// the plan does. A running sink commits new offsets all the time: a plan to replay from offset 500
// made at 1,000 still replays from 500 at 1,200 (200 records more), which is the plan as reviewed.
// It means something else when a partition the plan would rewind is now behind its target (the
// write would skip records instead of replaying them), when an offset went backwards (someone else
// changed it), when a partition appeared or disappeared where the plan writes or removes, or when
// a partition planned as unchanged would now be changed. Those need an explicit yes.
import { diffOffsets, partitionKey, sameOffset, type DiffKind, type OffsetDiffEntry, type OffsetEntry } from '../offsets/index.js';
import type { Plan } from '../plan/index.js';

export interface PartitionMovement {
  /** Canonical JSON of the partition (as in the diff). */
  key: string;
  partition: Record<string, unknown>;
  /** The offset when planned and now (null: none). */
  planned: Record<string, unknown> | null;
  now: Record<string, unknown> | null;
  target: Record<string, unknown> | null;
  /** What the change does to the partition, as planned and now. */
  plannedKind: DiffKind;
  nowKind: DiffKind;
  /** Records replayed (positive) or skipped (negative) by the write, as planned and now, when the offsets are numbers. */
  plannedDelta?: number;
  nowDelta?: number;
  /** True when this movement changes what the plan does (see the file comment). */
  changesMeaning: boolean;
  /** Why, in words, for the face to show beside the numbers. */
  reason: string;
}

export interface Movement {
  /** Every partition whose offset moved since planning, or whose part in the change differs. */
  partitions: PartitionMovement[];
  /** Some movement changes what the plan does: applying needs an explicit yes. */
  changesMeaning: boolean;
}

/**
 * Compares the offsets a plan was made from with the offsets now, against the plan's targets.
 *
 * @example movementSince(plan, nowOffsets).changesMeaning
 */
export function movementSince(plan: Pick<Plan, 'operation' | 'currentOffsets' | 'targetOffsets' | 'diff'>, now: OffsetEntry[]): Movement {
  const mode = plan.operation === 'rewind' ? 'merge' : 'replace';
  const before = byKey(plan.diff.entries);
  const after = byKey(diffOffsets(now, plan.targetOffsets, { mode }).entries);
  const targets = new Map(plan.targetOffsets.map((e) => [partitionKey(e.partition), e.offset ?? null] as const));
  const partitions: PartitionMovement[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const b = before.get(key);
    const a = after.get(key);
    const plannedKind = b?.kind ?? 'unchanged';
    const nowKind = a?.kind ?? 'unchanged';
    const planned = b ? b.before : null;
    const current = a ? a.before : null;
    const inTarget = targets.has(key);
    // A partition the change leaves alone (a rewind's untouched ones) may move as it likes.
    if (!inTarget && plannedKind === 'unchanged' && nowKind === 'unchanged') continue;
    if (plannedKind === nowKind && sameOffset(planned, current)) continue;
    const target = inTarget ? targets.get(key) ?? null : null;
    const p = position(planned);
    const n = position(current);
    const t = position(target);
    const movement: PartitionMovement = {
      key, partition: (b ?? a)!.partition, planned, now: current, target, plannedKind, nowKind,
      ...(p !== undefined && t !== undefined ? { plannedDelta: p - t } : {}),
      ...(n !== undefined && t !== undefined ? { nowDelta: n - t } : {}),
      changesMeaning: true, reason: '',
    };
    if (plannedKind !== nowKind) {
      movement.reason = `planned as ${plannedKind}, now ${nowKind}`;
    } else if (plannedKind === 'removed') {
      // A removal removes whatever offset is there: moving on before it changes nothing of it.
      movement.changesMeaning = false;
      movement.reason = 'moved; its offset is removed either way';
    } else if (p === undefined || n === undefined) {
      movement.reason = 'its offset changed and is not a number offsetctl can compare';
    } else if (n < p) {
      movement.reason = 'went back since planning: another change moved it';
    } else if (t !== undefined && Math.sign(p - t) !== Math.sign(n - t)) {
      movement.reason = n > t ? 'planned to skip records, would now replay them' : 'now at or beyond the target: the write would skip records or do nothing';
    } else {
      movement.changesMeaning = false;
      movement.reason = t !== undefined && n > t ? `moved on by ${n - p}: ${n - p} more record(s) replayed` : `moved on by ${n - p}`;
    }
    partitions.push(movement);
  }
  return { partitions, changesMeaning: partitions.some((m) => m.changesMeaning) };
}

function byKey(entries: OffsetDiffEntry[]): Map<string, OffsetDiffEntry> {
  return new Map(entries.map((e) => [e.key, e] as const));
}

/**
 * An offset as one number when it is one: a sink's `kafka_offset`, a FileStreamSource's
 * `position`, MirrorMaker's `offset` (a single numeric field); else undefined.
 */
function position(offset: Record<string, unknown> | null): number | undefined {
  if (offset === null) return undefined;
  const values = Object.values(offset);
  if (values.length !== 1) return undefined;
  const v = values[0];
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}
