// Reading offsets back after a write, for a bounded time. Right after a PATCH that Connect
// answered 200, a GET can still show the old offsets (a source connector's offsets are read
// back from the offsets topic asynchronously; a 2,000-partition rewind on the sandbox reads
// back hundreds of entries missing, and 100 ms later all of them) or answer 500 "Failed to
// retrieve offsets". A mismatch is declared only when it persists until the deadline.
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpSender } from '../../http/client.js';
import { getOffsets } from '../connect/index.js';
import { findMismatches, offsetEntries, type OffsetEntry, type OffsetMismatch } from '../offsets/index.js';

export const DEFAULT_VERIFY_TIMEOUT_MS = 15_000;

/** Time a read-back may take to show a write: OFFSETCTL_VERIFY_TIMEOUT_MS, else 15 s. */
export function verifyTimeoutMs(env: Record<string, string | undefined>): number {
  const n = Number(env.OFFSETCTL_VERIFY_TIMEOUT_MS);
  return Number.isFinite(n) && n >= 0 && env.OFFSETCTL_VERIFY_TIMEOUT_MS !== '' ? n : DEFAULT_VERIFY_TIMEOUT_MS;
}

export interface ReadBackOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Re-reads the connector's offsets until they show `requested` or the time is up; returns the
 * mismatches of the last read (empty when the write showed). Errors (Connect's transient 500s,
 * a dropped connection) are retried too; when no read succeeded at all, the last error is thrown.
 *
 * @example const left = await readBackUntilMatch(http, url, 'orders-source', written)
 */
export async function readBackUntilMatch(http: HttpSender, url: string, connector: string, requested: OffsetEntry[], options: ReadBackOptions = {}): Promise<OffsetMismatch[]> {
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_VERIFY_TIMEOUT_MS);
  let mismatches: OffsetMismatch[] | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      mismatches = findMismatches(requested, offsetEntries(await getOffsets(http, url, connector)));
      if (mismatches.length === 0) return mismatches;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) break;
    await sleep(options.intervalMs ?? 250);
  }
  if (mismatches) return mismatches;
  throw lastError;
}
