// Planning a move or a copy: everything on both clusters read and checked before anything
// changes, as plain data a face shows and asks about, then hands to applyMove unchanged. Refusals
// throw OpsError (exit 2) and say why, naming both clusters where it matters.
import { lockKeyOf } from '../plan/index.js';
import { KafkaAdmin } from '../../kafka/admin.js';
import { checkpointsTopic, readCheckpoints } from '../../kafka/checkpoints.js';
import type { KafkaSettings } from '../../kafka/connection.js';
import { getOffsets, getSettledConnectorInfo, type TaskState } from '../connect/index.js';
import type { OpsContext } from '../context.js';
import { checkProfile, SLOT_RELEASE_WAIT_MS, type ProfileOptions, type SourceDbSettings } from '../profiles/index.js';
import { OpsError } from '../errors.js';
import { checkPartitionCount, DEFAULT_LIMITS, type OffsetLimits } from '../offsets/index.js';
import { offsetEntries, type ConnectorType, type OffsetEntry } from '../offsets/index.js';
import { targetStateFor } from '../workflows/index.js';
import { readClusterFacts, requireInitialState, type ClusterFacts, type ClusterRef } from './clusters.js';
import { listPlugins, pluginConfigDefinition } from './connect-reads.js';
import { configSecrets } from './config-secrets.js';
import { pluginOf, type ConnectorPlugin } from './plugins.js';
import { landingProblems, refuseLanding } from './preflight.js';
import { translateSinkOffsets, translationRefusal, type Translation } from './translate.js';
import { MOVE_WORKFLOW } from './workflow.js';

export type MoveTargetState = 'auto' | 'RUNNING' | 'PAUSED' | 'STOPPED';

export interface MoveRequest {
  connector: string;
  mode: 'move' | 'copy';
  /** The name on the target (a copy's new name; a move keeps its name). */
  as?: string;
  /** A move leaves the original STOPPED instead of deleting it. */
  keepSource?: boolean;
  targetState?: MoveTargetState;
  allowPluginVersionChange?: boolean;
  /** A sink to a Connect cluster on another Kafka cluster: MirrorMaker 2's checkpoints for this source cluster alias, read from the target's Kafka cluster. */
  translate?: { alias: string; kafka: KafkaSettings; source?: KafkaSettings };
  limits?: OffsetLimits;
  /** A copy: settings changed in the copy's configuration (`--set key=value`), e.g. a Debezium source's own slot.name. */
  set?: Record<string, string>;
  /** The connector profile's options (a Debezium source's --source-db, --skip-source-check): a move asks its profile. */
  profile?: ProfileOptions;
  /** How long a move waits for the original's task to let go of what only one task may hold (a replication slot); default 60 s. */
  releaseWaitMs?: number;
}

/** A move waits, before it starts the new connector, until the original's task has let go of this (read through the source database). */
export interface MoveRelease {
  kind: 'replication-slot';
  slotName: string;
  database: string;
  waitMs: number;
}

export interface MovePlan {
  operation: 'move' | 'copy';
  connector: string;
  targetName: string;
  connectorType: ConnectorType;
  stateBefore: string;
  tasks: TaskState[];
  /** The state the new connector is put in. */
  stateAfter: string;
  /** What becomes of the original: deleted (move), left STOPPED (--keep-source), put back (copy). */
  sourceAfter: 'delete' | 'stop' | 'restore';
  from: ClusterFacts;
  to: ClusterFacts;
  plugin: ConnectorPlugin;
  /** The configuration created on the target (real values: held in memory, never stored). */
  config: Record<string, string>;
  /** Keys of `config` holding literal secrets: masked wherever anything is written down. */
  secretKeys: string[];
  /** The original's offsets when planned (it still runs: they move on until the stop). */
  currentOffsets: OffsetEntry[];
  /** `captured`: the original's, read after the stop; `translated`: MirrorMaker 2's translation of them. */
  offsets: 'captured' | 'translated';
  /** A sink whose consumer group stays the same (same Kafka cluster or its own bootstrap servers, same group id). */
  sameConsumerGroup: boolean;
  /** The consumer group of a sink, on the source and on the target. */
  groups?: { from: string; to: string };
  /** `source`: the Kafka cluster the sink reads now, to check the translation record by record (translate-check.ts). */
  translation?: { alias: string; topic: string; kafka: KafkaSettings; source?: KafkaSettings; preview: Translation };
  warnings: string[];
  /** What the connector's profile read (a move of a Debezium source: its slot), one line each. */
  profileFacts?: string[];
  /** A move of a connector that holds something exclusive outside Connect: what the move waits for before starting the new one. */
  release?: MoveRelease;
  workflow: { file: string; workflowId: string };
  /** The workflow inputs applyMove runs with (real config). */
  inputs: Record<string, unknown>;
  /**
   * The locks' keys (ops/plan/lock-key.ts): where the original's offsets live on its cluster and
   * where the new connector's will on the target — a sink's consumer group, a source's own offsets
   * topic; a source in its Connect cluster's offsets topic keeps the wide key (the Connect group is
   * not looked up for a move).
   */
  lockKeys: { from: string; to: string };
}

