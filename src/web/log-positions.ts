// Log start, log end and lag of the sink partitions a connector page shows, read from the Kafka
// cluster the sink consumes (the servers positions use: --bootstrap, else the connector's consumer
// override, else the context's), after checking it is the worker's cluster. Only the partitions
// of the shown page are asked about, so a 1,000-partition sink costs one page of ListOffsets.
// Never throws: a missing configuration or a broker that does not answer becomes a line on the
// page, and the rest of the page renders.
import { describeKafka, type KafkaAccess } from '../kafka/connection.js';
import { tpKey, type TopicPartition } from '../kafka/topic-partition.js';
import { redactText } from '../http/redact.js';
import type { HttpSender } from '../http/client.js';
import { clusterIdentity, WorkerRoot } from '../ops/cluster/index.js';
import type { ConnectorInfo } from '../ops/connect/index.js';
import { positionScope } from '../ops/positions/index.js';
import { OpsError } from '../ops/errors.js';
import * as load from './load.js';

export interface LogPosition {
  logStart: number;
  logEnd: number;
  /** Records written but not yet read (log end − committed offset); absent without a committed offset. */
  lag?: number;
}

export type LogPositionsResult =
  | { status: 'ok'; servers: string; positions: Record<string, LogPosition> }
  | { status: 'unavailable'; reason: string }
  | { status: 'error'; message: string };

/** A page should not wait on a broker that does not answer: after this, the page says so. */
export const LOG_POSITIONS_TIMEOUT_MS = 5_000;

export interface ShownPartition extends TopicPartition {
  committed: number | null;
}

/** The servers a sink's positions are read from, as positionTargets chooses them; undefined: none configured. */
export function sinkServers(info: ConnectorInfo, access: KafkaAccess | undefined): string[] | undefined {
  const scope = positionScope(info, access ?? WITHOUT_SETTINGS);
  return scope.kind === 'sink' ? scope.servers : undefined;
}

/** No Kafka settings configured: a connector's own servers (consumer override) are reached without credentials. */
export const WITHOUT_SETTINGS: KafkaAccess = { bootstrap: undefined, bootstrapFromFlag: false, settingsFor: async (bootstrap) => ({ bootstrap }) };

export const NO_KAFKA = 'no Kafka bootstrap servers are configured for this context (store them with `offsetctl config set-context <name> --bootstrap host:port`, or start `offsetctl ui --bootstrap host:port`)';

/**
 * `topic/partition` → log start, end and lag for the shown partitions of a sink.
 *
 * @example await readLogPositions({ url, http }, info, access, [{ topic: 'orders', partition: 0, committed: 5 }])
 */
export async function readLogPositions(conn: { url: string; http: HttpSender }, info: ConnectorInfo, access: KafkaAccess | undefined, shown: readonly ShownPartition[], timeoutMs = LOG_POSITIONS_TIMEOUT_MS): Promise<LogPositionsResult> {
  const servers = sinkServers(info, access);
  if (!servers) return { status: 'unavailable', reason: NO_KAFKA };
  access ??= WITHOUT_SETTINGS;
  if (shown.length === 0) return { status: 'ok', servers: servers.join(','), positions: {} };
  let admin: import('../kafka/admin.js').KafkaAdmin | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const settings = await access.settingsFor(servers);
    const { KafkaAdmin } = await load.kafkaAdmin();
    const opened = new KafkaAdmin(settings, 'offsetctl-ui');
    admin = opened;
    const overridden = Boolean(info.config['consumer.override.bootstrap.servers']?.trim()) && !access.bootstrapFromFlag;
    const read = (async () => {
      // Both at once; Kafka's failure is the one to report (this page got here through the worker).
      const [kafka, identity] = await Promise.allSettled([opened.clusterId(), overridden ? undefined : clusterIdentity(new WorkerRoot(conn.http, conn.url))]);
      if (kafka.status === 'rejected') throw kafka.reason;
      if (identity.status === 'rejected') throw identity.reason;
      const clusterId = kafka.value;
      const worker = identity.value;
      if (worker && worker.kafkaClusterId !== clusterId) {
        throw new OpsError('E_PREFLIGHT', `Kafka at ${describeKafka(settings)} is cluster ${clusterId}, but the Connect worker at ${conn.url} works with cluster ${worker.kafkaClusterId ?? '(not reported)'}: positions from another cluster would be meaningless; point the context's bootstrap at the worker's cluster`, { field: 'bootstrap' });
      }
      return opened.logRanges(shown);
    })();
    // The read goes on after a timeout until close() ends it; its late rejection is not news.
    read.catch(() => undefined);
    const ranges = await Promise.race([read, new Promise<never>((_r, reject) => {
      timer = setTimeout(() => reject(new Error(`Kafka at ${describeKafka(settings)} did not answer within ${timeoutMs / 1000} s`)), timeoutMs);
    })]);
    const positions: Record<string, LogPosition> = {};
    for (const p of shown) {
      const range = ranges.get(tpKey(p.topic, p.partition));
      if (!range) continue;
      positions[`${p.topic}/${p.partition}`] = { logStart: range.start, logEnd: range.end, ...(p.committed === null ? {} : { lag: range.end - p.committed }) };
    }
    return { status: 'ok', servers: servers.join(','), positions };
  } catch (err) {
    return { status: 'error', message: redactText((err as Error).message ?? String(err)) };
  } finally {
    clearTimeout(timer);
    void admin?.close().catch(() => undefined);
  }
}
