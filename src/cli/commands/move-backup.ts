// `offsetctl export` and `offsetctl import`: the backup file is the CLI's business (YAML on
// stdout, read from a file or stdin, the secrets file); ops checks the document and does the rest.
import { readFile } from 'node:fs/promises';
import type { ConnectionOptions } from '../connection.js';
import type { KafkaFlags } from '../kafka-settings.js';
import { OpsError } from '../../ops/errors.js';
import { registerSecret } from '../../http/redact.js';
import { stderr, stdout, warnUnaudited } from './say.js';
import type { ImportPlan } from '../../ops/move/index.js';
import { applyWithSignals, auditRefused, openFace, type MoveFace } from './move-face.js';
import { currentIO, fromCwd } from '../io.js';
import { checkSelection, newBatchId, selectConnectors } from '../../ops/batch/index.js';
import { getConnectorInfo, listConnectorNames } from '../../ops/index.js';
import { importApprovalReason, requestExportInstead, requestImportInstead } from '../change-request.js';
import { confirm } from '../confirm.js';
import { finishExportRequest, startExportRequest } from './export-request.js';
import { askSecret, canAsk } from '../ask-secret.js';
import { resolveLimits } from '../../ops/offsets/index.js';
import { preflightKafkaSettings } from '../kafka-settings.js';
import { testHooksFromEnv } from '../test-hooks.js';
import { applyWithCancel, printSummary } from './batch.js';
import { parse, stringify } from '../config-yaml.js';
import * as move from '../../ops/move/index.js';
import * as batch from '../../ops/batch/index.js';
import * as ops from '../../ops/index.js';

type ExportCliOptions = ConnectionOptions & { selector?: string; all?: boolean; consistent?: boolean; includeSecrets?: boolean; yes?: boolean };

/** `export`; `request`: an approved consistent export being applied (`changes apply`), its connectors and choice of secrets as requested. */
export async function runExport(names: string[], opts: ExportCliOptions, request?: { id: string; clusterUrl: string }): Promise<void> {
  const selection = { names, ...(opts.selector !== undefined ? { selector: opts.selector } : {}), ...(opts.all ? { all: true } : {}) };
  checkSelection(selection);
  // A plain export only reads; --consistent stops connectors: a change.
  const face = await openFace(request && !opts.url && !opts.context ? { ...opts, url: request.clusterUrl } : opts, undefined, undefined, opts.consistent === true);
  const json = face.source.output === 'json';
  try {
    const connectors = selectConnectors(await listConnectorNames(face.ctx.http, face.ctx.url), selection);
    if (opts.consistent) {
      const applying = request ? await startExportRequest(face, request.id, opts.yes === true) : undefined;
      if (!applying) {
        if (await requestExportInstead(face.source, face.ctx, connectors, opts.includeSecrets === true, (text) => stderr(`${text}\n`))) return;
        await confirm(`Export ${connectors.length} connector(s) consistently? Each running one is stopped briefly (snapshot first) and put back.`, { yes: opts.yes === true });
      }
    }
    const batchId = newBatchId();
    const info = (text: string): unknown => stderr(`${text}\n`);
    const result = await applyWithSignals((signal, beforeStep, onEvent) => move.exportConnectors(face.ctx, { connectors, ...(opts.includeSecrets ? { includeSecrets: true } : {}), ...(opts.consistent ? { consistent: true } : {}) }, { signal, onEvent, batchId, audit: face.audit, ...(beforeStep ? { beforeStep } : {}), ...(request ? { requestId: request.id } : {}) }), info)
      .catch(async (err: unknown) => {
        if (request) await finishExportRequest(face, request.id, { succeeded: false, runIds: [], message: (err as Error).message });
        throw err;
      });
    for (const w of result.warnings) stderr(`warning: ${w}\n`);
    // The backup itself goes out unmasked by design only with --include-secrets; without it there is nothing to mask.
    const text = json ? `${JSON.stringify(result.backup, null, 2)}\n` : stringify(result.backup);
    currentIO().stdout.write(text);
    const stopped = result.runs.length > 0 ? `; ${result.runs.length} read while stopped (runs: \`offsetctl runs --batch ${batchId}\`)` : '';
    if (request) {
      const message = `exported ${result.backup.connectors.length} connector(s)${stopped}`;
      await finishExportRequest(face, request.id, { succeeded: true, runIds: result.runs.map((r) => r.runId), batchId, message });
    }
    stderr(`exported ${result.backup.connectors.length} connector(s) from ${face.ctx.url}${stopped}\n`);
  } finally {
    await face.close();
  }
}