/** A sink's consumer group: `consumer.override.group.id`, else `connect-<name>`. */
export function sinkGroup(name: string, config: Record<string, string>): string {
  return config['consumer.override.group.id'] || `connect-${name}`;
}

export async function planMove(from: OpsContext, to: ClusterRef, req: MoveRequest): Promise<MovePlan> {
  const what = req.mode === 'move' ? 'the move' : 'the copy';
  const targetName = req.as ?? req.connector;
  if (req.mode === 'copy' && targetName === req.connector && sameUrl(from.url, to.url)) {
    throw new OpsError('E_USAGE', `a copy on the same cluster needs a new name: --as <new-name>`, { field: 'as' });
  }
  if (req.mode === 'move' && req.as !== undefined && req.as !== req.connector) {
    throw new OpsError('E_USAGE', `a move keeps the connector's name (it is the same connector, somewhere else); to run it under another name use \`offsetctl copy ${req.connector} --as ${req.as}\``, { field: 'as' });
  }
  if (req.mode === 'move' && sameUrl(from.url, to.url)) {
    throw new OpsError('E_USAGE', `--to names the cluster ${req.connector} is on already (${to.url}); give the other cluster's context or URL`, { field: 'to' });
  }
  const [source, target] = await Promise.all([readClusterFacts(from), readClusterFacts(to)]);
  requireInitialState(target.version, to.url, what);
  const info = await getSettledConnectorInfo(from.http, from.url, req.connector);
  const current = offsetEntries(await getOffsets(from.http, from.url, req.connector));
  checkPartitionCount(current.length, req.limits ?? DEFAULT_LIMITS, `the offsets of ${req.connector}`);
  const warnings: string[] = [];

  const sourcePlugins = await listPlugins(from.http, from.url);
  const plugin = pluginOf(info.config, sourcePlugins);
  if (!plugin) throw new OpsError('E_PREFLIGHT', `${req.connector}'s connector.class ${JSON.stringify(info.config['connector.class'])} is not among the plugins of ${from.url}; nothing was changed`);

  // The configuration created there: a copy gets its own name and, for a sink, its own group.
  const config: Record<string, string> = { ...info.config, name: targetName };
  if (req.mode === 'copy' && info.type === 'sink' && config['consumer.override.group.id']) {
    warnings.push(`the copy gets its own consumer group connect-${targetName}: consumer.override.group.id (${config['consumer.override.group.id']}, the original's group) is left out of its configuration`);
    delete config['consumer.override.group.id'];
  }
  if (req.set && Object.keys(req.set).length > 0) {
    if (req.mode !== 'copy') throw new OpsError('E_USAGE', '--set is for a copy (a move keeps the connector\'s configuration as it is)', { field: 'set' });
    for (const key of ['name', 'connector.class']) if (key in req.set) throw new OpsError('E_USAGE', `--set ${key}: the copy's ${key === 'name' ? 'name is --as' : 'plugin is the original\'s'}`, { field: 'set' });
    Object.assign(config, req.set);
  }
  // What the connector's profile says of a copy (docs/connectors.md): a Debezium source needs its own
  // slot, publication and topic prefix on the same database; an Iceberg sink its own tables or branch.
  if (req.mode === 'copy') warnings.push(...(await checkProfile({ operation: 'copy', connector: info, current, copyConfig: config, options: {} })).warnings);
  // A move: a Debezium source's slot is held by one task at a time; the move waits for the old one to let go.
  const moved = req.mode === 'move' ? await checkProfile({ operation: 'move', connector: info, current, options: req.profile ?? {} }) : undefined;
  if (moved) warnings.push(...moved.warnings);
  const release: MoveRelease | undefined = moved?.exclusive && req.profile?.sourceDb
    ? { ...moved.exclusive, waitMs: req.releaseWaitMs ?? SLOT_RELEASE_WAIT_MS } : undefined;
  const definition = await pluginConfigDefinition(from.http, from.url, plugin.class);
  const secrets = configSecrets(config, definition);

  refuseLanding(req.mode === 'move' ? 'The move' : 'The copy', req.connector, to.url, await landingProblems(to, { name: targetName, config, plugin }, { allowPluginVersionChange: req.allowPluginVersionChange ?? false }));

  // Where a sink's offsets live, and whether they mean anything on the target.
  let sameConsumerGroup = false;
  let groups: MovePlan['groups'];
  let translation: MovePlan['translation'];
  const sameKafka = source.facts.kafkaClusterId !== undefined && source.facts.kafkaClusterId === target.facts.kafkaClusterId;
  if (info.type === 'sink') {
    const ownKafka = Boolean(info.config['consumer.override.bootstrap.servers']);
    groups = { from: sinkGroup(req.connector, info.config), to: sinkGroup(targetName, config) };
    sameConsumerGroup = (sameKafka || ownKafka) && groups.from === groups.to;
    if (!sameKafka && !ownKafka) {
      if (!req.translate) {
        throw new OpsError('E_PREFLIGHT', `${req.connector} is a sink: its offsets are consumer group ${groups.from}'s on Kafka cluster ${source.facts.kafkaClusterId ?? '(unknown)'}, which ${from.url} works with, but ${to.url} works with Kafka cluster ${target.facts.kafkaClusterId ?? '(unknown)'}, where those offsets mean nothing (they would skip or replay records). If MirrorMaker 2 mirrors its topics there, translate them from its checkpoints: --translate-offsets <source-cluster-alias>. Nothing was changed.`, { field: 'to' });
      }
      translation = await previewTranslation(req.translate, source.facts, target.facts, groups.from, current);
    }
  } else if (!sameKafka) {
    warnings.push(`${req.connector} is a source connector: on ${to.url} it writes to Kafka cluster ${target.facts.kafkaClusterId ?? '(unknown)'} instead of ${source.facts.kafkaClusterId ?? '(unknown)'}`);
  }
  if (req.translate && !translation) {
    throw new OpsError('E_USAGE', info.type === 'source'
      ? `--translate-offsets is for sinks (their offsets are consumer group offsets); ${req.connector} is a source connector, whose offsets are carried as they are`
      : `--translate-offsets is for a sink moved to another Kafka cluster; ${from.url} and ${to.url} work with the same Kafka cluster (${source.facts.kafkaClusterId}), so ${req.connector}'s offsets carry over as they are`, { field: 'translate-offsets' });
  }
  if (req.mode === 'copy' && info.type === 'source') warnings.push(`the copy ${targetName} starts from ${req.connector}'s offsets and then runs beside it: both produce the same records from there on`);
  if (!['RUNNING', 'PAUSED', 'STOPPED'].includes(info.state)) warnings.push(`${req.connector} is ${info.state}; the new connector is left STOPPED (start it when ready, or pass --target-state RUNNING)`);

  const targetState = req.targetState ?? 'auto';
  if (release) {
    warnings.push(`${req.connector} is a Debezium PostgreSQL source: before the new connector starts on ${to.url}, the move waits up to ` +
      `${Math.round(release.waitMs / 1000)} s for replication slot "${release.slotName}" on ${release.database} to be inactive (the original's task let go ` +
      `of it: one slot streams to one client); if it is still active then, the new one is not started and the move is put back`);
  }
  const sourceAfter = req.mode === 'copy' ? 'restore' : req.keepSource ? 'stop' : 'delete';
  const plan: MovePlan = {
    operation: req.mode, connector: req.connector, targetName, connectorType: info.type, stateBefore: info.state, tasks: info.tasks,
    stateAfter: targetState === 'auto' ? targetStateFor(info.state) : targetState, sourceAfter,
    from: source.facts, to: target.facts, plugin, config, secretKeys: secrets.literal, currentOffsets: current,
    offsets: translation ? 'translated' : 'captured', sameConsumerGroup, ...(groups ? { groups } : {}), ...(translation ? { translation } : {}),
    warnings, ...(moved && moved.profile !== 'generic' && moved.profile !== 'kafka' ? { profileFacts: moved.facts } : {}), ...(release ? { release } : {}),
    workflow: { ...MOVE_WORKFLOW },
    lockKeys: { from: lockKeyOf(info, source.facts.key), to: lockKeyOf({ name: targetName, type: info.type, config }, target.facts.key) },
    inputs: {
      connectorName: req.connector, targetName, config, offsetsFrom: translation ? 'given' : 'captured', offsets: [],
      sourceAfter, targetState, clearStaleOffsets: !sameConsumerGroup, targetMayExist: false, holdAfterCapture: Boolean(translation),
    },
  };
  // The login that reads the slot during the run: kept with the plan in memory only, under a symbol
  // (JSON.stringify leaves it out, so never in a dry run's JSON or a store; a spread copy keeps it).
  return release && req.profile?.sourceDb ? withReleaseDb(plan, req.profile.sourceDb) : plan;
}

