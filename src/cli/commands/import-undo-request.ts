// `offsetctl changes apply <id>` of an approved undo of an import: the import to undo is found
// again (the same lookup `rollback` makes), checked against the request (the same import run on
// the same cluster, else refused with nothing changed), shown, asked about, then undone through
// the door (rollbackImportAudited: past the policy only for this request being applied, for that
// import run), audited, its outcome recorded on the request.
import type { ChangeRequestRecord } from '../../store/index.js';
import type { ApplyOptions } from './apply.js';
import { applyWithSignals, auditRefused, cliAuditScope, printOutcome } from './move-face.js';
import { stderr, stdout, warnUnaudited } from './say.js';
import * as load from '../load.js';

export async function applyImportUndoRequest(id: string, request: ChangeRequestRecord, opts: ApplyOptions): Promise<void> {
  const ops = await load.ops();
  const move = await load.opsMove();
  const { clusterIdentity, lookupKeys, WorkerRoot } = await load.opsCluster();
  const { resolveConnection } = await load.connection();
  const conn = await resolveConnection(opts.url || opts.context ? opts : { ...opts, url: request.clusterUrl });
  const { openCommandStore } = await load.storeChoice();
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
    const { requestHeading } = await load.present();
    info(requestHeading(request));
    info(`Roll back run ${imported!.id} (import of ${doc.connector} on ${conn.url}): ${doc.connector} will be deleted (stopped first, its offsets kept in a snapshot).`);
    if (opts.dryRun) {
      stdout('dry run: nothing was changed\n');
      return;
    }
    const { confirm } = await load.confirm();
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
