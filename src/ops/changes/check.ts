// A saved plan checked against the cluster as it is now, right before it is applied: the full
// pre-flight again, then every reason the plan may no longer be the change that was reviewed.
// Refused (exit 2, nothing changed): a plan too old or from the future, another cluster, a
// connector that is gone or is not the planned one any more (other type, class or topics), a plan
// already applied. Reported, for the face to show and ask about: how the starting offsets moved,
// and whether that changes what the plan does (movement.ts).
import { HttpTransportError } from '../../http/client.js';
import type { KafkaSettings } from '../../kafka/connection.js';
import { clusterIdentity, sameConnectCluster, lookupKeys, requireSupportedWorker, WorkerRoot } from '../cluster/index.js';
import { getOffsets, getSettledConnectorInfo } from '../connect/index.js';
import type { OpsContext } from '../context.js';
import { OpsError } from '../errors.js';
import { canonicalJson, checkPartitionCount, DEFAULT_LIMITS, diffOffsets, offsetEntries, planSnapshotRestore, type OffsetLimits } from '../offsets/index.js';
import type { ProfileOptions } from '../profiles/index.js';
import { changesNothing, connectorIdentity, planReset, planRewind, type ConnectorIdentity, type Plan } from '../plan/index.js';
import { movementSince, type Movement } from './movement.js';
import type { SavedPlan } from './saved-plan.js';

export const DEFAULT_MAX_AGE_MS = 24 * 3_600_000;
/** Clocks of two machines differ a little; a plan made further in the future than this is refused. */
const CLOCK_SKEW_MS = 5 * 60_000;

export interface CheckOptions {
  now?: Date;
  /** Plans older than this are refused (default 24 h). */
  maxAgeMs?: number;
  limits?: OffsetLimits;
  /** For a sink's broker checks, as when planning. */
  kafka?: KafkaSettings;
  /** Each connector's profile options (a Debezium source's database, the risks accepted): the profile is asked again, like the rest of the pre-flight. */
  profileFor?: (connector: string) => Promise<ProfileOptions>;
}

/** One connector of a checked plan: the plan to apply (refreshed) and what changed since planning. */
export interface CheckedConnector {
  /** The saved plan with the connector as it is now: state, current offsets, diff; its targets and inputs as saved. */
  plan: Plan;
  saved: Plan;
  movement: Movement;
  /** Things that changed but do not refuse the plan (the state, failed tasks), in words. */
  notes: string[];
}

export interface CheckedPlan {
  saved: SavedPlan;
  connectors: CheckedConnector[];
  /** Some connector's offsets moved in a way that changes what the plan does. */
  changesMeaning: boolean;
  ageMs: number;
}

/**
 * Checks a saved plan (read by readSavedPlan) against the cluster now; reads only.
 *
 * @example const checked = await checkSavedPlan(ctx, readSavedPlan(doc, 'plan.json'), { maxAgeMs: 3_600_000 })
 */
export async function checkSavedPlan(ctx: OpsContext, saved: SavedPlan, options: CheckOptions = {}): Promise<CheckedPlan> {
  const now = options.now ?? new Date();
  const maxAge = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const ageMs = now.getTime() - Date.parse(saved.plannedAt);
  if (ageMs > maxAge) {
    throw new OpsError('E_PLAN_STALE', `the plan was made ${ago(ageMs)} ago (${saved.plannedAt}, by ${saved.plannedBy.user}), which is older than the maximum age of ${ago(maxAge)}; the cluster has moved on since: make a new plan (nothing was changed)`, { field: 'max-age' });
  }
  if (ageMs < -CLOCK_SKEW_MS) {
    throw new OpsError('E_PLAN_STALE', `the plan says it was made at ${saved.plannedAt}, ${ago(-ageMs)} in the future: the clocks of the planning machine and this one differ, or the time was edited; nothing was changed`, { field: 'plannedAt' });
  }
  const root = new WorkerRoot(ctx.http, ctx.url);
  await requireSupportedWorker(root);
  const cluster = await clusterIdentity(root, { members: true });
  if (!lookupKeys(cluster).includes(saved.clusterKey)) {
    // Only a worker that names another Kafka cluster is another cluster: one that cannot be reached
    // or does not say is refused for that (a CI job reading E_PLAN_STALE would plan again when
    // Connect is merely down).
    if (cluster.kafkaClusterId === undefined) throw await unknownCluster(root, saved);
    throw new OpsError('E_PLAN_STALE', `the plan was made for cluster ${describeKey(saved.clusterKey)} (through ${saved.clusterUrl}), but ${ctx.url} serves ${describeKey(cluster.key)}: another cluster; nothing was changed`, { field: 'url' });
  }
  // Two Connect clusters on one Kafka cluster share the key: their members tell them apart.
  const plannedOn = saved.plans.flatMap((p) => p.clusterMembers ?? []);
  if (!sameConnectCluster(plannedOn, cluster.members)) {
    throw new OpsError('E_PLAN_STALE', `the plan was made on another Connect cluster of Kafka cluster ${describeKey(saved.clusterKey)}: through ${saved.clusterUrl} (workers ${[...new Set(plannedOn)].join(', ')}), `
      + `but ${ctx.url} is a worker of the Connect cluster of ${(cluster.members ?? []).join(', ')}; nothing was changed: plan again on the cluster you mean`, { field: 'url' });
  }
  const refusals: string[] = [];
  const connectors: CheckedConnector[] = [];
  for (const savedPlan of saved.plans) {
    try {
      connectors.push(await checkConnector(ctx, savedPlan, saved, options));
    } catch (err) {
      if (err instanceof OpsError && (err.code === 'E_PLAN_STALE' || err.code === 'E_CONNECTOR_NOT_FOUND' || err.code === 'E_PREFLIGHT' || err.code === 'E_OFFSETS_INVALID')) {
        refusals.push(`${savedPlan.connector}: ${err.message}`);
      } else throw err;
    }
  }
  if (refusals.length > 0) {
    const one = saved.plans.length === 1;
    throw new OpsError('E_PLAN_STALE', `${one ? 'the plan' : `the plan of ${saved.plans.length} connectors`} no longer fits the cluster, nothing was changed:\n  ${refusals.join('\n  ')}\nMake a new plan.`, { field: 'plan' });
  }
  await refuseApplied(ctx, saved);
  return { saved, connectors, changesMeaning: connectors.some((c) => c.movement.changesMeaning), ageMs };
}

