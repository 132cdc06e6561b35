// A run of records of one partition, read with plain Fetch requests through the engine's Kafka
// transport (messaging.ts): no consumer group is joined, nothing is committed. Used to check
// MirrorMaker 2's offset translation record by record (src/ops/move/translate-check.ts).
import type { IncomingMessage, MessageEndpoint } from '../arazzo/index.js';
import type { KafkaSettings } from './connection.js';
import { createKafkaTransport } from './messaging.js';

interface KafkaStart {
  offsets: Map<number, bigint>;
  fromStart: boolean;
}

export interface PartitionRecord {
  offset: number;
  timestamp: string | undefined;
  key: Buffer | undefined;
  value: Buffer | undefined;
  headers: Record<string, string>;
}

/**
 * The records of `topic`:`partition` from `from` up to its end when this is called (at most
 * `max` of them, within `waitMs`). Fewer when the partition ends earlier or time runs out;
 * records before the log start (deleted) are simply not there.
 */
export async function readPartition(settings: KafkaSettings, topic: string, partition: number, from: number, options: { max: number; waitMs: number }): Promise<PartitionRecord[]> {
  const { bootstrap, ...security } = settings;
  const transport = createKafkaTransport({ settings: security, clientId: 'offsetctl-translate-check' });
  const protocol = settings.securityProtocol === 'SSL' || settings.securityProtocol === 'SASL_SSL' ? 'kafka-secure' : 'kafka';
  const endpoint: MessageEndpoint = { source: 'translate-check', server: 'kafka', protocol, bootstrap, address: topic };
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), options.waitMs);
  const out: PartitionRecord[] = [];
  try {
    const marked = (await transport.mark(endpoint)) as KafkaStart;
    const end = Number(marked.offsets.get(partition) ?? 0n);
    if (from >= end || options.max <= 0) return out;
    // Every other partition from its end (receive reads a partition it has no position for from 0).
    const start: KafkaStart = { offsets: new Map(marked.offsets), fromStart: false };
    start.offsets.set(partition, BigInt(from));
    for await (const record of transport.receive(endpoint, start, stop.signal)) {
      if (record.partition !== partition) continue;
      out.push(toRecord(record));
      if (Number(record.offset) >= end - 1 || out.length >= options.max) break;
    }
    return out;
  } finally {
    clearTimeout(timer);
    stop.abort();
    await transport.close();
  }
}

function toRecord(r: IncomingMessage): PartitionRecord {
  return { offset: Number(r.offset), timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers };
}
