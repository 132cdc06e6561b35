// Positions: "from 09:55", "back 5,000", "the beginning", "the end", turned into one target offset
// per partition. Pure: the flags are parsed here, and the facts about each partition (log start
// and end, committed offset, offset for the time) come in as data from the caller, so the plan is
// the same for the CLI table, JSON output and the web console.
import { OpsError } from '../errors.js';

export type Position =
  | { kind: 'time'; atMs: number; text: string }
  | { kind: 'earliest' }
  | { kind: 'latest' }
  | { kind: 'shift'; by: number }
  | { kind: 'offset'; offset: number; topic: string; partition: number };

/** The rewind flags that name a position (all optional; at most one position). */
export interface PositionFlags {
  toTime?: string;
  toEarliest?: boolean;
  toLatest?: boolean;
  shiftBy?: string;
  toOffset?: string;
  partition?: string;
}

/** True when any position flag is present. */
export function hasPosition(flags: PositionFlags): boolean {
  return flags.toTime !== undefined || flags.toEarliest === true || flags.toLatest === true || flags.shiftBy !== undefined || flags.toOffset !== undefined || flags.partition !== undefined;
}

const RELATIVE = /^-(\d+)(ms|s|m|h|d|w)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
// A date, a time and a zone: a time without a zone means different instants on different machines.
const ISO = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * The one position the flags name; E_USAGE (exit 2) for contradictions, unparsable or future
 * times, `--shift-by 0`, or `--to-offset` without `--partition`.
 *
 * @example parsePosition({ toTime: '-2h' }, Date.now()) // { kind: 'time', atMs: now - 7_200_000, ... }
 */
export function parsePosition(flags: PositionFlags, nowMs: number): Position {
  const given = [
    flags.toTime !== undefined && '--to-time',
    flags.toEarliest === true && '--to-earliest',
    flags.toLatest === true && '--to-latest',
    flags.shiftBy !== undefined && '--shift-by',
    flags.toOffset !== undefined && '--to-offset',
  ].filter((x): x is string => typeof x === 'string');
  if (given.length === 0) {
    if (flags.partition !== undefined) throw new OpsError('E_USAGE', '--partition goes with --to-offset <N>: give both', { field: 'to-offset' });
    throw new OpsError('E_USAGE', 'no position: give one of --to-time, --to-earliest, --to-latest, --shift-by, --to-offset (or --offsets <file>)', { field: 'position' });
  }
  if (given.length > 1) throw new OpsError('E_USAGE', `${given.join(' and ')} contradict each other: give one position`, { field: 'position' });
  if (flags.partition !== undefined && flags.toOffset === undefined) throw new OpsError('E_USAGE', '--partition only goes with --to-offset <N>', { field: 'partition' });

  if (flags.toTime !== undefined) return { kind: 'time', atMs: parseTime(flags.toTime, nowMs), text: flags.toTime };
  if (flags.toEarliest) return { kind: 'earliest' };
  if (flags.toLatest) return { kind: 'latest' };
  if (flags.shiftBy !== undefined) {
    const text = flags.shiftBy.trim();
    if (!/^[+-]?\d+$/.test(text)) throw new OpsError('E_USAGE', `--shift-by: expected a whole number of records like -5000 (back) or +100 (forward), got ${JSON.stringify(flags.shiftBy)}`, { field: 'shift-by' });
    const by = Number(text);
    if (by === 0) throw new OpsError('E_USAGE', '--shift-by 0 changes nothing: give a negative number to replay records or a positive one to skip them', { field: 'shift-by' });
    if (!Number.isSafeInteger(by)) throw new OpsError('E_USAGE', `--shift-by: ${text} is too large`, { field: 'shift-by' });
    return { kind: 'shift', by };
  }
  const offsetText = (flags.toOffset ?? '').trim();
  if (!/^\d+$/.test(offsetText) || !Number.isSafeInteger(Number(offsetText))) {
    throw new OpsError('E_USAGE', `--to-offset: expected an offset ≥ 0, got ${JSON.stringify(flags.toOffset)}`, { field: 'to-offset' });
  }
  if (flags.partition === undefined) throw new OpsError('E_USAGE', '--to-offset needs --partition <topic:partition> (e.g. orders:3)', { field: 'partition' });
  const cut = flags.partition.lastIndexOf(':');
  const topic = flags.partition.slice(0, cut);
  const p = flags.partition.slice(cut + 1);
  if (cut <= 0 || !/^\d+$/.test(p)) throw new OpsError('E_USAGE', `--partition: expected <topic>:<partition number> like orders:3, got ${JSON.stringify(flags.partition)}`, { field: 'partition' });
  return { kind: 'offset', offset: Number(offsetText), topic, partition: Number(p) };
}

