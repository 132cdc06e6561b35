// Verify by data after a change: once the connector runs again, does it move? A run that ends
// "done, RUNNING" can still hide a task that fails a minute later, a FileStream source whose file
// is gone, or a Debezium task that never gets its slot. For `--verify <duration>` this watches,
// for up to that long: the connector's and its tasks' states (FAILED ends it at once, as does
// RUNNING with no task), its offsets moving away from what the change wrote (a source re-reading,
// a sink committing what it consumed again), and for a Debezium PostgreSQL source with a
// read-only login (--source-db) the replication slot active for the new task with its
// confirmed_flush_lsn moving. It only reads; what to do with a failure (a rollback) is the face's.
import type { KafkaSettings } from '../../kafka/connection.js';
import type { NewRecordWatch, SeenRecord } from '../../kafka/new-records.js';
import { getConnectorInfo, getOffsets } from '../connect/index.js';
import type { OpsContext } from '../context.js';
import { offsetEntries, partitionKey, sameOffset, type OffsetEntry } from '../offsets/index.js';
import { capturedRowChanges, debeziumOptions, DEBEZIUM_POSTGRES, readSourceDb, showLsn, type SourceDbSettings } from '../profiles/index.js';
import {
  debeziumBacklog, describeRecord, firstConsumed, includeList, markOutputs, sinkBacklog, sinkPositions, type Backlog, type RecordMark,
} from './records.js';

export interface MovingRequest {
  connector: string;
  /** How long to watch (ms). */
  durationMs: number;
  /** The offsets the change left (a rewind's targets, [] after a reset, a rollback's snapshot): moving means leaving them. */
  written: OffsetEntry[];
  /** A Debezium source's read-only login: the slot is read too. */
  sourceDb?: SourceDbSettings;
  /** The Kafka cluster the connector writes to or reads from: the first new records are read there (without it they are not). */
  kafka?: KafkaSettings;
  /** A source's topics marked before the change (markOutputs); without it they are marked when the watch begins. The watch stops it. */
  mark?: RecordMark;
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
  /** A source's first new record on each of its topics, or the first record a sink consumed (in the order seen). */
  firstRecords: SeenRecord[];
  /** When it failed: was there anything to move for? idle=true (no new rows, no lag) is not a reason to roll back. */
  backlog?: Backlog;
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
  const changesAtStart = debezium ? await capturedRowChanges(debezium, includeList(info.config)) : undefined;
  // A source's topics marked at their end (before the change, else now): what comes after is what the connector wrote since.
  const mark = req.mark ?? (req.kafka && info.type === 'source' ? await markOutputs(ctx, req.connector, req.kafka) : undefined);
  const topics = mark?.topics ?? [];
  const watch = mark?.watch;
  if (info.type === 'source') {
    facts.push(!req.kafka ? 'new records: not read (no Kafka bootstrap: --bootstrap, OFFSETCTL_BOOTSTRAP or the context\'s bootstrap)'
      : topics.length === 0 ? 'new records: not read (Connect reports no topic for it, and it names none)'
        : `new records: watching ${topics.join(', ')} from their end offsets`);
  }
  try {
    const seen = await watchLoop(ctx, req, { started, deadline, pollMs, facts, debezium, slotName, slotAtStart, watch, markedAt: mark?.at ?? started });
    if (seen.passed || seen.movedSink.length > 0) {
      const first = req.kafka && seen.movedSink.length > 0 ? await firstConsumed(req.kafka, seen.movedSink) : undefined;
      if (first) facts.push(`first record consumed: ${describeRecord(first)}`);
      return { ...seen.result, facts, firstRecords: first ? [first] : watch?.first() ?? [] };
    }
    if (watch) for (const e of watch.errors) facts.push(`new records: could not read ${e}`);
    // Nothing came: was there anything to come? (figures for the account, and no rollback when idle)
    const positions = info.type === 'sink' ? sinkPositions(req.written) : [];
    const backlog = debezium && changesAtStart !== undefined ? await debeziumBacklog(debezium, info.config, changesAtStart).catch(() => undefined)
      : req.kafka && positions.length > 0 ? await sinkBacklog(req.kafka, positions).catch(() => undefined) : undefined;
    if (backlog) facts.push(...backlog.facts);
    const result = seen.result;
    const why = backlog ? `; ${backlog.said}` : ' (a source with nothing to read, or a sink with no lag, does not move either)';
    return { ...result, reason: `${result.reason}${why}`, facts, firstRecords: [], ...(backlog ? { backlog } : {}) };
  } finally {
    await watch?.stop();
  }
}

interface LoopState {
  started: number;
  deadline: number;
  pollMs: number;
  facts: string[];
  debezium: SourceDbSettings | undefined;
  slotName: string;
  slotAtStart: Awaited<ReturnType<typeof readSourceDb>>['slot'];
  watch: NewRecordWatch | undefined;
  markedAt: number;
}

interface LoopResult {
  passed: boolean;
  result: Omit<MovingResult, 'firstRecords'>;
  /** A sink's partitions that moved, at the position they were left at (their first record is the first consumed). */
  movedSink: ReturnType<typeof sinkPositions>;
}