export async function readText(file: string): Promise<string> {
  if (file === '-') {
    const chunks: Buffer[] = [];
    for await (const c of currentIO().stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await readFile(fromCwd(file), 'utf8');
  } catch (err) {
    throw new OpsError('E_USAGE', `cannot read ${file} (${(err as { code?: string }).code ?? (err as Error).message}); give a file written by \`offsetctl export\``, { field: 'backup', cause: err });
  }
}

export async function parseDocument(text: string, file: string, what: string): Promise<unknown> {
  try {
    return parse(text);
  } catch (err) {
    throw new OpsError('E_USAGE', `${file} is not valid YAML or JSON (${(err as Error).message.split('\n')[0]}); give ${what}`, { field: 'backup', cause: err });
  }
}

/** `--secrets-file`: {"<connector>": {"<key>": "<value>"}}; every value is registered for masking at once. */
export async function readSecrets(file: string | undefined): Promise<Record<string, Record<string, string>> | undefined> {
  if (file === undefined) return undefined;
  const doc = await parseDocument(await readText(file), file, 'a mapping {"<connector>": {"<key>": "<value>"}}');
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new OpsError('E_USAGE', `${file}: must be a mapping {"<connector>": {"<key>": "<value>"}}`, { field: 'secrets-file' });
  const out: Record<string, Record<string, string>> = {};
  for (const [connector, keys] of Object.entries(doc as Record<string, unknown>)) {
    if (!keys || typeof keys !== 'object' || Array.isArray(keys)) throw new OpsError('E_USAGE', `${file}: ${connector} must map configuration keys to their secret values`, { field: 'secrets-file' });
    out[connector] = {};
    for (const [key, value] of Object.entries(keys as Record<string, unknown>)) {
      if (typeof value !== 'string') throw new OpsError('E_USAGE', `${file}: ${connector}.${key} must be a string`, { field: 'secrets-file' });
      registerSecret(value);
      out[connector][key] = value;
    }
  }
  return out;
}

/** On a terminal, the secrets the backup left out and the secrets file does not give are asked for (not echoed). */
async function askMissingSecrets(backup: import('../../ops/move/index.js').Backup, given: Record<string, Record<string, string>> | undefined, only: string | undefined): Promise<Record<string, Record<string, string>> | undefined> {
  if (!canAsk()) return given;
  const wanted = only ? new Set(only.split(',').map((s) => s.trim())) : undefined;
  const out = { ...given };
  for (const c of backup.connectors) {
    if (wanted && !wanted.has(c.name)) continue;
    for (const key of c.secretsOmitted ?? []) {
      if (out[c.name]?.[key] !== undefined) continue;
      const value = await askSecret(`${c.name}: ${key} (left out of the backup; not shown as you type): `);
      if (value !== undefined) out[c.name] = { ...out[c.name], [key]: value };
    }
  }
  return out;
}

export async function runImport(file: string, opts: ConnectionOptions & KafkaFlags & {
  to: string; only?: string; replace?: boolean; secretsFile?: string; allowPluginVersionChange?: boolean; allowDuplicateSource?: boolean;
  concurrency?: string; yes?: boolean; dryRun?: boolean;
}): Promise<void> {
  const backup = move.parseBackup(await parseDocument(await readText(file), file, 'a file written by `offsetctl export`'));
  const secrets = await askMissingSecrets(backup, await readSecrets(opts.secretsFile), opts.only);
  const concurrency = batch.parseConcurrency(opts.concurrency);
  // The connectors go to --to; the backup carries no connection of its own.
  const face = await openFace({ ...opts, url: opts.to.startsWith('http') ? opts.to : undefined, context: opts.to.startsWith('http') ? undefined : opts.to }, undefined);
  const json = face.source.output === 'json';
  const out = (text: string): unknown => (json ? stderr : stdout)(`${text}\n`);
  try {
    // The target's Kafka cluster (--bootstrap, else OFFSETCTL_BOOTSTRAP, else the --to context's):
    // a sink's consumer group is asked whether its original still runs beside it.
    const kafka = await preflightKafkaSettings(opts, face.target.context);
    const plan = await move.planImport(face.ctx, {
      ...(kafka ? { kafka } : {}), ...(opts.allowDuplicateSource ? { allowDuplicateSource: true } : {}),
      backup, ...(opts.only ? { only: opts.only.split(',').map((s) => s.trim()).filter(Boolean) } : {}), ...(opts.replace ? { replace: true } : {}),
      ...(secrets ? { secrets } : {}), ...(opts.allowPluginVersionChange ? { allowPluginVersionChange: true } : {}), limits: resolveLimits({}, currentIO().env),
    });
    out(`Import of ${plan.items.length} connector(s) from ${file} (exported from ${backup.cluster.url} at ${backup.exportedAt}) to ${face.ctx.url}:`);
    for (const i of plan.items) out(`  ${i.connector} (${i.connectorType}, ${i.plugin.class.split('.').pop()}${i.plugin.version ? ` ${i.plugin.version}` : ''}): ${i.offsets.length} partition(s), then ${i.stateAfter}${i.replaces ? '; REPLACES the connector of that name' : ''}`);
    for (const w of plan.warnings) stderr(`warning: ${w}\n`);
    if (opts.dryRun) {
      if (json) stdout(`${JSON.stringify({ status: 'dry-run', connectors: plan.items.map(({ config: _c, inputs: _i, ...rest }) => rest) }, null, 2)}\n`);
      else stdout('dry run: nothing was changed\n');
      return;
    }
    const reason = await importApprovalReason(face.source, face.ctx.store, plan);
    if (reason !== undefined) {
      // Four-eyes: the import as shown becomes a request; `changes apply <id> --backup <file>` plans it again and checks it.
      const choices = { ...(opts.only ? { only: opts.only.split(',').map((s) => s.trim()).filter(Boolean) } : {}), ...(opts.replace ? { replace: true } : {}),
        ...(opts.allowPluginVersionChange ? { allowPluginVersionChange: true } : {}), ...(opts.allowDuplicateSource ? { allowDuplicateSource: true } : {}) };
      await requestImportInstead(face.source, face.ctx, plan, backup, choices, out, reason);
      return;
    }
    await confirm(`Create ${plan.items.length} connector(s) on ${face.ctx.url}? Each is created STOPPED, gets its offsets, then is put in its exported state.`, { yes: opts.yes === true });
    await importPlanned(face, plan, concurrency, json);
  } catch (err) {
    await auditRefused(face, { action: 'import' }, err);
    throw err;
  } finally {
    await face.close();
  }
}

/**
 * The connectors of a checked import plan created a few at a time under one batch id, each
 * through the door (`requestId`: the approved request it applies, its outcome recorded there).
 */
export async function importPlanned(face: MoveFace, plan: ImportPlan, concurrency: number, json: boolean, requestId?: string): Promise<void> {
  {
    const batchId = batch.newBatchId();
    const beforeStep = testHooksFromEnv();
    const byName = new Map(plan.items.map((i) => [i.connector, i]));
    type Planned = import('../../ops/move/index.js').ImportItem & { operation: string; stateBefore: string; diff: { counts: { unchanged: number; changed: number; added: number; removed: number } }; warnings: string[]; nothingToChange: false };
    const connectorOps: import('../../ops/batch/index.js').ConnectorOps<Planned> = {
      plan: async (connector) => {
        const item = byName.get(connector)!;
        return { ...item, operation: 'import', diff: { counts: { unchanged: 0, changed: 0, added: item.offsets.length, removed: 0 } }, warnings: [], nothingToChange: false };
      },
      apply: async (item, options) => {
        const outcome = await move.applyImportItemAudited(face.ctx, plan, item, face.audit, { batchId: options.batchId, ...(options.signal ? { signal: options.signal } : {}), ...(options.onEvent ? { onEvent: options.onEvent as never } : {}), ...(beforeStep ? { beforeStep } : {}) }, requestId);
        return { ...outcome, operation: 'import', clusterUrl: face.ctx.url, recovery: outcome.undone === undefined ? undefined : { succeeded: outcome.undone } } as never;
      },
      state: async (connector) => {
        return (await getConnectorInfo(face.ctx.http, face.ctx.url, connector).catch(() => ({ state: 'absent' }))).state;
      },
    };
    const names = plan.items.map((i) => i.connector);
    const planned = await batch.planBatch(connectorOps, names, { concurrency });
    const rows = await applyWithCancel(batchId, concurrency, !json && currentIO().stderr.isTTY === true, (options) => batch.applyBatch(connectorOps, planned.plans, batchId, options));
    const summary = batch.summarize(batchId, 'import', names, rows);
    if (requestId !== undefined) {
      const step = await ops.finishApplying(face.ctx, requestId, {
        succeeded: batch.incompleteCount(summary) === 0, runIds: rows.map((r) => r.runId).filter((id): id is string => id !== undefined), batchId,
        message: batch.outcomeSentence(summary),
      });
      warnUnaudited(step);
    }
    await printSummary(summary, json);
  }
}