const RELEASE_DB = Symbol('offsetctl.move.releaseDb');

/** The plan with the login its slot is read with during the run (see planMove). */
export function withReleaseDb<T extends object>(plan: T, db: SourceDbSettings): T {
  (plan as T & { [RELEASE_DB]?: SourceDbSettings })[RELEASE_DB] = db;
  return plan;
}

/** The source database login a move's plan reads its slot with (see planMove). */
export function releaseDbOf(plan: object): SourceDbSettings | undefined {
  return (plan as { [RELEASE_DB]?: SourceDbSettings })[RELEASE_DB];
}

/** The checkpoints are on the target's Kafka cluster, and cover every partition the sink has committed. */
async function previewTranslation(translate: NonNullable<MoveRequest['translate']>, source: ClusterFacts, target: ClusterFacts, group: string, current: OffsetEntry[]): Promise<NonNullable<MovePlan['translation']>> {
  const topic = checkpointsTopic(translate.alias);
  if (translate.source) await sameKafkaCluster(translate.source, source);
  const admin = new KafkaAdmin(translate.kafka);
  try {
    const id = await admin.clusterId();
    if (target.kafkaClusterId && id !== target.kafkaClusterId) {
      throw new OpsError('E_PREFLIGHT', `the Kafka cluster at ${translate.kafka.bootstrap.join(',')} is cluster ${id}, but the target Connect cluster ${target.url} works with Kafka cluster ${target.kafkaClusterId}: MirrorMaker 2's checkpoints are read from the target's Kafka cluster; give its bootstrap servers (--bootstrap, or the target context's bootstrap). Nothing was changed.`, { field: 'bootstrap' });
    }
    // The translated offsets are written for the sink's topics there: they must exist (MirrorMaker creates them).
    const topics = [...new Set(current.map((e) => String(e.partition['kafka_topic'])))];
    await admin.partitionCounts(topics).catch((err: unknown) => {
      throw new OpsError('E_PREFLIGHT', `${(err as Error).message}: MirrorMaker 2 has not mirrored it to the target's Kafka cluster, so the sink has nothing to read there. Nothing was changed.`, { field: 'translate-offsets', cause: err });
    });
  } finally {
    await admin.close();
  }
  const { checkpoints } = await readCheckpoints(translate.kafka, topic, group);
  const preview = translateSinkOffsets(current, checkpoints);
  const refusal = translationRefusal(preview, group, topic);
  if (refusal) throw new OpsError('E_PREFLIGHT', `${refusal}. Nothing was changed.`, { field: 'translate-offsets' });
  return { alias: translate.alias, topic, kafka: translate.kafka, ...(translate.source ? { source: translate.source } : {}), preview };
}

/** The Kafka cluster given to check the translation against is the one the sink's Connect cluster works with. */
async function sameKafkaCluster(settings: KafkaSettings, source: ClusterFacts): Promise<void> {
  const admin = new KafkaAdmin(settings);
  try {
    const id = await admin.clusterId().catch((err: unknown) => {
      throw new OpsError('E_PREFLIGHT', `the Kafka cluster at ${settings.bootstrap.join(',')} (--from-bootstrap, or the current context's bootstrap) did not answer: ${(err as Error).message}. Nothing was changed.`, { field: 'from-bootstrap', cause: err });
    });
    if (source.kafkaClusterId && id !== source.kafkaClusterId) {
      throw new OpsError('E_PREFLIGHT', `the Kafka cluster at ${settings.bootstrap.join(',')} is cluster ${id}, but ${source.url} works with Kafka cluster ${source.kafkaClusterId}: --from-bootstrap names the Kafka cluster the sink reads now. Nothing was changed.`, { field: 'from-bootstrap' });
    }
  } finally {
    await admin.close();
  }
}

function sameUrl(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}
