// From a position (`--to-time -2h`, `--shift-by -2`, ...) to the offsets list the rewind path
// writes: find which cluster to ask and check it is the right one, gather the facts of every
// partition the connector reads, plan (positions.ts), and shape the result as Connect offsets.
// Read-only: nothing here changes the cluster, and every refusal happens before the rewind starts.
import { statSync } from 'node:fs';
import type { KafkaAdmin } from '../../kafka/admin.js';
import { tpKey, type TopicPartition } from '../../kafka/topic-partition.js';
import { describeKafka, type KafkaAccess, type KafkaSettings } from '../../kafka/connection.js';
import type { HttpSender } from '../../http/client.js';
import { clusterIdentity, WorkerRoot } from '../cluster/index.js';
import { getConnectorInfo, getOffsets, type ConnectorInfo } from '../connect/index.js';
import { OpsError } from '../errors.js';
import type { OffsetEntry } from '../offsets/index.js';
import { describePosition, planPositions, type PartitionFacts, type Position, type PositionPlan } from './positions.js';
import { sinkTopics } from './sink-topics.js';
import * as load from '../load.js';

export interface PositionTargets {
  connector: string;
  connectorType: 'sink' | 'source';
  connectorClass: string;
  /** The cluster the offsets were looked up on (absent for FileStreamSource). */
  kafka?: { servers: string; clusterId: string; clusterIdCheck: 'matches-worker' | 'skipped-connector-override' | 'not-applicable-source-cluster' };
  plan: PositionPlan;
  /** What rewind writes: Connect's own offsets shape. */
  offsets: OffsetEntry[];
  /** Lines for the operator (e.g. how MirrorMaker counts offsets). */
  notes: string[];
}

export interface TargetsConnection {
  url: string;
  http: HttpSender;
}

const MIRROR_SOURCE = 'org.apache.kafka.connect.mirror.MirrorSourceConnector';
const FILE_SOURCE = 'org.apache.kafka.connect.file.FileStreamSourceConnector';

/**
 * The offsets that put `connector` at `position`, with the plan the dry run shows.
 *
 * @example const t = await positionTargets(conn, 'orders-sink', parsePosition({ toTime: '-2h' }, Date.now()), access)
 */
/**
 * Which positions a connector can be moved to, as positionTargets computes them: every kind for a
 * sink and for MirrorSourceConnector (Kafka positions of the partitions it reads), only the
 * earliest and the latest for FileStreamSource (byte 0 and the size of its file), none for other
 * sources (plugin offsets).
 */
export type PositionScope =
  | { kind: 'sink' | 'mirror'; positions: Array<Position['kind']>; servers: string[] | undefined }
  | { kind: 'file'; positions: Array<Position['kind']>; file: string }
  | { kind: 'plain'; connectorClass: string };

export function positionScope(info: ConnectorInfo, access: KafkaAccess): PositionScope {
  const connectorClass = fullClass(info.config['connector.class'] ?? '');
  const every: Array<Position['kind']> = ['earliest', 'latest', 'time', 'shift'];
  if (info.type === 'sink') {
    return { kind: 'sink', positions: every, servers: lookupServers(access, info.config['consumer.override.bootstrap.servers']) };
  }
  if (connectorClass === MIRROR_SOURCE) {
    return { kind: 'mirror', positions: every, servers: lookupServers(access, info.config['source.cluster.bootstrap.servers']) };
  }
  const file = info.config['file'];
  if (connectorClass === FILE_SOURCE && file) return { kind: 'file', positions: ['earliest', 'latest'], file };
  return { kind: 'plain', connectorClass };
}

export async function positionTargets(conn: TargetsConnection, connector: string, position: Position, access: KafkaAccess, options: { clientId?: string } = {}): Promise<PositionTargets> {
  const info = await getConnectorInfo(conn.http, conn.url, connector);
  const connectorClass = fullClass(info.config['connector.class'] ?? '');
  let targets: PositionTargets;
  if (info.type === 'sink') targets = await sinkTargets(conn, info, connectorClass, position, access, options.clientId);
  else if (connectorClass === MIRROR_SOURCE) targets = await mirrorTargets(conn, info, connectorClass, position, access, options.clientId);
  else if (connectorClass === FILE_SOURCE) targets = fileSourceTargets(info, connectorClass, position);
  else throw await plainSourceRefusal(conn, info, connectorClass);
  if (targets.offsets.length === 0) {
    throw new OpsError('E_PREFLIGHT', `${targets.plan.position}: no partition of ${connector} has an offset to move (${targets.plan.totals.neverCommitted} never committed); nothing to write`, { field: 'position' });
  }
  return targets;
}

