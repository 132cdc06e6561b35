// Limits checked in pre-flight, before anything is stopped: one offsets file crashed a sandbox
// worker (a 54 MB file, 700,000 partitions sent as one PATCH: java.lang.OutOfMemoryError in the
// worker, 1.8 GB in offsetctl). A set above the limits is refused (exit 2) naming the counts, the
// limit and how to raise it; a set within them is written in chunks of `chunkSize` partitions
// (Connect merges PATCHes, so chunks add up to the whole), each verified before the next.
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { OpsError } from './errors.js';

export interface OffsetLimits {
  /** Most partitions one change may write (the file's entries, or a rollback's plan). */
  maxPartitions: number;
  /** Largest offsets input, in bytes. */
  maxInputBytes: number;
  /** Partitions per PATCH; a larger set is written in several. */
  chunkSize: number;
}

export const DEFAULT_LIMITS: Readonly<OffsetLimits> = { maxPartitions: 100_000, maxInputBytes: 32 * 1024 * 1024, chunkSize: 10_000 };

export interface LimitFlags {
  maxPartitions?: string | number;
  maxOffsetsBytes?: string | number;
  chunkSize?: string | number;
}

const SOURCES = {
  maxPartitions: { flag: '--max-partitions', env: 'OFFSETCTL_MAX_PARTITIONS' },
  maxInputBytes: { flag: '--max-offsets-bytes', env: 'OFFSETCTL_MAX_OFFSETS_BYTES' },
  chunkSize: { flag: '--chunk-size', env: 'OFFSETCTL_CHUNK_SIZE' },
} as const;

/** Flag, else environment variable, else default; a value that is not a positive integer is refused (E_USAGE). */
export function resolveLimits(flags: LimitFlags = {}, env: NodeJS.ProcessEnv = process.env): OffsetLimits {
  const pick = (key: keyof OffsetLimits, flag: string | number | undefined): number => {
    const { flag: name, env: variable } = SOURCES[key];
    const raw = flag ?? env[variable];
    if (raw === undefined || raw === '') return DEFAULT_LIMITS[key];
    const n = typeof raw === 'number' ? raw : Number(raw);
    if (!Number.isSafeInteger(n) || n < 1) {
      throw new OpsError('E_USAGE', `${flag !== undefined ? name : variable} must be a positive whole number, not ${JSON.stringify(raw)}`, { field: key });
    }
    return n;
  };
  return { maxPartitions: pick('maxPartitions', flags.maxPartitions), maxInputBytes: pick('maxInputBytes', flags.maxOffsetsBytes), chunkSize: pick('chunkSize', flags.chunkSize) };
}

/** Refuses an offsets file larger than the limit before reading it (stdin is checked once read). */
export async function checkInputSize(fileOrDash: string, limits: OffsetLimits, readBytes?: number): Promise<void> {
  let bytes = readBytes;
  if (bytes === undefined && fileOrDash !== '-') bytes = await stat(fileOrDash).then((s) => (s.isFile() ? s.size : undefined), () => undefined);
  if (bytes !== undefined && bytes > limits.maxInputBytes) {
    throw new OpsError('E_PREFLIGHT', `${fileOrDash === '-' ? '<stdin>' : fileOrDash}: the offsets input ${fileOrDash === '-' ? 'goes past' : `is ${bytes.toLocaleString('en-US')} bytes, above`} the limit of ${limits.maxInputBytes.toLocaleString('en-US')} bytes; nothing was changed. Split the change into several files, or raise the limit with ${SOURCES.maxInputBytes.flag} <bytes> (env ${SOURCES.maxInputBytes.env}) if the workers have the memory for it`, { field: 'offsets' });
  }
}

/**
 * stdin that stops with the size refusal as soon as more than the limit has arrived, so a huge
 * pipe is never held in memory whole. Read lazily: nothing is consumed unless `-` was given.
 */
export function boundedStdin(limits: OffsetLimits, stdin: NodeJS.ReadableStream = process.stdin): NodeJS.ReadableStream {
  async function* bounded(): AsyncGenerator<Buffer> {
    let bytes = 0;
    for await (const chunk of stdin) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      bytes += buffer.length;
      if (bytes > limits.maxInputBytes) await checkInputSize('-', limits, bytes);
      yield buffer;
    }
  }
  return Readable.from(bounded());
}

/** Refuses a change that writes more partitions than the limit. */
export function checkPartitionCount(count: number, limits: OffsetLimits, what: string): void {
  if (count > limits.maxPartitions) {
    throw new OpsError('E_PREFLIGHT', `${what} has ${count.toLocaleString('en-US')} partitions, above the limit of ${limits.maxPartitions.toLocaleString('en-US')} per change; nothing was changed. Split it into several changes, or raise the limit with ${SOURCES.maxPartitions.flag} <n> (env ${SOURCES.maxPartitions.env}); it is written in chunks of ${limits.chunkSize.toLocaleString('en-US')} (${SOURCES.chunkSize.flag})`, { field: 'offsets' });
  }
}

/** Consecutive slices of at most `size` entries (one slice for an empty list). */
export function planChunks<T>(entries: readonly T[], size: number): T[][] {
  if (entries.length <= size) return [entries.slice()];
  const chunks: T[][] = [];
  for (let i = 0; i < entries.length; i += size) chunks.push(entries.slice(i, i + size));
  return chunks;
}
