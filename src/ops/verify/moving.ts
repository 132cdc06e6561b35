// Verify by data after a change: once the connector runs again, does it move? A run that ends
// "done, RUNNING" can still hide a task that fails a minute later, a FileStream source whose file
// is gone, or a Debezium task that never gets its slot. For `--verify <duration>` this watches,
// for up to that long: the connector's and its tasks' states (FAILED ends it at once, as does
// RUNNING with no task), its offsets moving away from what the change wrote (a source re-reading,
// a sink committing what it consumed again), and for a Debezium PostgreSQL source with a
// read-only login (--source-db) the replication slot active for the new task with its
// confirmed_flush_lsn moving. It only reads; what to do with a failure (a rollback) is the face's.
import { getConnectorInfo, getOffsets } from '../connect/index.js';
import type { OpsContext } from '../context.js';
import { offsetEntries, partitionKey, sameOffset, type OffsetEntry } from '../offsets/index.js';
import { debeziumOptions, DEBEZIUM_POSTGRES, readSourceDb, showLsn, type SourceDbSettings } from '../profiles/index.js';

export interface MovingRequest {
  connector: string;
  /** How long to watch (ms). */
  durationMs: number;
  /** The offsets the change left (a rewind's targets, [] after a reset, a rollback's snapshot): moving means leaving them. */
  written: OffsetEntry[];
  /** A Debezium source's read-only login: the slot is read too. */
  sourceDb?: SourceDbSettings;
  /** Between reads (default 1 s). */
  pollMs?: number;
}

export interface MovingResult {
  passed: boolean;
  /** One sentence: what was seen. */
  reason: string;
  /** What was read, one line each (for the face to show). */
  facts: string[];
  elapsedMs: number;
}

export async function watchMoving(ctx: Pick<OpsContext, 'url' | 'http'>, req: MovingRequest): Promise<MovingResult> {
  const started = Date.now();
  const deadline = started + req.durationMs;
  const pollMs = req.pollMs ?? 1000;
  const facts: string[] = [];
  const info = await getConnectorInfo(ctx.http, ctx.url, req.connector);
  const debezium = info.config['connector.class']?.trim() === DEBEZIUM_POSTGRES && req.sourceDb !== undefined ? req.sourceDb : undefined;
  const slotName = debeziumOptions(info.config).slotName;
  const slotAtStart = debezium ? (await readSourceDb(debezium, slotName)).slot : undefined;
  const seconds = (): string => ((Date.now() - started) / 1000).toFixed(1);
  let lastState = '';
  for (;;) {
    const now = await getConnectorInfo(ctx.http, ctx.url, req.connector);
    const failed = now.tasks.find((t) => t.state === 'FAILED');
    lastState = `${now.state}${now.tasks.length === 0 ? ' with no task' : ` (tasks ${now.tasks.map((t) => `${t.id}:${t.state}`).join(' ')})`}`;
    if (now.state === 'FAILED' || failed) {
      const trace = (failed?.trace ?? '').split('\n')[0]?.trim();
      const reason = `${req.connector} is ${lastState} after ${seconds()} s${trace ? `: ${trace}` : ''}`;
      return { passed: false, reason, facts, elapsedMs: Date.now() - started };
    }
    const running = now.state === 'RUNNING' && now.tasks.length > 0 && now.tasks.every((t) => t.state === 'RUNNING');
    const moved = running ? movedPartitions(req.written, offsetEntries(await getOffsets(ctx.http, ctx.url, req.connector))) : 0;
    let slotOk = true;
    if (debezium && running) {
      const slot = (await readSourceDb(debezium, slotName)).slot;
      const confirmedMoved = slot?.confirmedFlushLsn !== undefined && slot.confirmedFlushLsn !== slotAtStart?.confirmedFlushLsn;
      // Debezium confirms to the slot what Kafka has taken (each offset commit): the slot moving is the proof.
      slotOk = slot?.active === true && confirmedMoved;
      if (slotOk) {
        facts.push(`slot ${slotName} is active (pid ${slot?.activePid ?? '?'}); confirmed_flush_lsn `
          + `${lsnText(slotAtStart?.confirmedFlushLsn)} → ${lsnText(slot?.confirmedFlushLsn)}`);
      }
    }
    if (running && moved > 0 && slotOk) {
      facts.push(`${moved} partition(s) moved past what the change wrote`);
      const reason = `${req.connector} moves: ${lastState}, offsets of ${moved} partition(s) moved within ${seconds()} s`;
      return { passed: true, reason, facts, elapsedMs: Date.now() - started };
    }
    if (Date.now() + pollMs > deadline) break;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  const slot = debezium ? (await readSourceDb(debezium, slotName).catch(() => undefined))?.slot : undefined;
  if (debezium) {
    facts.push(`slot ${slotName}: ${slot ? `${slot.active ? 'active' : 'NOT active'}, confirmed_flush_lsn ${lsnText(slot.confirmedFlushLsn)}` : 'missing'}`);
  }
  return {
    passed: false, facts, elapsedMs: Date.now() - started,
    reason: `nothing moved in ${(req.durationMs / 1000).toFixed(0)} s: ${req.connector} is ${lastState} and its offsets are still what the change wrote`
      + `${debezium && slot && !slot.active ? `; its slot ${slotName} is not active` : ''}`
      + ' (a source with nothing to read, or a sink with no lag, does not move either)',
  };
}

function lsnText(lsn: bigint | undefined): string {
  return lsn === undefined ? '(none)' : showLsn(lsn);
}

/** Partitions whose offset is not what was written (a partition that appeared counts). */
function movedPartitions(written: OffsetEntry[], now: OffsetEntry[]): number {
  const before = new Map(written.map((e) => [partitionKey(e.partition), e.offset]));
  let moved = 0;
  for (const e of now) {
    const key = partitionKey(e.partition);
    if (!before.has(key) ? e.offset !== null : !sameOffset(before.get(key) ?? null, e.offset)) moved++;
  }
  return moved;
}
