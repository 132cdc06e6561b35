// `offsetctl changes apply <id> --backup <file>` of an approved import request: the backup is not
// stored with the request (it may hold secrets), so it is named again and must be the one
// requested (its digest); the import is planned again with the choices approved and checked
// against the request (ops/changes/import-request.ts: the same cluster, connectors,
// configurations, offsets and states, else refused with nothing changed), shown, asked about, then
// applied connector by connector through the door (applyImportItemAudited: past the policy only
// for a request the store has as being applied), audited, its outcome recorded on the request.
import type { ChangeRequestRecord } from '../../store/index.js';
import { OpsError } from '../../ops/errors.js';
import type { ApplyOptions } from './apply.js';
import { auditRefused, openFace } from './move-face.js';
import { stderr, stdout, warnUnaudited } from './say.js';
import { currentIO } from '../io.js';
import { importPlanned, parseDocument, readSecrets, readText } from './move-backup.js';
import { preflightKafkaSettings } from '../kafka-settings.js';
import { requestHeading } from '../../present/index.js';
import { confirm } from '../confirm.js';
import * as ops from '../../ops/index.js';
import * as move from '../../ops/move/index.js';
import * as batch from '../../ops/batch/index.js';

export async function applyImportRequest(
  id: string,
  request: ChangeRequestRecord,
  opts: ApplyOptions & { backup?: string; secretsFile?: string },
): Promise<void> {
  if (opts.backup === undefined) {
    throw new OpsError(
      'E_USAGE',
      `change request ${id} is an import: give the backup it was requested with, --backup <file> ` +
        '(and --secrets-file for the secrets it left out); nothing was changed',
      { field: 'backup' },
    );
  }
  const backup = move.parseBackup(await parseDocument(await readText(opts.backup), opts.backup, 'a file written by `offsetctl export`'));
  const secrets = await readSecrets(opts.secretsFile);
  const face = await openFace(opts.url || opts.context ? opts : { ...opts, url: request.clusterUrl }, undefined);
  const json = face.source.output === 'json';
  const out = (text: string): unknown => (json ? stderr : stdout)(`${text}\n`);
  try {
    const { doc } = await ops.approvedImport(face.ctx, id);
    const kafka = await preflightKafkaSettings(opts, face.source.context);
    const c = doc.choices;
    const plan = await move.planImport(face.ctx, {
      backup,
      ...(kafka ? { kafka } : {}),
      ...(c.allowDuplicateSource ? { allowDuplicateSource: true } : {}),
      ...(c.only ? { only: c.only } : {}),
      ...(c.replace ? { replace: true } : {}),
      ...(secrets ? { secrets } : {}),
      ...(c.allowPluginVersionChange ? { allowPluginVersionChange: true } : {}),
      limits: ops.resolveLimits({}, currentIO().env),
    });
    await ops.checkImportRequest(doc, backup, plan, face.ctx.http);
    out(requestHeading(request));
    for (const i of plan.items)
      out(
        `  ${i.connector} (${i.connectorType}, ${i.plugin.class}): ${i.offsets.length} partition(s), then ${i.stateAfter}` +
          `${i.replaces ? '; REPLACES the connector of that name' : ''}`,
      );
    for (const w of plan.warnings) stderr(`warning: ${w}\n`);
    if (opts.dryRun) {
      stdout('dry run: nothing was changed\n');
      return;
    }
    await confirm(`Create ${plan.items.length} connector(s) on ${face.ctx.url} (approved change request ${id})?`, { yes: opts.yes === true });
    const started = await ops.startApplying(face.ctx, id);
    warnUnaudited(started);
    try {
      await importPlanned(face, plan, batch.parseConcurrency(opts.concurrency), json, id);
    } catch (err) {
      // Cancelled or refused before the outcome was recorded: the request says so (a second record is refused and ignored).
      await ops.finishApplying(face.ctx, id, { succeeded: false, runIds: [], message: (err as Error).message }).catch(() => undefined);
      throw err;
    }
  } catch (err) {
    await auditRefused(face, { action: 'import' }, err);
    throw err;
  } finally {
    await face.close();
  }
}
