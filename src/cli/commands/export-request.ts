// `offsetctl changes apply <id>` of an approved consistent export (move-backup.ts runs it): the request's connectors
// exported from the cluster it names (checked to be the same Connect cluster, else refused with
// nothing stopped), each stop through the door (the export's runAudited: past a policy naming
// `export` only for a request the store has as being applied), the backup on stdout as `export`
// writes it, the outcome recorded on the request.
import type { MoveFace } from './move-face.js';
import { warnUnaudited } from './say.js';
import { clusterKeyOf } from '../change-request.js';
import { confirm } from '../confirm.js';
import * as ops from '../../ops/index.js';

/** Checks the approved request against the cluster reached, asks, and marks it applying; returns true (the export goes on as requested). */
export async function startExportRequest(face: MoveFace, id: string, yes: boolean): Promise<true> {
  const { doc } = await ops.approvedExport(face.ctx, id);
  await ops.checkExportRequest(doc, { url: face.ctx.url, key: await clusterKeyOf(face.ctx.http, face.ctx.url) }, face.ctx.http);
  await confirm(
    `Export ${doc.connectors.length} connector(s) consistently (approved change request ${id})? ` +
      'Each running one is stopped briefly (snapshot first) and put back.',
    { yes },
  );
  warnUnaudited(await ops.startApplying(face.ctx, id));
  return true;
}

export async function finishExportRequest(
  face: MoveFace,
  id: string,
  result: { succeeded: boolean; runIds: string[]; batchId?: string; message: string },
): Promise<void> {
  warnUnaudited(await ops.finishApplying(face.ctx, id, result));
}