/** Why the worker could not tell which Kafka cluster it serves: unreachable (E_UNREACHABLE), or no answer naming it. */
async function unknownCluster(root: WorkerRoot, saved: SavedPlan): Promise<OpsError> {
  const answer = await root.read();
  const failure = root.failure;
  if (!answer && failure instanceof HttpTransportError) {
    return new OpsError('E_UNREACHABLE', `${failure.message}; nothing was changed`, { cause: failure, ...(failure.hint ? { hint: failure.hint } : {}) });
  }
  const said = answer ? `answered GET / with HTTP ${answer.status}${answer.status === 200 ? ' without a kafka_cluster_id' : ''}` : 'could not be read';
  return new OpsError('E_PREFLIGHT', `the plan was made for cluster ${describeKey(saved.clusterKey)}, but the worker at ${root.url} ${said}, `
    + 'so which cluster it serves is unknown; nothing was changed: try again when the worker answers, or pass --url of another worker of the cluster', { field: 'url' });
}

async function checkConnector(ctx: OpsContext, saved: Plan, doc: SavedPlan, options: CheckOptions): Promise<CheckedConnector> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  let fresh: Plan;
  try {
    fresh = await refreshed(ctx, saved, limits, options.kafka, (await options.profileFor?.(saved.connector)) ?? {});
  } catch (err) {
    if (err instanceof OpsError && err.code === 'E_CONNECTOR_NOT_FOUND') throw new OpsError('E_PLAN_STALE', `connector ${saved.connector} no longer exists on ${ctx.url}`, { field: 'connector', cause: err });
    throw err;
  }
  const differences = identityDifferences(saved.identity, fresh.identity);
  if (differences.length > 0) {
    throw new OpsError('E_PLAN_STALE', `${saved.connector} is not the connector the plan was made for (deleted and created again?): ${differences.join('; ')}`, { field: 'connector' });
  }
  const movement = movementSince(saved, fresh.currentOffsets);
  const notes: string[] = [];
  if (fresh.stateBefore !== saved.stateBefore) notes.push(`${saved.connector} was ${saved.stateBefore} when planned and is ${fresh.stateBefore} now`);
  if (doc.operation === 'rollback' && !sameTargets(fresh, saved)) notes.push(`partitions appeared or went since planning: the rollback removes every partition the snapshot does not have, as of now`);
  return { plan: fresh, saved, movement, notes };
}

