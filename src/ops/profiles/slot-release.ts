// Waiting for a replication slot to be let go (a move of a Debezium PostgreSQL source). One slot
// streams to one client: when the new connector's task starts while the old task's walsender still
// holds the slot, Debezium reads 'replication slot "…" is active for PID …' and never streams, while
// Kafka Connect reports it RUNNING. A stopped task is gone from Connect's status before its
// replication connection is closed (a task that does not stop within task.shutdown.graceful.timeout.ms
// is abandoned, its thread still connected), so the move reads pg_replication_slots itself.
import { setTimeout as sleep } from 'node:timers/promises';
import { readSourceDb, type SourceDbSettings } from './source-db.js';

/** How long a move waits by default for the old task to let go of the slot. */
export const SLOT_RELEASE_WAIT_MS = 60_000;

export interface SlotRelease {
  /** The slot is inactive (or does not exist: nobody holds it). */
  released: boolean;
  exists: boolean;
  /** From the first read to the last. */
  waitedMs: number;
  /** Who held it at the last read. */
  activePid?: number;
}

/** Reads the slot every `intervalMs` until it is inactive or `timeoutMs` have passed; the database's errors are thrown (OpsError). */
export async function awaitSlotReleased(settings: SourceDbSettings, slotName: string,
  options: { timeoutMs: number; intervalMs?: number; signal?: AbortSignal }): Promise<SlotRelease> {
  const started = performance.now();
  for (;;) {
    const slot = (await readSourceDb(settings, slotName)).slot;
    const waitedMs = Math.round(performance.now() - started);
    if (!slot) return { released: true, exists: false, waitedMs };
    if (!slot.active) return { released: true, exists: true, waitedMs };
    if (waitedMs >= options.timeoutMs || options.signal?.aborted) {
      return { released: false, exists: true, waitedMs, ...(slot.activePid !== undefined ? { activePid: slot.activePid } : {}) };
    }
    await sleep(options.intervalMs ?? 500, undefined, options.signal ? { signal: options.signal } : {}).catch(() => undefined);
  }
}