async function sinkTargets(conn: TargetsConnection, info: ConnectorInfo, connectorClass: string, position: Position, access: KafkaAccess, clientId?: string): Promise<PositionTargets> {
  const override = info.config['consumer.override.bootstrap.servers']?.trim() || undefined;
  const servers = lookupServers(access, override);
  if (!servers) throw noBootstrap(info.name, 'its topics');
  const admin = await openAdmin(await access.settingsFor(servers), clientId);
  try {
    const clusterId = await admin.clusterId();
    let check: NonNullable<PositionTargets['kafka']>['clusterIdCheck'] = 'skipped-connector-override';
    const notes: string[] = [];
    if (override) {
      notes.push(`${info.name} sets consumer.override.bootstrap.servers: offsets looked up on ${describeKafka(admin.settings)} (cluster ${clusterId}), not compared with the worker's cluster`);
    } else {
      const workerId = await workerClusterId(conn);
      if (workerId !== clusterId) {
        throw new OpsError('E_PREFLIGHT', `Kafka at ${describeKafka(admin.settings)} is cluster ${clusterId}, but the Connect worker at ${conn.url} works with cluster ${workerId}: offsets from another cluster would move ${info.name} to meaningless positions. Point --bootstrap (or the context's bootstrap) at the worker's cluster`, { field: 'bootstrap' });
      }
      check = 'matches-worker';
    }
    const sink = await sinkTopics(info.name, info.config, () => admin.listTopics());
    if (sink.missing.length > 0) {
      throw new OpsError('E_PREFLIGHT', `sink ${info.name} consumes ${sink.missing.map((t) => `topic ${t}`).join(', ')}, which no longer exist${sink.missing.length === 1 ? 's' : ''} on cluster ${clusterId}; remove ${sink.missing.length === 1 ? 'it' : 'them'} from the connector's topics, or rewind with an --offsets file`, { field: 'topics' });
    }
    if (sink.topics.length === 0) throw new OpsError('E_PREFLIGHT', `sink ${info.name}: topics.regex ${JSON.stringify(info.config['topics.regex'])} matches no topic on cluster ${clusterId}: there is nothing to position`, { field: 'topics.regex' });
    const partitions = await allPartitions(admin, sink.topics);
    const current = await getOffsets(conn.http, conn.url, info.name);
    const committed = new Map<string, number>();
    for (const e of current.offsets) {
      const p = e.partition as { kafka_topic?: unknown; kafka_partition?: unknown };
      const o = e.offset as { kafka_offset?: unknown } | null;
      if (o && o.kafka_offset !== undefined && o.kafka_offset !== null) committed.set(tpKey(String(p.kafka_topic), Number(p.kafka_partition)), Number(o.kafka_offset));
    }
    const plan = planPositions(position, await gatherFacts(admin, partitions, committed, position));
    const offsets: OffsetEntry[] = plan.rows
      .filter((r) => r.target !== null)
      .map((r) => ({ partition: { kafka_topic: r.topic, kafka_partition: r.partition }, offset: { kafka_offset: r.target } }));
    return { connector: info.name, connectorType: 'sink', connectorClass, kafka: { servers: servers.join(','), clusterId, clusterIdCheck: check }, plan, offsets, notes };
  } finally {
    await admin.close();
  }
}

/**
 * MirrorMaker 2 stores, per upstream partition, the offset of the last record it copied and
 * resumes at that + 1. The plan speaks of "next offset to copy" like a sink's committed offset;
 * the written value is one less, and "from offset 0" is written as a removed offset (MirrorMaker
 * then starts from the beginning: its consumer resets to earliest and offsets must be ≥ 0).
 */
