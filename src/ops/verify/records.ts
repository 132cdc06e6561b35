// The data half of `--verify`: which topics a source writes to, the first new records seen there,
// the first record a sink consumed, and — when nothing came — whether there was anything to come
// (an idle source or a sink with no lag is not a failure to roll back).
import { KafkaAdmin, tpKey } from '../../kafka/admin.js';
import type { KafkaSettings } from '../../kafka/connection.js';
import { NewRecordWatch, recordAt, type SeenRecord } from '../../kafka/new-records.js';
import { getConnectorInfo, getConnectorTopics } from '../connect/index.js';
import type { ConnectorInfo } from '../connect/index.js';
import type { OpsContext } from '../context.js';
import type { OffsetEntry } from '../offsets/index.js';
import { capturedRowChanges, debeziumOptions, DEBEZIUM_POSTGRES, readSourceDb, showLsn, type SourceDbSettings } from '../profiles/index.js';

/** A sink's partition and the offset it was left at (what it consumes next). */
export interface SinkPosition {
  topic: string;
  partition: number;
  offset: number;
}

/** Debezium's table.include.list (regular expressions on schema.table), [] when unset. */
export function includeList(config: Record<string, string>): string[] {
  return (config['table.include.list'] ?? '').split(',').map((t) => t.trim()).filter((t) => t !== '');
}

/**
 * The topics a source writes to: what Connect reports (GET /connectors/{c}/topics, when topic
 * tracking is on) and, for Debezium PostgreSQL, `topic.prefix` + each captured table (from
 * table.include.list, else the existing topics under the prefix) — a table's topic may not exist
 * before its first change, so it is watched by name.
 */
export async function sourceTopics(ctx: Pick<OpsContext, 'url' | 'http'>, info: ConnectorInfo, kafka: KafkaSettings): Promise<string[]> {
  const topics = new Set(await getConnectorTopics(ctx.http, ctx.url, info.name).catch(() => undefined) ?? []);
  if (info.config['connector.class']?.trim() === DEBEZIUM_POSTGRES) {
    const { prefix } = debeziumOptions(info.config);
    const tables = includeList(info.config);
    const literal = tables.every((t) => /^[\w$]+\.[\w$]+$/.test(t));
    if (tables.length > 0 && literal) {
      for (const t of tables) topics.add(`${prefix}.${t}`);
    } else {
      const admin = new KafkaAdmin(kafka, 'offsetctl-verify');
      try {
        const under = (await admin.listTopics()).filter((t) => t.startsWith(`${prefix}.`) && t !== `${prefix}.transaction`);
        for (const t of under) if (tables.length === 0 || tables.some((p) => new RegExp(`^(${p})$`).test(t.slice(prefix.length + 1)))) topics.add(t);
      } finally {
        await admin.close();
      }
    }
  }
  return [...topics].sort();
}

/** A sink's positions from the offsets it was left at (Connect's sink offsets: kafka_topic, kafka_partition, kafka_offset). */
export function sinkPositions(written: OffsetEntry[]): SinkPosition[] {
  const out: SinkPosition[] = [];
  for (const e of written) {
    const topic = e.partition.kafka_topic;
    const partition = Number(e.partition.kafka_partition);
    const offset = Number((e.offset as { kafka_offset?: unknown } | null)?.kafka_offset);
    if (typeof topic === 'string' && Number.isInteger(partition) && Number.isSafeInteger(offset)) out.push({ topic, partition, offset });
  }
  return out;
}

/** The first record a sink consumed after the change: the one at the position it was left at, on a partition that moved. */
export async function firstConsumed(kafka: KafkaSettings, moved: SinkPosition[]): Promise<SeenRecord | undefined> {
  for (const p of moved) {
    const record = await recordAt(kafka, p.topic, p.partition, p.offset).catch(() => undefined);
    if (record) return record;
  }
  return undefined;
}

