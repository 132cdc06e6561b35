// A move or a copy as a change request (issue 32): where the team's policy (or the context) requires
// approval, `move`/`copy` record this document instead of moving anything. It is the plan as it was
// shown: both clusters (URL, key, the Connect cluster's members), the connector and its class, the
// command's choices, the offsets when planned and a digest of the configuration created on the
// target — and a digest over all of it, like a saved plan's. On apply the face plans the move again
// with the same choices and `checkMoveRequest` refuses it (nothing changed) when the clusters, the
// connector or its configuration are not the ones approved. Structural types only: this room does
// not know the move room; a MovePlan fits `MovePlanFacts` as it is.
import type { HttpSender } from '../../http/client.js';
import { connectMembers, sameConnectCluster } from '../cluster/index.js';
import { OpsError } from '../errors.js';
import { contentDigest, withCheckedDigest } from './request-digest.js';
import type { PlannedBy } from './saved-plan.js';

export const MOVE_REQUEST_FORMAT = 'offsetctl-move-request/1';

/** The command's choices, applied again as approved (`--as`, `--keep-source`, `--target-state`, …). */
export interface MoveChoices {
  as?: string;
  keepSource?: boolean;
  targetState?: 'auto' | 'RUNNING' | 'PAUSED' | 'STOPPED';
  allowPluginVersionChange?: boolean;
  set?: Record<string, string>;
}

/** What a move plan says that a request keeps (ops/move's MovePlan has all of it). */
export interface MovePlanFacts {
  operation: 'move' | 'copy';
  connector: string;
  targetName: string;
  connectorType: string;
  stateBefore: string;
  stateAfter: string;
  sourceAfter: string;
  from: { url: string; key: string; kafkaClusterId?: string };
  to: { url: string; key: string; kafkaClusterId?: string };
  plugin: { class: string; version?: string };
  config: Record<string, string>;
  currentOffsets: ReadonlyArray<unknown>;
}

interface ClusterSide {
  url: string;
  key: string;
  kafkaClusterId?: string;
  /** The Connect cluster's members when requested (two Connect clusters on one Kafka cluster share the key). */
  members: string[];
}

export interface MoveRequestDoc {
  format: typeof MOVE_REQUEST_FORMAT;
  plannedAt: string;
  plannedBy: PlannedBy;
  /** `rollback`: the undo of the move run `undoes` (its connector back on the original's cluster). */
  operation: 'move' | 'copy' | 'rollback';
  undoes?: string;
  /** The original's cluster: the request is filed (and its run locked) under it. */
  clusterUrl: string;
  clusterKey: string;
  connector: string;
  targetName: string;
  connectorType: string;
  connectorClass: string;
  from: ClusterSide;
  to: ClusterSide;
  choices: MoveChoices;
  /** sha256 over the canonical JSON of the configuration created on the target (its values are not kept). */
  configDigest: string;
  currentOffsets: unknown[];
  stateBefore: string;
  stateAfter: string;
  sourceAfter: string;
  digest: string;
}

const sha = contentDigest;

export function isMoveRequest(doc: unknown): doc is MoveRequestDoc {
  return typeof doc === 'object' && doc !== null && (doc as { format?: unknown }).format === MOVE_REQUEST_FORMAT;
}

/** The request's document for a planned move: both clusters' members are read now. */
export async function moveRequestDoc(
  plan: MovePlanFacts,
  clusters: { from: HttpSender; to: HttpSender },
  choices: MoveChoices,
  meta: { plannedBy: PlannedBy; now?: Date },
): Promise<MoveRequestDoc> {
  const side = async (c: MovePlanFacts['from'], http: HttpSender): Promise<ClusterSide> => ({
    url: c.url,
    key: c.key,
    ...(c.kafkaClusterId ? { kafkaClusterId: c.kafkaClusterId } : {}),
    members: await connectMembers(http, c.url),
  });
  const content: Omit<MoveRequestDoc, 'digest'> = {
    format: MOVE_REQUEST_FORMAT,
    plannedAt: (meta.now ?? new Date()).toISOString(),
    plannedBy: meta.plannedBy,
    operation: plan.operation,
    clusterUrl: plan.from.url,
    clusterKey: plan.from.key,
    connector: plan.connector,
    targetName: plan.targetName,
    connectorType: plan.connectorType,
    connectorClass: plan.plugin.class,
    from: await side(plan.from, clusters.from),
    to: await side(plan.to, clusters.to),
    // Through JSON once, so the digest covers exactly what a reader of the stored row sees.
    choices: JSON.parse(JSON.stringify(choices)) as MoveChoices,
    configDigest: sha(plan.config),
    currentOffsets: JSON.parse(JSON.stringify(plan.currentOffsets)) as unknown[],
    stateBefore: plan.stateBefore,
    stateAfter: plan.stateAfter,
    sourceAfter: plan.sourceAfter,
  };
  return { ...content, digest: sha(content) };
}

/** A stored move request's document, its digest checked against its content (a row edited in the store is refused). */
export function readMoveRequest(doc: unknown, where: string): MoveRequestDoc {
  if (!isMoveRequest(doc) || typeof doc.digest !== 'string') throw new OpsError('E_PLAN_INVALID', `${where} holds no move request`, { field: 'plan' });
  return withCheckedDigest(doc, where);
}