async function mirrorTargets(conn: TargetsConnection, info: ConnectorInfo, connectorClass: string, position: Position, access: KafkaAccess, clientId?: string): Promise<PositionTargets> {
  const alias = info.config['source.cluster.alias']?.trim();
  if (!alias) throw new OpsError('E_PREFLIGHT', `${info.name}: MirrorSourceConnector without source.cluster.alias; cannot tell which offsets are its own`, { field: 'source.cluster.alias' });
  const servers = lookupServers(access, info.config['source.cluster.bootstrap.servers']);
  if (!servers) throw noBootstrap(info.name, `its source cluster (${alias})`);
  const current = await getOffsets(conn.http, conn.url, info.name);
  const committed = new Map<string, number>();
  const topics = new Set<string>();
  for (const e of current.offsets) {
    const p = e.partition as { cluster?: unknown; topic?: unknown; partition?: unknown };
    if (p.cluster !== alias || typeof p.topic !== 'string') continue;
    topics.add(p.topic);
    const o = e.offset as { offset?: unknown } | null;
    if (o && typeof o.offset === 'number') committed.set(tpKey(p.topic, Number(p.partition)), o.offset + 1);
  }
  const admin = await openAdmin(await access.settingsFor(servers), clientId);
  try {
    const clusterId = await admin.clusterId();
    const existing = new Set(await admin.listTopics());
    // Plain names in `topics` (not patterns) count too: a topic MirrorMaker has not copied yet.
    for (const t of (info.config['topics'] ?? '').split(',').map((s) => s.trim())) if (/^[A-Za-z0-9._-]+$/.test(t) && existing.has(t)) topics.add(t);
    // Offsets of a topic deleted upstream stay in Connect forever; MirrorMaker no longer copies it,
    // so it is left as it is rather than blocking every later rewind.
    const gone = [...topics].filter((t) => !existing.has(t)).sort();
    for (const t of gone) topics.delete(t);
    if (topics.size === 0) throw new OpsError('E_PREFLIGHT', `${info.name} has copied nothing yet and its topics setting is a pattern: no partitions to position. Let it run first, or write an --offsets file`, { field: 'topics' });
    const partitions = await allPartitions(admin, [...topics].sort());
    const plan = planPositions(position, await gatherFacts(admin, partitions, committed, position));
    const offsets: OffsetEntry[] = plan.rows
      .filter((r) => r.target !== null)
      .map((r) => ({ partition: { cluster: alias, topic: r.topic, partition: r.partition }, offset: (r.target as number) > 0 ? { offset: (r.target as number) - 1 } : null }));
    const notes = gone.length === 0 ? [] : [`${gone.join(', ')}: no longer on source cluster ${alias}; ${gone.length === 1 ? 'its' : 'their'} stored offsets are left as they are`];
    notes.unshift(`MirrorSourceConnector ${info.name}: offsets of source cluster ${alias} looked up on ${describeKafka(admin.settings)} (cluster ${clusterId}); COMMITTED and TARGET are the next upstream offset to copy (Connect stores one less; a target of 0 removes the stored offset so MirrorMaker starts from the beginning)`);
    return { connector: info.name, connectorType: 'source', connectorClass, kafka: { servers: servers.join(','), clusterId, clusterIdCheck: 'not-applicable-source-cluster' }, plan, offsets, notes };
  } finally {
    await admin.close();
  }
}

/**
 * FileStreamSource: the offset is a byte position in its file. The earliest is 0; the latest is
 * the file's size, read where offsetctl runs (as for targets beyond a file's end), so it needs the
 * same file the worker reads (a shared or local path). Other positions have no byte to map to.
 */
function fileSourceTargets(info: ConnectorInfo, connectorClass: string, position: Position): PositionTargets {
  const file = info.config['file'];
  if ((position.kind !== 'earliest' && position.kind !== 'latest') || !file) {
    throw new OpsError('E_PREFLIGHT', `${info.name} is a FileStreamSource: its offset is a byte position in ${file ?? 'its file'}, so only --to-earliest (position 0) and --to-latest (the file's size) are positions offsetctl can compute; for another byte position write an --offsets file (template: \`offsetctl offsets get ${info.name} --output json\`)`, { field: 'position' });
  }
  let target = 0;
  let note = `FileStreamSource ${info.name}: position 0 of ${file} (the whole file is read again)`;
  if (position.kind === 'latest') {
    let size: number;
    try {
      size = statSync(file).size;
    } catch (err) {
      throw new OpsError('E_PREFLIGHT', `--to-latest: ${info.name} reads ${file}, which cannot be read from here (${(err as { code?: string }).code ?? (err as Error).message}), so its end is unknown; run offsetctl where the file is, or write an --offsets file with {"position": <size in bytes>}`, { field: 'position' });
    }
    target = size;
    note = `FileStreamSource ${info.name}: position ${size} of ${file}, its size as read here (nothing in it is read again)`;
  }
  const plan: PositionPlan = { position: describePosition(position), rows: [], totals: { partitions: 1, toWrite: 1, replay: 0, skip: 0, neverCommitted: 0 } };
  return {
    connector: info.name, connectorType: 'source', connectorClass, plan,
    offsets: [{ partition: { filename: file }, offset: { position: target } }],
    notes: [note],
  };
}

