// The shape of Kafka Connect offsets, checked before anything is sent to a cluster.
// Rules follow what the REST layer and the runtime accept (see docs/design.md):
// sink partitions are {kafka_topic, kafka_partition} with offsets {kafka_offset} or null; source
// partitions and offsets are flat maps of primitives. The check is stricter than Connect where
// Connect would answer with an opaque 500 later (unknown entry fields, nested values).
// Called for 100,000-partition files: one pass, a Map for duplicates, no regular expressions.
import { OpsError } from '../errors.js';
import { describe, isDigits, isPlainObject, offsetEntries, partitionKey, type ConnectorType, type OffsetEntry } from './offsets.js';

const MAX_ISSUES = 10;
const MAX_PARTITION = 2147483647; // Java int
const MAX_OFFSET = '9223372036854775807'; // Java long

/**
 * Checks that offsets fit a connector of the given type, before any request.
 * Throws an `OpsError` with code `E_OFFSETS_INVALID`; `field` is the first bad field
 * (e.g. `offsets[2].offset.kafka_offset`) and the message lists up to ten problems.
 *
 * @example validateOffsetsShape('sink', {offsets: [{partition: {kafka_topic: 't', kafka_partition: 0}, offset: {kafka_offset: 5}}]})
 */
export function validateOffsetsShape(type: ConnectorType, offsets: unknown): void {
  const list: unknown[] = offsetEntries(offsets);
  if (list.length === 0) {
    throw new OpsError('E_OFFSETS_INVALID', 'offsets: the list is empty; give at least one {"partition": {...}, "offset": {...}} entry (to clear every offset use `offsetctl reset`)', { field: 'offsets' });
  }
  const issues: Issue[] = [];
  const seen = new Map<string, number>();
  const checkEntry = type === 'sink' ? checkSinkEntry : checkSourceEntry;
  for (let i = 0; i < list.length && issues.length < MAX_ISSUES; i++) {
    const at = `offsets[${i}]`;
    const entry = list[i];
    if (!isPlainObject(entry)) {
      issues.push({ field: at, text: `expected an object {"partition": {...}, "offset": {...} or null} (got ${describe(entry)})` });
      continue;
    }
    const before = issues.length;
    checkEntryFields(entry, at, issues);
    if (issues.length > before) continue;
    checkEntry(entry as unknown as OffsetEntry, at, issues);
    if (issues.length > before) continue;
    const key = partitionKey(entry.partition as Record<string, unknown>);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else issues.push({ field: `${at}.partition`, text: `same partition as offsets[${first}]; give each partition once` });
  }
  if (issues.length > 0) throw toError(issues, list.length);
}

interface Issue {
  field: string;
  text: string;
}

function checkEntryFields(entry: Record<string, unknown>, at: string, issues: Issue[]): void {
  for (const key of Object.keys(entry)) {
    if (key !== 'partition' && key !== 'offset') issues.push({ field: `${at}.${key}`, text: 'unknown field; an entry takes only "partition" and "offset"' });
  }
  if (!('partition' in entry)) issues.push({ field: `${at}.partition`, text: 'missing; every entry needs a "partition" object' });
  else if (!isPlainObject(entry.partition)) issues.push({ field: `${at}.partition`, text: `must be an object (got ${describe(entry.partition)})` });
  if (!('offset' in entry)) issues.push({ field: `${at}.offset`, text: 'missing; give an offset object, or null to remove the partition\'s offset' });
  else if (entry.offset !== null && !isPlainObject(entry.offset)) issues.push({ field: `${at}.offset`, text: `must be an object or null (got ${describe(entry.offset)})` });
}

function checkSinkEntry(entry: OffsetEntry, at: string, issues: Issue[]): void {
  const { partition, offset } = entry;
  for (const key of Object.keys(partition)) {
    if (key !== 'kafka_topic' && key !== 'kafka_partition') {
      issues.push({ field: `${at}.partition.${key}`, text: 'unknown field for a sink connector; sink partitions take only "kafka_topic" and "kafka_partition"' });
    }
  }
  const topic = partition.kafka_topic;
  if (typeof topic !== 'string' || topic.length === 0) {
    issues.push({ field: `${at}.partition.kafka_topic`, text: `${topic === undefined ? 'missing; ' : ''}must be a non-empty topic name (got ${describe(topic)})` });
  }
  const p = partition.kafka_partition;
  if (!isPartitionNumber(p)) {
    issues.push({ field: `${at}.partition.kafka_partition`, text: `${p === undefined ? 'missing; ' : ''}must be an integer ≥ 0, as a number or a numeric string like "3" (got ${describe(p)})` });
  }
  if (offset === null) return;
  for (const key of Object.keys(offset)) {
    if (key !== 'kafka_offset') issues.push({ field: `${at}.offset.${key}`, text: 'unknown field for a sink connector; sink offsets take only "kafka_offset"' });
  }
  const o = offset.kafka_offset;
  if (typeof o === 'number' && Number.isInteger(o) && o > Number.MAX_SAFE_INTEGER) {
    issues.push({ field: `${at}.offset.kafka_offset`, text: 'too large to be read exactly from JSON as a number; write it as a string, e.g. "9007199254740993"' });
  } else if (!isOffsetNumber(o)) {
    issues.push({ field: `${at}.offset.kafka_offset`, text: `${o === undefined ? 'missing; ' : ''}must be an integer ≥ 0 or a numeric string (got ${describe(o)}); or set "offset": null to remove this partition's offset` });
  }
}

function checkSourceEntry(entry: OffsetEntry, at: string, issues: Issue[]): void {
  checkPrimitiveMap(entry.partition, `${at}.partition`, issues);
  if (entry.offset !== null) checkPrimitiveMap(entry.offset, `${at}.offset`, issues);
}

function checkPrimitiveMap(map: Record<string, unknown>, at: string, issues: Issue[]): void {
  for (const key of Object.keys(map)) {
    const v = map[key];
    if (v !== null && typeof v === 'object') {
      issues.push({ field: `${at}.${key}`, text: `source connector values must be a string, number, boolean or null (got ${describe(v)})` });
    }
  }
}

function isPartitionNumber(v: unknown): boolean {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 && v <= MAX_PARTITION;
  return typeof v === 'string' && isDigits(v, 10) && Number(v) <= MAX_PARTITION;
}

function isOffsetNumber(v: unknown): boolean {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0;
  if (typeof v !== 'string' || !isDigits(v, MAX_OFFSET.length)) return false;
  let start = 0;
  while (start < v.length - 1 && v.charCodeAt(start) === 48) start++;
  const digits = v.slice(start);
  return digits.length < MAX_OFFSET.length || (digits.length === MAX_OFFSET.length && digits <= MAX_OFFSET);
}

function toError(issues: Issue[], total: number): OpsError {
  const first = issues[0] as Issue;
  const lines = issues.map((i) => `  ${i.field}: ${i.text}`);
  const more = issues.length >= MAX_ISSUES ? `\n  (stopped after ${MAX_ISSUES} problems in ${total} entries)` : '';
  const message = issues.length === 1 ? `${first.field}: ${first.text}` : `${issues.length} problems in the offsets:\n${lines.join('\n')}${more}`;
  return new OpsError('E_OFFSETS_INVALID', message, { field: first.field });
}