/** The earliest time ListOffsets can look up: 1970-01-01T00:00:00Z (negative timestamps are Kafka's "latest", "earliest", …). */
export const EARLIEST_TIME_MS = 0;
/** The latest instant a JavaScript Date (and so an ISO-8601 time) can hold. */
const MAX_DATE_MS = 8.64e15;

/**
 * ISO-8601 with a zone (`2026-11-30T09:55:00Z`, `...+01:00`) or relative to now (`-2h`, `-30m`,
 * `-90s`, `-1d`). A date that does not exist (`2026-02-30`, `04-31`, hour 24) is refused rather
 * than rolled over into the next month; a time before 1970 is refused too, since Kafka reads
 * negative timestamps as "latest" (−1) or "earliest" (−2) and would land somewhere else.
 */
export function parseTime(text: string, nowMs: number): number {
  const t = text.trim();
  const rel = RELATIVE.exec(t);
  let at: number;
  if (rel) {
    const amount = Number(rel[1]);
    const ms = amount * (UNIT_MS[rel[2] as string] as number);
    if (!Number.isSafeInteger(ms) || ms > MAX_DATE_MS) {
      throw new OpsError('E_USAGE', `--to-time: ${JSON.stringify(text)} reaches back further than any record can be (${rel[1]} ${rel[2]}); use --to-earliest to replay from the start of each partition`, { field: 'to-time' });
    }
    at = nowMs - ms;
  } else if (ISO.test(t)) {
    const impossible = impossibleDate(t);
    if (impossible) {
      throw new OpsError('E_USAGE', `--to-time: ${JSON.stringify(text)} is not a real date and time (${impossible.why}); ${impossible.advice}`, { field: 'to-time' });
    }
    at = Date.parse(t.replace(' ', 'T'));
    if (Number.isNaN(at)) throw new OpsError('E_USAGE', `--to-time: ${JSON.stringify(text)} is not a real date and time`, { field: 'to-time' });
  } else {
    const hint = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(t) ? ' (add the zone: Z for UTC or an offset like +01:00)' : '';
    throw new OpsError('E_USAGE', `--to-time: cannot read ${JSON.stringify(text)}${hint}; expected ISO-8601 with a zone like 2026-11-30T09:55:00Z, or a time back from now like -2h, -30m, -90s, -1d`, { field: 'to-time' });
  }
  if (at < EARLIEST_TIME_MS) {
    throw new OpsError('E_USAGE', `--to-time: ${new Date(at).toISOString()} is before 1970-01-01T00:00:00Z, the earliest time Kafka can look up (it reads a negative timestamp as "latest" or "earliest"); use --to-earliest to replay from the start of each partition`, { field: 'to-time' });
  }
  if (at > nowMs) throw new OpsError('E_USAGE', `--to-time: ${new Date(at).toISOString()} is in the future (now is ${new Date(nowMs).toISOString()}); nothing has been written after it yet`, { field: 'to-time' });
  return at;
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Why the date or time of an ISO-8601 text does not exist (Date.parse rolls 02-30 over to 03-02),
 * and the advice that fits the part that is wrong; else undefined.
 */
function impossibleDate(text: string): { why: string; advice: string } | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?/i.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x))) as [number, number, number, number, number, number];
  const dateAdvice = 'check the day and the month';
  if (month < 1 || month > 12) return { why: `there is no month ${m[2]}`, advice: dateAdvice };
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = month === 2 && !leap ? 28 : DAYS_IN_MONTH[month - 1]!;
  if (day < 1 || day > days) return { why: `${MONTH_NAMES[month - 1]} ${year} has ${days} days`, advice: dateAdvice };
  if (hour > 23) {
    // 24:00 is how some write the midnight that ends a day: ISO-8601 (and Kafka's lookup) want 00:00 of the next one.
    const next = new Date(Date.UTC(year, month - 1, day + 1)).toISOString().slice(0, 10);
    const midnight = hour === 24 && minute === 0 && second === 0;
    const advice = midnight ? `the midnight that ends ${m[1]}-${m[2]}-${m[3]} is ${next}T00:00:00 (with the same zone)` : 'check the hour';
    return { why: `hour ${m[4]} (00 to 23)`, advice };
  }
  if (minute > 59) return { why: `minute ${m[5]} (00 to 59)`, advice: 'check the minutes' };
  if (second > 59) return { why: `second ${m[6]} (00 to 59)`, advice: 'check the seconds' };
  const zone = /([+-])(\d{2}):?(\d{2})$/.exec(text);
  if (zone && (Number(zone[2]) > 23 || Number(zone[3]) > 59)) {
    return { why: `zone offset ${zone[0]}`, advice: 'check the zone offset (-23:59 to +23:59, or Z for UTC)' };
  }
  return undefined;
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Everything known about one partition before planning. */
export interface PartitionFacts {
  topic: string;
  partition: number;
  logStart: number;
  logEnd: number;
  /** The next offset the connector will read, or null when it never committed one. */
  committed: number | null;
  /** For `--to-time`: the first offset at or after the time (the end when none is). */
  offsetForTime?: number;
}

