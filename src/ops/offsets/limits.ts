// Limits checked in pre-flight, before anything is stopped: one offsets file crashed a sandbox
// worker (a 54 MB file, 700,000 partitions sent as one PATCH: java.lang.OutOfMemoryError in the
// worker, 1.8 GB in offsetctl). A set above the limits is refused (exit 2) naming the counts, the
// limit and how to raise it; a set within them is written in chunks of `chunkSize` partitions
// (Connect merges PATCHes, so chunks add up to the whole), each verified before the next.
// Pure: the face resolves flags and environment (resolveLimits) and passes the limits in; the
// size of an offsets file or stdin is checked where it is read (src/cli/offsets-limits.ts).
import { OpsError } from '../errors.js';

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

export const LIMIT_SOURCES = {
  maxPartitions: { flag: '--max-partitions', env: 'OFFSETCTL_MAX_PARTITIONS' },
  maxInputBytes: { flag: '--max-offsets-bytes', env: 'OFFSETCTL_MAX_OFFSETS_BYTES' },
  chunkSize: { flag: '--chunk-size', env: 'OFFSETCTL_CHUNK_SIZE' },
} as const;

/** Flag, else environment variable, else default; a value that is not a positive integer is refused (E_USAGE). */
export function resolveLimits(flags: LimitFlags, env: Record<string, string | undefined>): OffsetLimits {
  const pick = (key: keyof OffsetLimits, flag: string | number | undefined): number => {
    const { flag: name, env: variable } = LIMIT_SOURCES[key];
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

/** Refuses a change that writes more partitions than the limit. */
export function checkPartitionCount(count: number, limits: OffsetLimits, what: string): void {
  if (count > limits.maxPartitions) {
    throw new OpsError('E_PREFLIGHT', `${what} has ${count.toLocaleString('en-US')} partitions, above the limit of ${limits.maxPartitions.toLocaleString('en-US')} per change; nothing was changed. Split it into several changes, or raise the limit with ${LIMIT_SOURCES.maxPartitions.flag} <n> (env ${LIMIT_SOURCES.maxPartitions.env}); it is written in chunks of ${limits.chunkSize.toLocaleString('en-US')} (${LIMIT_SOURCES.chunkSize.flag})`, { field: 'offsets' });
  }
}

/** Consecutive slices of at most `size` entries (one slice for an empty list). */
export function planChunks<T>(entries: readonly T[], size: number): T[][] {
  if (entries.length <= size) return [entries.slice()];
  const chunks: T[][] = [];
  for (let i = 0; i < entries.length; i += size) chunks.push(entries.slice(i, i + size));
  return chunks;
}