async function watchLoop(ctx: Pick<OpsContext, 'url' | 'http'>, req: MovingRequest, s: LoopState): Promise<LoopResult> {
  const { started, facts, debezium, slotName, slotAtStart, watch } = s;
  const seconds = (): string => ((Date.now() - started) / 1000).toFixed(1);
  const done = (passed: boolean, reason: string, movedSink: LoopResult['movedSink'] = []): LoopResult =>
    ({ passed, movedSink, result: { passed, reason, facts, elapsedMs: Date.now() - started } });
  let lastState = '';
  let movedAt: string | undefined;
  for (;;) {
    const now = await getConnectorInfo(ctx.http, ctx.url, req.connector);
    const failed = now.tasks.find((t) => t.state === 'FAILED');
    lastState = `${now.state}${now.tasks.length === 0 ? ' with no task' : ` (tasks ${now.tasks.map((t) => `${t.id}:${t.state}`).join(' ')})`}`;
    if (now.state === 'FAILED' || failed) {
      const trace = (failed?.trace ?? '').split('\n')[0]?.trim();
      return done(false, `${req.connector} is ${lastState} after ${seconds()} s${trace ? `: ${trace}` : ''}`);
    }
    const running = now.state === 'RUNNING' && now.tasks.length > 0 && now.tasks.every((t) => t.state === 'RUNNING');
    const moved = running ? movedPartitions(req.written, offsetEntries(await getOffsets(ctx.http, ctx.url, req.connector))) : [];
    let slotOk = true;
    if (debezium && running) {
      const slot = (await readSourceDb(debezium, slotName)).slot;
      const confirmedMoved = slot?.confirmedFlushLsn !== undefined && slot.confirmedFlushLsn !== slotAtStart?.confirmedFlushLsn;
      // Debezium confirms to the slot what Kafka has taken (each offset commit): the slot moving is the proof.
      slotOk = slot?.active === true && confirmedMoved;
      if (slotOk && movedAt === undefined) {
        facts.push(`slot ${slotName} is active (pid ${slot?.activePid ?? '?'}); confirmed_flush_lsn `
          + `${lsnText(slotAtStart?.confirmedFlushLsn)} → ${lsnText(slot?.confirmedFlushLsn)}`);
      }
    }
    const records = watch?.first() ?? [];
    if (running && moved.length > 0 && slotOk) {
      movedAt ??= seconds();
      // A source's records land before its offsets are committed: with its topics watched, the
      // records are the proof, and they are waited for (until the deadline) once the offsets moved.
      if (!watch || records.length > 0 || Date.now() + s.pollMs > s.deadline) {
        facts.push(`${moved.length} partition(s) moved past what the change wrote (seen ${movedAt} s after the watch began)`);
        for (const r of records) facts.push(`first new record: ${describeRecord(r, s.markedAt)}`);
        if (watch && records.length === 0) facts.push('no new record was seen on its topics (a transform that drops records, or another cluster?)');
        const what = records.length > 0 ? `, ${records.length} topic(s) with new records` : '';
        return done(true, `${req.connector} moves: ${lastState}, offsets of ${moved.length} partition(s) moved within ${movedAt} s${what}`,
          sinkPositions(req.written).filter((p) => moved.some((m) => sameSinkPartition(m, p.topic, p.partition))));
      }
    }
    if (Date.now() + s.pollMs > s.deadline) break;
    await new Promise((r) => setTimeout(r, s.pollMs));
  }
  const slot = debezium ? (await readSourceDb(debezium, slotName).catch(() => undefined))?.slot : undefined;
  if (debezium) {
    facts.push(`slot ${slotName}: ${slot ? `${slot.active ? 'active' : 'NOT active'}, confirmed_flush_lsn ${lsnText(slot.confirmedFlushLsn)}` : 'missing'}`);
  }
  for (const r of watch?.first() ?? []) facts.push(`new record, though its offsets did not move: ${describeRecord(r, s.markedAt)}`);
  const still = `${req.connector} is ${lastState} and its offsets are still what the change wrote`;
  return done(false, `nothing moved in ${(req.durationMs / 1000).toFixed(0)} s: ${still}`
    + `${debezium && slot && !slot.active ? `; its slot ${slotName} is not active` : ''}`);
}

function sameSinkPartition(e: OffsetEntry, topic: string, partition: number): boolean {
  return partitionKey(e.partition) === partitionKey({ kafka_topic: topic, kafka_partition: partition });
}

function lsnText(lsn: bigint | undefined): string {
  return lsn === undefined ? '(none)' : showLsn(lsn);
}

/** Entries whose offset is not what was written (a partition that appeared counts). */
function movedPartitions(written: OffsetEntry[], now: OffsetEntry[]): OffsetEntry[] {
  const before = new Map(written.map((e) => [partitionKey(e.partition), e.offset]));
  return now.filter((e) => {
    const key = partitionKey(e.partition);
    return !before.has(key) ? e.offset !== null : !sameOffset(before.get(key) ?? null, e.offset);
  });
}