export function describeRecord(r: SeenRecord, markedAtMs?: number): string {
  return `${r.topic} partition ${r.partition} offset ${r.offset} (record time ${new Date(r.timestampMs).toISOString()})`
    + (markedAtMs === undefined ? '' : `, read ${((r.seenAtMs - markedAtMs) / 1000).toFixed(1)} s after its topics' ends were marked`);
}

/** A source's topics marked at their end offsets (before the change runs, or before a resume), and the watch reading from there. */
export interface RecordMark {
  topics: string[];
  /** Undefined when there is no topic to watch. */
  watch?: NewRecordWatch;
  /** When the ends were read (ms since 1970). */
  at: number;
}

/**
 * Marks a source's topics before the change runs: the connector is then stopped by the run (or is
 * stopped, before a resume), so every record after the mark was written since. A sink has no mark.
 */
export async function markOutputs(ctx: Pick<OpsContext, 'url' | 'http'>, connector: string, kafka: KafkaSettings): Promise<RecordMark> {
  const at = Date.now();
  const info = await getConnectorInfo(ctx.http, ctx.url, connector);
  if (info.type !== 'source') return { topics: [], at };
  const topics = await sourceTopics(ctx, info, kafka);
  return { topics, at, ...(topics.length > 0 ? { watch: await NewRecordWatch.start(kafka, topics) } : {}) };
}

/** Whether there was anything to move for: undefined when it cannot be told (a generic source). */
export interface Backlog {
  /** True: nothing new reached the connector's input (no rollback: it is idle, not broken). */
  idle: boolean;
  /** One sentence with the figures. */
  said: string;
  facts: string[];
}

/** A sink: records past the position it was left at on its topics (log end now − position). */
export async function sinkBacklog(kafka: KafkaSettings, positions: SinkPosition[]): Promise<Backlog | undefined> {
  if (positions.length === 0) return undefined;
  const admin = new KafkaAdmin(kafka, 'offsetctl-verify');
  try {
    const ranges = await admin.logRanges(positions.map(({ topic, partition }) => ({ topic, partition })));
    let waiting = 0;
    for (const p of positions) waiting += Math.max(0, (ranges.get(tpKey(p.topic, p.partition))?.end ?? 0) - p.offset);
    const facts = positions.map((p) => `${p.topic}/${p.partition}: left at ${p.offset}, log end ${ranges.get(tpKey(p.topic, p.partition))?.end ?? '?'}`);
    return waiting === 0
      ? { idle: true, said: 'no new records on its topics since the position it was left at: a sink with nothing to consume (idle)', facts }
      : { idle: false, said: `${waiting} record(s) wait on its topics past the position it was left at, but nothing was consumed`, facts };
  } finally {
    await admin.close();
  }
}

/**
 * A Debezium PostgreSQL source: rows changed in its captured tables during the watch
 * (pg_stat_user_tables), with the WAL beyond the slot's confirmed_flush_lsn as a figure. The WAL
 * alone cannot tell: it is the whole cluster's (every database, checkpoints, vacuum).
 */
export async function debeziumBacklog(db: SourceDbSettings, config: Record<string, string>, changesAtStart: bigint): Promise<Backlog> {
  const slotName = debeziumOptions(config).slotName;
  const [changes, facts] = await Promise.all([capturedRowChanges(db, includeList(config)), readSourceDb(db, slotName)]);
  const delta = changes - changesAtStart;
  const confirmed = facts.slot?.confirmedFlushLsn;
  const wal = `pg_current_wal_lsn ${showLsn(facts.walLsn)}, slot ${slotName} confirmed_flush_lsn ${confirmed === undefined ? '(none)' : showLsn(confirmed)}`
    + (confirmed !== undefined && facts.walLsn > confirmed ? ` (${facts.walLsn - confirmed} bytes of WAL beyond it, from the whole cluster)` : '');
  const said = delta === 0n
    ? 'no new rows in the source: its captured tables had no insert, update or delete during the watch (idle)'
    : `rows arrive in the source (${delta} row change(s) to its captured tables during the watch) but nothing is delivered`;
  return { idle: delta === 0n, said, facts: [wal, `captured tables: ${delta} row change(s) during the watch (pg_stat_user_tables)`] };
}