export type PositionNote = 'never-committed' | 'clamped-to-log-start' | 'clamped-to-log-end' | 'no-record-after-time' | 'unchanged';

/** One row of the plan: what the table shows, and what the web console renders. */
export interface PositionRow {
  topic: string;
  partition: number;
  committed: number | null;
  /** null: the partition is left as it is (no base to shift from). */
  target: number | null;
  logStart: number;
  logEnd: number;
  /** Records that will be read again (target before the committed offset). */
  replay: number;
  /** Records that will be skipped (target after the committed offset). */
  skip: number;
  notes: PositionNote[];
}

export interface PositionPlan {
  /** `--to-time 2026-11-30T09:55:00.000Z`, `--shift-by -2`, ... */
  position: string;
  rows: PositionRow[];
  totals: { partitions: number; toWrite: number; replay: number; skip: number; neverCommitted: number };
}

/** The position as the operator would type it (times resolved to UTC). */
export function describePosition(position: Position): string {
  switch (position.kind) {
    case 'time': return `--to-time ${new Date(position.atMs).toISOString()}`;
    case 'earliest': return '--to-earliest';
    case 'latest': return '--to-latest';
    case 'shift': return `--shift-by ${position.by > 0 ? '+' : ''}${position.by}`;
    case 'offset': return `--to-offset ${position.offset} --partition ${position.topic}:${position.partition}`;
  }
}

/**
 * Target offset for every partition. `--shift-by` moves from the committed offset and is clamped
 * to the log; partitions never committed are left alone by `--shift-by` (nothing to shift from).
 * `--to-offset` outside the log is refused rather than clamped: the operator named that offset.
 */
export function planPositions(position: Position, facts: readonly PartitionFacts[]): PositionPlan {
  const rows: PositionRow[] = [];
  let chosen = facts;
  if (position.kind === 'offset') {
    chosen = facts.filter((f) => f.topic === position.topic && f.partition === position.partition);
    if (chosen.length === 0) {
      const known = [...new Set(facts.map((f) => `${f.topic}:0-${Math.max(...facts.filter((g) => g.topic === f.topic).map((g) => g.partition))}`))].slice(0, 5).join(', ');
      throw new OpsError('E_USAGE', `--partition ${position.topic}:${position.partition}: the connector does not consume that partition (it consumes ${known || 'nothing yet'})`, { field: 'partition' });
    }
    const f = chosen[0] as PartitionFacts;
    if (position.offset < f.logStart || position.offset > f.logEnd) {
      throw new OpsError('E_USAGE', `--to-offset ${position.offset}: ${f.topic}:${f.partition} holds offsets ${f.logStart} to ${f.logEnd} (the end is the next record to be written); pick one in that range`, { field: 'to-offset' });
    }
  }
  for (const f of chosen) {
    const notes: PositionNote[] = [];
    let target: number | null;
    switch (position.kind) {
      case 'time':
        target = f.offsetForTime ?? f.logEnd;
        if (target >= f.logEnd) notes.push('no-record-after-time');
        break;
      case 'earliest': target = f.logStart; break;
      case 'latest': target = f.logEnd; break;
      case 'offset': target = position.offset; break;
      case 'shift':
        if (f.committed === null) {
          target = null;
          break;
        }
        target = f.committed + position.by;
        if (target < f.logStart) {
          target = f.logStart;
          notes.push('clamped-to-log-start');
        } else if (target > f.logEnd) {
          target = f.logEnd;
          notes.push('clamped-to-log-end');
        }
        break;
    }
    if (f.committed === null) notes.push('never-committed');
    else if (target === f.committed) notes.push('unchanged');
    const replay = target !== null && f.committed !== null && target < f.committed ? f.committed - target : 0;
    const skip = target !== null && f.committed !== null && target > f.committed ? target - f.committed : 0;
    rows.push({ topic: f.topic, partition: f.partition, committed: f.committed, target, logStart: f.logStart, logEnd: f.logEnd, replay, skip, notes });
  }
  rows.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  const totals = { partitions: rows.length, toWrite: 0, replay: 0, skip: 0, neverCommitted: 0 };
  for (const r of rows) {
    if (r.target !== null) totals.toWrite++;
    totals.replay += r.replay;
    totals.skip += r.skip;
    if (r.committed === null) totals.neverCommitted++;
  }
  return { position: describePosition(position), rows, totals };
}
