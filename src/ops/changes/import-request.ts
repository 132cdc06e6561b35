// An import as a change request (issue 32): where the team's policy (or the context) requires
// approval, `import` records this document instead of creating anything: the target cluster (URL,
// key, members), the backup's digest and the command's choices, and per connector its class, a
// digest of the configuration it would be created with (secrets filled in; the values are not
// kept), its offsets and the state it is put in — and a digest over all of it. The backup itself
// is not stored (it may hold secrets): `changes apply <id> --backup <file>` names it again, and
// `checkImportRequest` refuses (nothing changed) a backup, cluster or plan other than approved.
import type { HttpSender } from '../../http/client.js';
import { connectMembers, sameConnectCluster } from '../cluster/index.js';
import { OpsError } from '../errors.js';
import { canonicalJson } from '../offsets/index.js';
import { contentDigest, withCheckedDigest } from './request-digest.js';
import type { PlannedBy } from './saved-plan.js';

export const IMPORT_REQUEST_FORMAT = 'offsetctl-import-request/1';

export interface ImportChoices {
  only?: string[];
  replace?: boolean;
  allowPluginVersionChange?: boolean;
  allowDuplicateSource?: boolean;
}

/** What an import plan says that a request keeps (ops/move's ImportPlan has all of it). */
export interface ImportPlanFacts {
  to: { url: string; key: string; kafkaClusterId?: string };
  items: ReadonlyArray<{
    connector: string;
    connectorType: string;
    plugin: { class: string };
    config: Record<string, string>;
    offsets: ReadonlyArray<unknown>;
    stateAfter: string;
    replaces: boolean;
  }>;
}

interface ImportedConnector {
  name: string;
  connectorType: string;
  connectorClass: string;
  configDigest: string;
  offsets: unknown[];
  stateAfter: string;
  replaces: boolean;
}

export interface ImportRequestDoc {
  format: typeof IMPORT_REQUEST_FORMAT;
  plannedAt: string;
  plannedBy: PlannedBy;
  operation: 'import';
  clusterUrl: string;
  clusterKey: string;
  members: string[];
  /** sha256 over the canonical JSON of the backup as read (its secrets, if any, never stored). */
  backupDigest: string;
  choices: ImportChoices;
  connectors: ImportedConnector[];
  digest: string;
}

const sha = contentDigest;

export function isImportRequest(doc: unknown): doc is ImportRequestDoc {
  return typeof doc === 'object' && doc !== null && (doc as { format?: unknown }).format === IMPORT_REQUEST_FORMAT;
}

function connectorsOf(plan: ImportPlanFacts): ImportedConnector[] {
  return plan.items.map((i) => ({
    name: i.connector,
    connectorType: i.connectorType,
    connectorClass: i.plugin.class,
    configDigest: sha(i.config),
    offsets: JSON.parse(JSON.stringify(i.offsets)) as unknown[],
    stateAfter: i.stateAfter,
    replaces: i.replaces,
  }));
}

export async function importRequestDoc(
  plan: ImportPlanFacts,
  http: HttpSender,
  backup: unknown,
  choices: ImportChoices,
  meta: { plannedBy: PlannedBy; now?: Date },
): Promise<ImportRequestDoc> {
  const content: Omit<ImportRequestDoc, 'digest'> = {
    format: IMPORT_REQUEST_FORMAT,
    plannedAt: (meta.now ?? new Date()).toISOString(),
    plannedBy: meta.plannedBy,
    operation: 'import',
    clusterUrl: plan.to.url,
    clusterKey: plan.to.key,
    members: await connectMembers(http, plan.to.url),
    backupDigest: sha(backup),
    choices: JSON.parse(JSON.stringify(choices)) as ImportChoices,
    connectors: connectorsOf(plan),
  };
  return { ...content, digest: sha(content) };
}

/** A stored import request's document, its digest checked against its content. */
export function readImportRequest(doc: unknown, where: string): ImportRequestDoc {
  if (!isImportRequest(doc) || typeof doc.digest !== 'string') throw new OpsError('E_PLAN_INVALID', `${where} holds no import request`, { field: 'plan' });
  return withCheckedDigest(doc, where);
}

/** Refuses (nothing changed) another backup, another cluster, or an import that would now create other connectors, configurations or offsets. */
export async function checkImportRequest(doc: ImportRequestDoc, backup: unknown, now: ImportPlanFacts, http: HttpSender): Promise<void> {
  const problems: string[] = [];
  if (sha(backup) !== doc.backupDigest)
    problems.push(`the backup given has digest ${sha(backup)}, the request was made for ${doc.backupDigest}: give the same file with --backup`);
  if (now.to.key !== doc.clusterKey) problems.push(`the target cluster was ${doc.clusterKey} (through ${doc.clusterUrl}) when requested, ${now.to.key} now`);
  else if (!sameConnectCluster(doc.members, await connectMembers(http, now.to.url)))
    problems.push(`the target is another Connect cluster of ${doc.clusterKey} than requested (workers ${doc.members.join(', ')})`);
  const fresh = connectorsOf(now);
  for (const c of doc.connectors) {
    const is = fresh.find((f) => f.name === c.name);
    if (!is) problems.push(`${c.name} is not in the import now`);
    else if (canonicalJson(is) !== canonicalJson(c)) {
      const which = (Object.keys(c) as Array<keyof ImportedConnector>).filter((k) => canonicalJson(c[k]) !== canonicalJson(is[k]));
      problems.push(`${c.name}: ${which.join(', ')} changed since the request (a connector of that name created meanwhile, another secret?)`);
    }
  }
  for (const f of fresh) if (!doc.connectors.some((c) => c.name === f.name)) problems.push(`${f.name} was not requested`);
  if (problems.length > 0)
    throw new OpsError('E_PLAN_STALE', `change request for the import no longer fits, nothing was changed:\n  ${problems.join('\n  ')}\nRequest it again.`, {
      field: 'plan',
    });
}