/** The saved plan, with the connector as it is now; its targets and inputs as reviewed. */
async function refreshed(ctx: OpsContext, saved: Plan, limits: OffsetLimits, kafka: KafkaSettings | undefined, profile: ProfileOptions): Promise<Plan> {
  const resumeAfter = saved.resumeAfter ?? 'auto';
  switch (saved.operation) {
    case 'rewind': {
      // The whole pre-flight again, on the reviewed targets (shape, plugin rules, a sink's topics).
      const fresh = await planRewind(ctx, { connector: saved.connector, offsets: saved.targetOffsets, resumeAfter, limits, profile, ...(kafka ? { kafka } : {}), ...(saved.positions ? { positions: saved.positions } : {}) });
      return { ...fresh, inputs: saved.inputs, warnings: merged(saved.warnings, fresh.warnings) };
    }
    case 'reset': {
      const fresh = await planReset(ctx, { connector: saved.connector, resumeAfter, profile });
      return { ...fresh, inputs: saved.inputs, warnings: merged(saved.warnings, fresh.warnings) };
    }
    case 'rollback': {
      // The snapshot's offsets travel in the plan (a CI runner's store may not have the snapshot):
      // put them back exactly, removing what the connector has now and the snapshot does not.
      const root = new WorkerRoot(ctx.http, ctx.url);
      const cluster = await clusterIdentity(root);
      const info = await getSettledConnectorInfo(ctx.http, ctx.url, saved.connector);
      if (info.type !== saved.connectorType) throw new OpsError('E_PLAN_STALE', `the plan restores ${saved.connectorType} offsets but ${saved.connector} is now a ${info.type} connector`, { field: 'connector' });
      const current = offsetEntries(await getOffsets(ctx.http, ctx.url, saved.connector));
      const offsets = planSnapshotRestore(saved.targetOffsets, current);
      checkPartitionCount(offsets.length, limits, `the rollback to snapshot ${saved.snapshotId}`);
      const diff = diffOffsets(current, saved.targetOffsets, { mode: 'replace' });
      return {
        ...saved, clusterUrl: ctx.url, clusterKey: cluster.key, identity: connectorIdentity(info, cluster),
        stateBefore: info.state, tasks: info.tasks, currentOffsets: current, diff,
        nothingToChange: changesNothing(diff) && info.state === saved.stateAfter,
        inputs: { ...saved.inputs, offsets },
      };
    }
    default:
      throw new OpsError('E_PLAN_INVALID', `a ${String(saved.operation)} plan cannot be applied from a saved plan`, { field: 'operation' });
  }
}

function sameTargets(fresh: Plan, saved: Plan): boolean {
  return canonicalJson(fresh.inputs.offsets) === canonicalJson(saved.inputs.offsets);
}

function merged(a: string[], b: string[]): string[] {
  return [...new Set([...a, ...b])];
}

/** What makes the connector another one: cluster, type, class, topics (the name is the same by construction). */
export function identityDifferences(planned: ConnectorIdentity, now: ConnectorIdentity): string[] {
  const out: string[] = [];
  if (planned.kafkaClusterId !== undefined && now.kafkaClusterId !== undefined && planned.kafkaClusterId !== now.kafkaClusterId) {
    out.push(`Kafka cluster ${planned.kafkaClusterId} when planned, ${now.kafkaClusterId} now`);
  }
  if (planned.type !== now.type) out.push(`a ${planned.type} connector when planned, a ${now.type} connector now`);
  if (planned.connectorClass !== now.connectorClass) out.push(`connector.class ${planned.connectorClass || '(none)'} when planned, ${now.connectorClass || '(none)'} now`);
  for (const key of new Set([...Object.keys(planned.topics), ...Object.keys(now.topics)])) {
    const was = planned.topics[key];
    const is = now.topics[key];
    if (was !== is) out.push(`${key} ${was === undefined ? '(not set)' : JSON.stringify(was)} when planned, ${is === undefined ? '(not set)' : JSON.stringify(is)} now`);
  }
  return out;
}

/** A plan applied once is not applied again: its digest is in the context of the run that applied it. */
async function refuseApplied(ctx: OpsContext, saved: SavedPlan): Promise<void> {
  for (const p of saved.plans) {
    const runs = await ctx.store.listRuns({ connector: p.connector });
    const applied = runs.find((r) => r.context.planDigest === saved.digest && r.status !== 'failed');
    if (!applied) continue;
    const how = applied.displayStatus === 'succeeded' ? `was applied by run ${applied.id} at ${applied.startedAt}`
      : applied.displayStatus === 'interrupted' ? `is being applied by run ${applied.id}, which was interrupted: finish it with \`offsetctl runs resume ${applied.id}\``
        : `is being applied by run ${applied.id} (${applied.displayStatus})`;
    throw new OpsError('E_PLAN_STALE', `this plan ${how}; a plan is applied once: make a new plan for another change (nothing was changed)`, { field: 'plan' });
  }
}

function describeKey(key: string): string {
  return key.startsWith('kafka:') ? `with Kafka cluster id ${key.slice('kafka:'.length)}` : key.replace(/^url:/, 'at ');
}

/** 26 h, 90 min, 40 s: the largest unit that reads well. */
export function ago(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7_200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
}