/**
 * The move planned again now (same choices) against the approved request: refused, nothing
 * changed, when either cluster, the connector or the configuration created there is another
 * than approved. The offsets may have moved on (a running connector): they are read after the stop.
 */
export async function checkMoveRequest(doc: MoveRequestDoc, now: MovePlanFacts, clusters: { from: HttpSender; to: HttpSender }): Promise<void> {
  const problems = await sideProblems(doc, now, clusters);
  if (now.operation !== doc.operation || now.connector !== doc.connector || now.targetName !== doc.targetName)
    problems.push(
      `the plan is a ${now.operation} of ${now.connector} as ${now.targetName}, the request a ${doc.operation} of ${doc.connector} as ${doc.targetName}`,
    );
  if (now.connectorType !== doc.connectorType) problems.push(`a ${doc.connectorType} connector when requested, a ${now.connectorType} connector now`);
  if (now.plugin.class !== doc.connectorClass) problems.push(`connector.class ${doc.connectorClass} when requested, ${now.plugin.class} now`);
  if (sha(now.config) !== doc.configDigest)
    problems.push(`the configuration it would get on the target changed since the request (digest ${doc.configDigest} then, ${sha(now.config)} now)`);
  if (now.stateAfter !== doc.stateAfter || now.sourceAfter !== doc.sourceAfter)
    problems.push(`it would end ${now.stateAfter} (original: ${now.sourceAfter}), the request said ${doc.stateAfter} (original: ${doc.sourceAfter})`);
  if (problems.length > 0) {
    throw new OpsError(
      'E_PLAN_STALE',
      `change request for the ${doc.operation} of ${doc.connector} no longer fits, nothing was changed:\n  ${problems.join('\n  ')}\nRequest it again.`,
      { field: 'plan' },
    );
  }
}

/** The two clusters now against the request's: the same keys and, on one Kafka cluster, the same Connect clusters (their members meet). */
async function sideProblems(
  doc: MoveRequestDoc,
  now: { from: { url: string; key: string }; to: { url: string; key: string } },
  clusters: { from: HttpSender; to: HttpSender },
): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, was, is, http] of [
    ["the original's cluster", doc.from, now.from, clusters.from],
    ['the target cluster', doc.to, now.to, clusters.to],
  ] as const) {
    if (was.key !== is.key) problems.push(`${name} was ${was.key} (through ${was.url}) when requested, ${is.key} now (through ${is.url})`);
    else if (!sameConnectCluster(was.members, await connectMembers(http, is.url)))
      problems.push(`${name} is another Connect cluster of ${is.key} than the one requested (workers ${was.members.join(', ')})`);
  }
  return problems;
}

/** What the undo of a move names: the move run, its connector on both clusters. */
export interface MoveUndoFacts {
  runId: string;
  connector: string;
  targetName: string;
  connectorType: string;
  stateBefore?: string;
  from: { url: string; key: string };
  to: { url: string; key: string };
}

/** The request's document for undoing a move run (`rollback` of a moved connector). */
export async function moveUndoRequestDoc(
  undo: MoveUndoFacts,
  clusters: { from: HttpSender; to: HttpSender },
  meta: { plannedBy: PlannedBy; now?: Date },
): Promise<MoveRequestDoc> {
  const side = async (c: { url: string; key: string }, http: HttpSender): Promise<ClusterSide> => ({
    url: c.url,
    key: c.key,
    members: await connectMembers(http, c.url),
  });
  const content: Omit<MoveRequestDoc, 'digest'> = {
    format: MOVE_REQUEST_FORMAT,
    plannedAt: (meta.now ?? new Date()).toISOString(),
    plannedBy: meta.plannedBy,
    operation: 'rollback',
    undoes: undo.runId,
    clusterUrl: undo.from.url,
    clusterKey: undo.from.key,
    connector: undo.connector,
    targetName: undo.targetName,
    connectorType: undo.connectorType,
    connectorClass: '',
    from: await side(undo.from, clusters.from),
    to: await side(undo.to, clusters.to),
    choices: {},
    configDigest: '',
    currentOffsets: [],
    stateBefore: undo.stateBefore ?? '',
    stateAfter: undo.stateBefore ?? '',
    sourceAfter: 'restore',
  };
  return { ...content, digest: sha(content) };
}

/** The move to undo now against the approved request: the same run, on the same two clusters, else refused with nothing changed. */
export async function checkMoveUndoRequest(
  doc: MoveRequestDoc,
  now: MoveUndoFacts | undefined,
  clusters: { from: HttpSender; to: HttpSender },
): Promise<void> {
  const problems =
    now === undefined
      ? [`${doc.connector} has no move left to undo (run ${doc.undoes} was undone or finished otherwise)`]
      : await sideProblems(doc, now, clusters);
  if (now !== undefined && now.runId !== doc.undoes) problems.push(`the move to undo is run ${now.runId} now, the request was for run ${doc.undoes}`);
  if (problems.length > 0) {
    throw new OpsError(
      'E_PLAN_STALE',
      `change request for the rollback of ${doc.connector} no longer fits, nothing was changed:\n  ${problems.join('\n  ')}\nRequest it again.`,
      { field: 'plan' },
    );
  }
}