async function plainSourceRefusal(conn: TargetsConnection, info: ConnectorInfo, connectorClass: string): Promise<OpsError> {
  let template = '';
  try {
    const current = await getOffsets(conn.http, conn.url, info.name);
    const shown = JSON.stringify({ offsets: current.offsets.slice(0, 3) });
    template = current.offsets.length === 0 ? ' (it has no offsets yet)' : `; its current offsets${current.offsets.length > 3 ? ` (first 3 of ${current.offsets.length})` : ''}: ${shown.length > 600 ? shown.slice(0, 600) + '…' : shown}`;
  } catch {
    // The refusal matters more than the template.
  }
  return new OpsError('E_PREFLIGHT', `${info.name} is a source connector (${connectorClass || 'unknown class'}) whose offsets are plugin-specific: no Kafka partition or time maps to them, so positions (--to-time, --to-earliest, --to-latest, --shift-by, --to-offset) only work for sinks, MirrorSourceConnector and FileStreamSource (--to-earliest). Write the target offsets instead: \`offsetctl offsets get ${info.name} --output json > offsets.json\`, edit them, then \`offsetctl rewind ${info.name} --offsets offsets.json\`${template}`, { field: 'position' });
}

async function allPartitions(admin: KafkaAdmin, topics: readonly string[]): Promise<TopicPartition[]> {
  const counts = await admin.partitionCounts(topics);
  const out: TopicPartition[] = [];
  for (const topic of topics) for (let p = 0; p < (counts.get(topic) ?? 0); p++) out.push({ topic, partition: p });
  return out;
}

async function gatherFacts(admin: KafkaAdmin, partitions: readonly TopicPartition[], committed: ReadonlyMap<string, number>, position: Position): Promise<PartitionFacts[]> {
  const [ranges, forTime] = await Promise.all([
    admin.logRanges(partitions),
    position.kind === 'time' ? admin.offsetsForTime(partitions, position.atMs) : Promise.resolve(undefined),
  ]);
  return partitions.map(({ topic, partition }) => {
    const key = tpKey(topic, partition);
    const range = ranges.get(key) ?? { start: 0, end: 0 };
    const fact: PartitionFacts = { topic, partition, logStart: range.start, logEnd: range.end, committed: committed.get(key) ?? null };
    const t = forTime?.get(key);
    if (t !== undefined) fact.offsetForTime = t;
    return fact;
  });
}

/** `GET /` → `kafka_cluster_id`: the cluster the worker stores offsets in (the same read keys runs and locks). */
async function workerClusterId(conn: TargetsConnection): Promise<string> {
  const identity = await clusterIdentity(new WorkerRoot(conn.http, conn.url));
  if (identity.kafkaClusterId === undefined) {
    throw new OpsError('E_PREFLIGHT', `GET ${conn.url}/ did not answer with the worker's kafka_cluster_id: cannot check that the Kafka cluster is the worker's`, { field: 'url' });
  }
  return identity.kafkaClusterId;
}

/** The Kafka client loads only once a connector really needs it (its import costs ~0.5 s of CPU). */
async function openAdmin(settings: KafkaSettings, clientId?: string): Promise<KafkaAdmin> {
  const { KafkaAdmin } = await load.kafkaAdmin();
  return new KafkaAdmin(settings, clientId);
}

function noBootstrap(connector: string, what: string): OpsError {
  return new OpsError('E_CONFIG', `no Kafka bootstrap servers to look up ${what} for ${connector}: pass --bootstrap <host:port>, or store it in the context with \`offsetctl config set-context <name> --bootstrap <host:port>\``, { field: 'bootstrap' });
}

/**
 * The servers a connector's positions are looked up on: --bootstrap (or OFFSETCTL_BOOTSTRAP) wins,
 * then the servers the connector names itself (a sink's consumer override, MirrorMaker's source
 * cluster), then the context's.
 */
function lookupServers(access: KafkaAccess, configured: string | undefined): string[] | undefined {
  if (access.bootstrapFromFlag) return access.bootstrap;
  const own = configured?.trim();
  return own ? splitServers(own) : access.bootstrap;
}

function splitServers(text: string): string[] {
  return text.split(',').map((s) => s.trim().replace(/^[A-Za-z_]+:\/\//, '')).filter((s) => s !== '');
}

function fullClass(name: string): string {
  if (name === 'MirrorSourceConnector' || name === 'MirrorSource') return MIRROR_SOURCE;
  if (name === 'FileStreamSourceConnector' || name === 'FileStreamSource') return FILE_SOURCE;
  return name;
}

export type { KafkaSettings };
