// A consistent export as a change request (issue 32): where a policy names `export`, `export
// --consistent` (which stops each running connector for a moment) records the cluster (URL, key,
// members), the connectors and whether literal secrets are kept, with a digest; nothing is
// stopped. `changes apply <id>` exports them then, on the same Connect cluster (else refused,
// nothing changed), and writes the backup to the applier's stdout.
import type { HttpSender } from '../../http/client.js';
import { connectMembers, sameConnectCluster } from '../cluster/index.js';
import { OpsError } from '../errors.js';
import { contentDigest, withCheckedDigest } from './request-digest.js';
import type { PlannedBy } from './saved-plan.js';

export const EXPORT_REQUEST_FORMAT = 'offsetctl-export-request/1';

export interface ExportRequestDoc {
  format: typeof EXPORT_REQUEST_FORMAT;
  plannedAt: string;
  plannedBy: PlannedBy;
  operation: 'export';
  clusterUrl: string;
  clusterKey: string;
  members: string[];
  connectors: string[];
  includeSecrets: boolean;
  digest: string;
}

const sha = contentDigest;

export function isExportRequest(doc: unknown): doc is ExportRequestDoc {
  return typeof doc === 'object' && doc !== null && (doc as { format?: unknown }).format === EXPORT_REQUEST_FORMAT;
}

export async function exportRequestDoc(
  cluster: { url: string; key: string },
  http: HttpSender,
  connectors: readonly string[],
  includeSecrets: boolean,
  meta: { plannedBy: PlannedBy; now?: Date },
): Promise<ExportRequestDoc> {
  const content: Omit<ExportRequestDoc, 'digest'> = {
    format: EXPORT_REQUEST_FORMAT,
    plannedAt: (meta.now ?? new Date()).toISOString(),
    plannedBy: meta.plannedBy,
    operation: 'export',
    clusterUrl: cluster.url,
    clusterKey: cluster.key,
    members: await connectMembers(http, cluster.url),
    connectors: [...connectors],
    includeSecrets,
  };
  return { ...content, digest: sha(content) };
}

export function readExportRequest(doc: unknown, where: string): ExportRequestDoc {
  if (!isExportRequest(doc) || typeof doc.digest !== 'string') throw new OpsError('E_PLAN_INVALID', `${where} holds no export request`, { field: 'plan' });
  return withCheckedDigest(doc, where);
}

/** The cluster reached now must be the one requested (same key; on one Kafka cluster, the same Connect cluster). */
export async function checkExportRequest(doc: ExportRequestDoc, now: { url: string; key: string }, http: HttpSender): Promise<void> {
  const problem =
    now.key !== doc.clusterKey
      ? `the cluster was ${doc.clusterKey} (through ${doc.clusterUrl}) when requested, ${now.key} now (through ${now.url})`
      : !sameConnectCluster(doc.members, await connectMembers(http, now.url))
        ? `${now.url} is another Connect cluster of ${doc.clusterKey} than requested (workers ${doc.members.join(', ')})`
        : undefined;
  if (problem)
    throw new OpsError('E_PLAN_STALE', `change request for the export no longer fits, nothing was changed: ${problem}; request it again`, { field: 'url' });
}
