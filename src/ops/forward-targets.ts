// Targets beyond a partition's end. A sink offset past the log end (kafka_offset 99999 when the
// log ends at 200) is accepted by Connect, and the consumer then finds it out of range and resets
// (auto.offset.reset, `earliest` for Connect sinks): the sink replays everything. A source
// position past the end of what it reads is known only for plugins whose positions are: the
// FileStreamSource's position is a byte offset in its file. Such targets are shown with the diff
// and need an explicit yes (--allow-forward for scripts).
import { statSync } from 'node:fs';
import type { TopicPartitions } from '../kafka/topic-partitions.js';
import { OpsError } from './errors.js';
import type { OffsetEntry } from './offsets-plan.js';
import { confirm } from './preflight-confirm.js';

export interface ForwardTarget {
  index: number;
  partition: Record<string, unknown>;
  field: 'kafka_offset' | 'position';
  target: number;
  end: number;
  /** "the log ends at 200" / "the file has 120 bytes". */
  endText: string;
}

/** Sink entries whose kafka_offset is past the partition's log end offset. */
export function sinkForwardTargets(target: OffsetEntry[], topics: Map<string, TopicPartitions> | undefined): ForwardTarget[] {
  if (!topics) return [];
  const out: ForwardTarget[] = [];
  target.forEach((e, index) => {
    const wanted = Number(e.offset?.kafka_offset);
    const end = topics.get(String(e.partition.kafka_topic))?.endOffsets.get(Number(e.partition.kafka_partition));
    if (e.offset === null || !Number.isFinite(wanted) || end === undefined || BigInt(Math.trunc(wanted)) <= end) return;
    out.push({ index, partition: e.partition, field: 'kafka_offset', target: wanted, end: Number(end), endText: `the log ends at ${end}` });
  });
  return out;
}

/** FileStreamSource entries whose position is past the size of the file, when the file can be read from here. */
export function fileSourceForwardTargets(config: Record<string, string>, target: OffsetEntry[]): ForwardTarget[] {
  if (!/FileStreamSource(Connector)?$/.test(config['connector.class'] ?? '')) return [];
  const out: ForwardTarget[] = [];
  target.forEach((e, index) => {
    const wanted = Number(e.offset?.position);
    const file = e.partition.filename;
    if (e.offset === null || !Number.isFinite(wanted) || typeof file !== 'string') return;
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      return; // the file lives on the worker's machine, or not yet: unknown
    }
    if (wanted > size) out.push({ index, partition: e.partition, field: 'position', target: wanted, end: size, endText: `the file has ${size} bytes` });
  });
  return out;
}

/** Lines for the diff: one per target beyond the end, with what Connect will do about it. */
export function describeForwardTargets(forward: ForwardTarget[], max = 20): string[] {
  if (forward.length === 0) return [];
  const lines = [`! ${forward.length} target(s) lie beyond the end of their partition:`];
  for (const f of forward.slice(0, max)) lines.push(`!   ${JSON.stringify(f.partition)}: ${f.field} ${f.target}, but ${f.endText}`);
  if (forward.length > max) lines.push(`!   ... and ${forward.length - max} more`);
  lines.push('!   A sink then finds its offset out of range and resets to the earliest record (it replays the partition); a source skips what it has not read.');
  return lines;
}

/** The extra yes such targets need: --allow-forward, or an answer at a terminal; --yes alone is not enough. */
export async function confirmForwardTargets(forward: ForwardTarget[], flags: { allowForward?: boolean; yes?: boolean }): Promise<void> {
  if (forward.length === 0 || flags.allowForward) return;
  const first = forward[0]!;
  const summary = `${forward.length} target(s) lie beyond the end of their partition (offsets[${first.index}]: ${first.field} ${first.target}, but ${first.endText})`;
  if (flags.yes || process.stdin.isTTY !== true) {
    throw new OpsError('E_PREFLIGHT', `${summary}; pass --allow-forward to write them anyway; nothing was changed`, { field: 'offsets' });
  }
  await confirm(`${summary}. Write them anyway?`);
}
