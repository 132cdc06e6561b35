// The undo of an import as a change request (issue 32): `rollback <connector>` of a connector an
// `import` created deletes it (its offsets kept in a snapshot). Where a policy (or the context)
// requires approval for rollback, it records the import run it undoes, the connector and its
// cluster, with a digest; nothing is deleted. Once someone else approves, `changes apply <id>`
// finds the import to undo again, refuses it when it is no longer that run (nothing changed), and
// undoes it through the door (rollbackImportAudited: past the policy only for this request being
// applied, for that import run).
import { OpsError } from '../errors.js';
import { contentDigest, withCheckedDigest } from './request-digest.js';
import type { PlannedBy } from './saved-plan.js';

const IMPORT_UNDO_REQUEST_FORMAT = 'offsetctl-import-undo-request/1';

export interface ImportUndoRequestDoc {
  format: typeof IMPORT_UNDO_REQUEST_FORMAT;
  plannedAt: string;
  plannedBy: PlannedBy;
  operation: 'rollback';
  clusterUrl: string;
  clusterKey: string;
  connector: string;
  /** The import run to undo. */
  undoes: string;
  digest: string;
}

export function isImportUndoRequest(doc: unknown): doc is ImportUndoRequestDoc {
  return typeof doc === 'object' && doc !== null && (doc as { format?: unknown }).format === IMPORT_UNDO_REQUEST_FORMAT;
}

export function importUndoRequestDoc(
  imported: { id: string; connector: string; clusterUrl: string; clusterKey: string },
  meta: { plannedBy: PlannedBy; now?: Date },
): ImportUndoRequestDoc {
  const content: Omit<ImportUndoRequestDoc, 'digest'> = {
    format: IMPORT_UNDO_REQUEST_FORMAT,
    plannedAt: (meta.now ?? new Date()).toISOString(),
    plannedBy: meta.plannedBy,
    operation: 'rollback',
    clusterUrl: imported.clusterUrl,
    clusterKey: imported.clusterKey,
    connector: imported.connector,
    undoes: imported.id,
  };
  return { ...content, digest: contentDigest(content) };
}

export function readImportUndoRequest(doc: unknown, where: string): ImportUndoRequestDoc {
  if (!isImportUndoRequest(doc) || typeof doc.digest !== 'string') throw new OpsError('E_PLAN_INVALID', `${where} holds no request to undo an import`, { field: 'plan' });
  return withCheckedDigest(doc, where);
}

/** The import to undo now against the approved request: the same import run, else refused with nothing changed. */
export function checkImportUndoRequest(doc: ImportUndoRequestDoc, now: { id: string; clusterKey: string } | undefined): void {
  const problem =
    now === undefined
      ? `${doc.connector} has no import left to undo (run ${doc.undoes} was undone, or another run of it came after)`
      : now.id !== doc.undoes
        ? `the import to undo is run ${now.id} now, the request was for run ${doc.undoes}`
        : now.clusterKey !== doc.clusterKey
          ? `run ${now.id} is on ${now.clusterKey}, the request names ${doc.clusterKey}`
          : undefined;
  if (problem) throw new OpsError('E_PLAN_STALE', `change request to undo the import of ${doc.connector} no longer fits, nothing was changed: ${problem}`, { field: 'connector' });
}
