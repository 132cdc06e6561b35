// `offsetctl changes apply <id>` of an approved undo of an import: the import to undo is found
// again (the same lookup `rollback` makes), checked against the request (the same import run on
// the same cluster, else refused with nothing changed), shown, asked about, then undone through
// the door (rollbackImportAudited: past the policy only for this request being applied, for that
// import run), audited, its outcome recorded on the request.
import type { ChangeRequestRecord } from '../../store/index.js';
import type { ApplyOptions } from './apply.js';
import { applyWithSignals, auditRefused, cliAuditScope, printOutcome } from './move-face.js';
import { stderr, stdout, warnUnaudited } from './say.js';
import { WorkerRoot, clusterIdentity, lookupKeys } from '../../ops/cluster/index.js';
import { resolveConnection } from '../connection.js';
import { openCommandStore } from '../store-choice.js';
import { requestHeading } from '../../present/index.js';
import { confirm } from '../confirm.js';
import * as ops from '../../ops/index.js';
import * as move from '../../ops/move/index.js';

export async function applyImportUndoRequest(id: string, request: ChangeRequestRecord, opts: ApplyOptions): Promise<void> {
  const conn = await resolveConnection(opts.url || opts.context ? opts : { ...opts, url: request.clusterUrl });
  const store = await openCommandStore(conn.store);
  const ctx = { url: conn.url, http: conn.http, store };
  const audit = await cliAuditScope(conn, store);
  const json = conn.output === 'json';
  const info = (text: string): unknown => (json ? stderr : stdout)(`${text}\n`);
  try {
    const { doc } = await ops.approvedImportUndo(ctx, id);
    const keys = lookupKeys(await clusterIdentity(new WorkerRoot(conn.http, conn.url)));
    const imported = keys.includes(doc.clusterKey) ? await move.importToUndo(ctx, keys, doc.connector) : undefined;
    ops.checkImportUndoRequest(doc, imported);
    info(requestHeading(request));
    info(`Roll back run ${imported!.id} (import of ${doc.connector} on ${conn.url}): ${doc.connector} will be deleted (stopped first, its offsets kept in a snapshot).`);
    if (opts.dryRun) {
      stdout('dry run: nothing was changed\n');
      return;
    }
    await confirm(`Delete ${doc.connector}, which that import created (approved change request ${id})?`, { yes: opts.yes === true });
    warnUnaudited(await ops.startApplying(ctx, id));
    let outcome: Awaited<ReturnType<typeof move.rollbackImportAudited>>;
    try {
      outcome = await applyWithSignals(
        (signal, beforeStep, onEvent) =>
          move.rollbackImportAudited(ctx, doc.clusterKey, imported!, audit, { signal, onEvent, ...(beforeStep ? { beforeStep } : {}) }, id),
        info,
      );
    } catch (err) {
      warnUnaudited(await ops.finishApplying(ctx, id, { succeeded: false, runIds: [], message: (err as Error).message }));
      throw err;
    }
    warnUnaudited(await ops.finishApplying(ctx, id, { succeeded: outcome.status === 'succeeded', runIds: [outcome.runId], message: outcome.message }));
    printOutcome(outcome, json, []);
  } catch (err) {
    await auditRefused({ ctx, audit }, { action: 'rollback', connector: request.connectors[0]! }, err);
    throw err;
  } finally {
    await store.close();
    await conn.http.close().catch(() => undefined);
  }
}
