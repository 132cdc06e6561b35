// Reading the console's forms into the ops layer's inputs. Refusals are OpsErrors naming the
// field, like the CLI's.
import { OpsError, type SinkPosition } from './ops-bridge.js';

/**
 * The table form's rows: partition, original and edited offset, in order. Only edited rows
 * become target entries; a sink's number is its kafka_offset, other offsets are JSON objects.
 */
export function tableOffsets(form: Record<string, unknown>): unknown {
  const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : v === undefined ? [] : [String(v)]);
  const partitions = list(form.partition);
  const originals = list(form.original);
  const edited = list(form.offset);
  const offsets: unknown[] = [];
  for (let i = 0; i < partitions.length; i++) {
    const value = (edited[i] ?? '').trim();
    if (value === (originals[i] ?? '').trim()) continue;
    let partition: Record<string, unknown>;
    try {
      partition = JSON.parse(partitions[i]!) as Record<string, unknown>;
    } catch {
      throw new OpsError('E_OFFSETS_INVALID', `offsets[${offsets.length}].partition: not valid JSON; reload the page`, { field: `offsets[${offsets.length}].partition` });
    }
    const sink = 'kafka_topic' in partition;
    let offset: unknown;
    if (value === '' || value === '(none)') offset = null;
    else if (sink) offset = { kafka_offset: /^-?\d+$/.test(value) ? Number(value) : value };
    else {
      try {
        offset = JSON.parse(value);
      } catch {
        throw new OpsError('E_OFFSETS_INVALID', `offsets[${offsets.length}].offset: not valid JSON (${value.slice(0, 40)}); write it as an object such as {"position": 0}`, { field: `offsets[${offsets.length}].offset` });
      }
    }
    offsets.push({ partition, offset });
  }
  if (offsets.length === 0) throw new OpsError('E_OFFSETS_INVALID', 'offsets: no row was changed; edit at least one offset, or paste JSON', { field: 'offsets' });
  return { offsets };
}

/**
 * The position form: earliest, latest, a time, or a shift by N records. The texts are checked by
 * the CLI's parser (planPosition), so a bad time or shift gets the CLI's message.
 */
export function positionOf(form: Record<string, unknown>): SinkPosition {
  const kind = str(form.position);
  if (kind === 'earliest' || kind === 'latest') return { kind };
  if (kind === 'time') return { kind, time: str(form.time) };
  if (kind === 'shift') return { kind, by: str(form.shift) };
  throw new OpsError('E_USAGE', `position: choose earliest, latest, time or shift (got ${JSON.stringify(kind)})`, { field: 'position' });
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : '';
}

