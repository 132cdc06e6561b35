// Targets beyond a partition's end. A sink offset past the log end (kafka_offset 99999 when the
// log ends at 200) is accepted by Connect, and the consumer then finds it out of range and resets
// (auto.offset.reset, `earliest` for Connect sinks): the sink replays everything. A source
// position past the end of what it reads is known only for plugins whose positions are: the
// FileStreamSource's position is a byte offset in its file. Such targets are shown with the diff
// and need an explicit yes (--allow-forward for scripts): the plan carries them (Plan.forwardTargets),
// the face shows them and asks.
import { statSync } from 'node:fs';
import type { TopicPartitions } from '../../kafka/admin.js';
import type { OffsetEntry } from '../offsets/index.js';

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
    if (e.offset === null || !Number.isFinite(wanted) || end === undefined || Math.trunc(wanted) <= end) return;
    out.push({ index, partition: e.partition, field: 'kafka_offset', target: wanted, end, endText: `the log ends at ${end}` });
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

