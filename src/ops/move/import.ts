// `offsetctl import`: connectors of a backup created on a cluster, each STOPPED first (Kafka
// 3.7+ initial_state), its offsets written and verified, then put in the exported state — one
// journaled run per connector (import-connector.arazzo.yaml). Every connector is pre-flighted
// before any is created: the plugin and version there, the configuration valid there (Connect's
// own validation), the name free (or --replace), its secrets given, and a sink's offsets
// belonging to that cluster's Kafka cluster. `rollback` of an import deletes what it created.
import { lockKeyOf, resumePointFor } from '../plan/index.js';
import type { RunEvent } from '../../arazzo/index.js';
import type { KafkaSettings } from '../../kafka/connection.js';
import { runWorkflow } from '../../arazzo/index.js';
import type { RunRecord } from '../../store/index.js';
import type { OpsContext } from '../context.js';
import { OpsError, type ConnectorRefusal } from '../errors.js';
import { describeFailure } from '../run/index.js';
import { checkPartitionCount, DEFAULT_LIMITS, type OffsetLimits } from '../offsets/index.js';
import type { OffsetEntry } from '../offsets/index.js';
import { RunJournal } from '../run/index.js';
import { readBackUntilMatch } from '../run/index.js';
import { importState, type Backup, type BackupConnector } from './backup.js';
import { readClusterFacts, requireInitialState, type ClusterFacts } from './clusters.js';
import { connectorExists, listPlugins, readConfig } from './connect-reads.js';
import { maskedConfig, secretValues, SECRET_PLACEHOLDER } from './config-secrets.js';
import { MoveJournal } from './move-journal.js';
import { importDone, importFailed, importUndone, type ImportFailure } from './outcome-text.js';
import { landingProblems } from './preflight.js';
import { BesideOriginal } from './beside.js';
import { DELETE_SPEC, IMPORT_SPEC, IMPORT_WORKFLOW, loadDeleteWorkflow, loadImportWorkflow } from './workflow.js';

export interface ImportRequest {
  backup: Backup;
  /** Only these connectors of the backup (each must be in it). */
  only?: readonly string[];
  /** A connector of that name on the cluster is replaced (its offsets are snapshotted first). */
  replace?: boolean;
  /** The secrets the backup left out, per connector and key. */
  secrets?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  allowPluginVersionChange?: boolean;
  limits?: OffsetLimits;
  /** The target's Kafka cluster: a sink's consumer group is asked whether its original still runs (beside.ts). */
  kafka?: KafkaSettings;
  /** A source is imported onto the Kafka cluster of its original even if that one may still run. */
  allowDuplicateSource?: boolean;
}

export interface ImportItem {
  connector: string;
  connectorType: 'source' | 'sink';
  /** The exported state, and the state it is put in. */
  stateBefore: string;
  stateAfter: 'RUNNING' | 'PAUSED' | 'STOPPED';
  plugin: BackupConnector['plugin'];
  /** Real values (its secrets filled in); never stored. */
  config: Record<string, string>;
  secretKeys: string[];
  offsets: OffsetEntry[];
  /** It exists on the cluster and is replaced. */
  replaces: boolean;
  offsetsRead: 'running' | 'stopped';
  inputs: Record<string, unknown>;
}

export interface ImportPlan {
  to: ClusterFacts;
  items: ImportItem[];
  warnings: string[];
  workflow: { file: string; workflowId: string };
}

export async function planImport(ctx: OpsContext, req: ImportRequest): Promise<ImportPlan> {
  const { facts, version } = await readClusterFacts(ctx);
  requireInitialState(version, ctx.url, 'an import');
  const wanted = req.only ? new Set(req.only) : undefined;
  for (const name of wanted ?? []) {
    if (!req.backup.connectors.some((c) => c.name === name)) throw new OpsError('E_USAGE', `--only ${name}: the backup has no connector of that name (it has ${req.backup.connectors.map((c) => c.name).join(', ') || 'none'})`, { field: 'only' });
  }
  const chosen = req.backup.connectors.filter((c) => !wanted || wanted.has(c.name));
  if (chosen.length === 0) throw new OpsError('E_USAGE', 'the backup has no connectors to import', { field: 'backup' });
  const plugins = await listPlugins(ctx.http, ctx.url);
  const warnings: string[] = [];
  const refused: ConnectorRefusal[] = [];
  const items: ImportItem[] = [];
  const beside = new BesideOriginal(req.kafka, req.allowDuplicateSource === true);
  try {
    for (const c of chosen) {
      const problems: string[] = [];
      const given = req.secrets?.[c.name] ?? {};
      const missing = (c.secretsOmitted ?? []).filter((k) => given[k] === undefined);
      if (missing.length > 0) problems.push(`the backup left out its secret${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: give ${missing.length > 1 ? 'them' : 'it'} (--secrets-file, or answer when asked)`);
      const config: Record<string, string> = { ...c.config, ...Object.fromEntries((c.secretsOmitted ?? []).filter((k) => given[k] !== undefined).map((k) => [k, given[k] as string])), name: c.name };
      checkPartitionCount(c.offsets.length, req.limits ?? DEFAULT_LIMITS, `the offsets of ${c.name}`);
      const exists = await connectorExists(ctx.http, ctx.url, c.name);
      problems.push(...await landingProblems(ctx, { name: c.name, config, plugin: { class: c.plugin.class, version: c.plugin.version }, ...(req.replace ? { replace: true } : { replace: false }), unknownSecrets: missing }, { allowPluginVersionChange: req.allowPluginVersionChange ?? false, plugins }));
      // A sink's offsets are its consumer group's on the Kafka cluster it was exported from.
      if (c.type === 'sink' && !c.ownKafkaCluster && c.offsets.length > 0 && c.kafkaClusterId && facts.kafkaClusterId && c.kafkaClusterId !== facts.kafkaClusterId) {
        problems.push(`it is a sink whose offsets belong to Kafka cluster ${c.kafkaClusterId}, but ${ctx.url} works with Kafka cluster ${facts.kafkaClusterId}, where they mean nothing (they would skip or replay records); import it where its Kafka cluster is, or move it with MirrorMaker 2's translated offsets (\`offsetctl move --translate-offsets\`)`);
      }
      if (!exists) {
        // Beside its original on the same Kafka cluster (beside.ts): a sink's group in use, a source.
        const found = await beside.check(c, req.backup, facts);
        problems.push(...found.problems);
        warnings.push(...found.warnings);
      }
      if (problems.length > 0) {
        refused.push({ connector: c.name, reason: problems.join('; ') });
        continue;
      }
      if (c.offsetsRead === 'running') warnings.push(`${c.name}: its offsets were read while it ran (export --consistent reads them stopped); it continues from there`);
      const stateAfter = importState(c.state);
      if (stateAfter !== c.state) warnings.push(`${c.name} was ${c.state} when exported; it is imported STOPPED`);
      const secretKeys = [...(c.secretsOmitted ?? [])];
      items.push({
        connector: c.name, connectorType: c.type, stateBefore: c.state, stateAfter, plugin: c.plugin, config, secretKeys, offsets: c.offsets, replaces: exists, offsetsRead: c.offsetsRead,
        inputs: { connectorName: c.name, config, offsets: c.offsets, targetState: stateAfter, replaceExisting: exists && req.replace === true, clearStaleOffsets: true },
      });
    }
  } finally {
    await beside.close();
  }
  if (refused.length > 0) {
    const lines = refused.map((r) => `${r.connector}: ${r.reason}`);
    throw new OpsError('E_PREFLIGHT', `the import to ${ctx.url} is refused before anything was created (${refused.length} of ${chosen.length} connector(s)):\n  ${lines.join('\n  ')}\nNothing was changed.`, { field: 'backup', connectors: refused });
  }
  return { to: facts, items, warnings, workflow: { ...IMPORT_WORKFLOW } };
}

export interface ImportOptions {
  onEvent?: (event: RunEvent) => void;
  signal?: AbortSignal;
  beforeStep?: (stepId: string, runId: string) => Promise<void>;
  batchId?: string;
  verifyTimeoutMs?: number;
  /** Called once the item's run is opened, before its first step (the audit's entry of the start). */
  onRunStarted?: (runId: string) => void;
}

export interface ImportOutcome {
  connector: string;
  status: 'succeeded' | 'failed';
  runId: string;
  snapshotId?: string;
  connectorState?: string;
  message: string;
  failedStep?: string;
  cancelled?: boolean;
  /** A failed import deleted what it had created. */
  undone?: boolean;
  warnings: string[];
}

/** One connector of the plan: its own run, lock and snapshot. */
export async function applyImportItem(ctx: OpsContext, plan: ImportPlan, item: ImportItem, options: ImportOptions = {}): Promise<ImportOutcome> {
  const run = await ctx.store.beginRun({
    // Its lock is where its offsets will live (a sink's consumer group, a source's own offsets topic), as a rewind's.
    clusterUrl: ctx.url, clusterKey: plan.to.key, lockKey: lockKeyOf({ name: item.connector, type: item.connectorType, config: item.config }, plan.to.key),
    connector: item.connector, operation: 'import',
    workflowFile: plan.workflow.file, workflowId: plan.workflow.workflowId, inputs: { ...item.inputs, config: maskedConfig(item.config, item.secretKeys) },
    context: { connectorType: item.connectorType, stateBefore: item.replaces ? 'EXISTED' : 'ABSENT', import: { secretKeys: item.secretKeys, replaces: item.replaces }, ...(options.batchId ? { batchId: options.batchId } : {}) },
  });
  options.onRunStarted?.(run.id);
  return executeImport(ctx, run, item.connectorType, item.inputs, secretValues(item.config, item.secretKeys), item.replaces, undefined, options);
}

/** An interrupted import, finished: its configuration's secrets are read back from the connector it created. */
export async function applyImportResume(ctx: OpsContext, runId: string, options: ImportOptions = {}): Promise<ImportOutcome> {
  const stored = await ctx.store.getRun(runId);
  if (stored.status !== 'running') throw new OpsError('E_PREFLIGHT', `run ${runId} is ${stored.status}: there is nothing to resume`);
  const ctxImport = stored.context.import as { secretKeys: string[]; replaces: boolean } | undefined;
  let config = stored.inputs.config as Record<string, string>;
  if (Object.values(config).includes(SECRET_PLACEHOLDER)) {
    const real = await readConfig(ctx.http, ctx.url, stored.connector);
    if (!real || stored.lastStep === undefined) {
      throw new OpsError('E_PREFLIGHT', `run ${runId} had not created ${stored.connector} yet, and its secrets are not stored: import it again (\`offsetctl import <backup> --only ${stored.connector}\`); nothing of it was created`);
    }
    config = real;
  }
  const run = await ctx.store.takeOverRun(runId);
  const workflow = await loadImportWorkflow(ctx.url);
  const resume = resumePointFor(workflow, await ctx.store.stepsOf(runId));
  const inputs = { ...stored.inputs, config, replaceExisting: true };
  return executeImport(ctx, run, (stored.context.connectorType ?? 'source') as 'source' | 'sink', inputs, secretValues(config, ctxImport?.secretKeys ?? []), ctxImport?.replaces ?? false, resume, options);
}

async function executeImport(ctx: OpsContext, run: RunRecord, connectorType: 'source' | 'sink', inputs: Record<string, unknown>, secrets: string[], replaces: boolean, resume: Parameters<typeof runWorkflow>[0]['resume'], options: ImportOptions): Promise<ImportOutcome> {
  const controller = new AbortController();
  let cancelled = false;
  const onAbort = (): void => {
    cancelled = true;
    controller.abort();
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const journal = new MoveJournal({
    store: ctx.store, run, spec: IMPORT_SPEC, connectorType, inputs, controller,
    ...(options.onEvent ? { onProgress: options.onEvent } : {}), ...(options.beforeStep ? { beforeStep: options.beforeStep } : {}),
    reverify: (requested) => readBackUntilMatch(ctx.http, ctx.url, run.connector, requested, options.verifyTimeoutMs !== undefined ? { timeoutMs: options.verifyTimeoutMs } : {}),
    secrets, writes: { steps: [], verifyStep: '', verifyOutput: '' }, written: () => [],
  });
  const workflow = await loadImportWorkflow(ctx.url);
  let error: Error | undefined;
  const result = await runWorkflow({ registry: workflow.registry, workflowId: workflow.workflowId, inputs, http: ctx.http, onEvent: journal.onEvent, signal: controller.signal, ...(resume ? { resume } : {}) })
    .catch((err: unknown) => {
      error = err as Error;
      return undefined;
    })
    .finally(async () => {
      options.signal?.removeEventListener('abort', onAbort);
      await journal.flush().catch(() => undefined);
    });
  const snapshotId = journal.inner.snapshotId ?? (await ctx.store.getRun(run.id)).context.snapshotId;
  const base = { connector: run.connector, runId: run.id, ...(snapshotId ? { snapshotId } : {}), warnings: journal.inner.warnings };
  if (result?.status === 'passed' && !journal.inner.safetyError) {
    const state = typeof result.outputs.connectorState === 'string' ? result.outputs.connectorState : undefined;
    const message = importDone(run.connector, ctx.url, state, replaces);
    await ctx.store.finishRun(run.id, { status: 'succeeded', message, ...(state ? { connectorState: state } : {}) });
    return { ...base, status: 'succeeded', message, ...(state ? { connectorState: state } : {}) };
  }
  const failedStep = cancelled ? journal.inner.currentStep : journal.inner.lastFailedStep ?? journal.inner.currentStep;
  const why = error?.message ?? (result ? describeFailure(result, journal.inner) : 'unknown');
  // What this run created goes again: a half-imported connector must not stay behind, STOPPED or not.
  let undone = false;
  let left: ImportFailure['left'] = { kind: 'nothing' };
  if ((journal.created || resume) && !replaces) {
    const deleted = await deleteConnector(ctx, run, connectorType, false, options).catch((err: unknown) => ({ ok: false, error: (err as Error).message }));
    undone = deleted.ok;
    left = deleted.ok ? { kind: 'deleted' } : { kind: 'not-deleted', error: deleted.error };
  } else if (replaces && (journal.created || resume)) {
    left = { kind: 'replaced', snapshotId };
  }
  const message = importFailed(run.connector, { cancelled, failedStep, why, left });
  await ctx.store.finishRun(run.id, { status: 'failed', message }).catch(() => undefined);
  return { ...base, status: 'failed', message, ...(failedStep ? { failedStep } : {}), ...(cancelled ? { cancelled: true } : {}), undone };
}

/** The delete workflow on what an import created (its recovery, or the rollback of the import). */
export async function deleteConnector(ctx: OpsContext, run: RunRecord, connectorType: 'source' | 'sink', ownRun: boolean, options: ImportOptions = {}): Promise<{ ok: boolean; error?: string; snapshotId?: string }> {
  const workflow = await loadDeleteWorkflow(ctx.url);
  const inputs = { connectorName: run.connector };
  const controller = new AbortController();
  const spec = ownRun ? DELETE_SPEC : { ...DELETE_SPEC, operation: 'recovery' as const, persistSnapshot: false };
  const journal = new RunJournal({ store: ctx.store, run, spec, connectorType, inputs, controller, ...(options.onEvent ? { onProgress: options.onEvent } : {}), ...(ownRun && options.beforeStep ? { beforeStep: options.beforeStep } : {}) });
  const result = await runWorkflow({ registry: workflow.registry, workflowId: workflow.workflowId, inputs, http: ctx.http, onEvent: journal.onEvent, signal: controller.signal }).finally(() => journal.flush());
  if (result.status === 'passed') return { ok: true, ...(journal.snapshotId ? { snapshotId: journal.snapshotId } : {}) };
  return { ok: false, error: describeFailure(result, journal) };
}

/** The import run a `rollback <connector>` undoes: the connector's latest run on this cluster, when it is an import. */
export async function importToUndo(ctx: OpsContext, clusterKeys: readonly string[], connector: string): Promise<RunRecord | undefined> {
  const latest = (await ctx.store.listRuns({ connector, limit: 20 })).find((r) => clusterKeys.includes(r.clusterKey));
  if (!latest || (latest.operation as string) !== 'import' || latest.context.undoneBy) return undefined;
  return latest;
}

/** Rollback of an import: the connector it created is deleted (a snapshot of its offsets is kept). */
export async function rollbackImport(ctx: OpsContext, clusterKey: string, imported: RunRecord, options: ImportOptions = {}): Promise<{ runId: string; status: 'succeeded' | 'failed'; message: string; snapshotId?: string }> {
  const info = imported.context.import as { replaces?: boolean } | undefined;
  if (info?.replaces) {
    throw new OpsError('E_PREFLIGHT', `import run ${imported.id} replaced an existing ${imported.connector}: deleting it would not bring that one back; restore its offsets with \`offsetctl rollback ${imported.connector} --snapshot ${imported.context.snapshotId ?? '<id>'}\` and its configuration by hand. Nothing was changed.`);
  }
  if (!(await connectorExists(ctx.http, ctx.url, imported.connector))) {
    throw new OpsError('E_PREFLIGHT', `${imported.connector} is not on ${ctx.url}: the import (run ${imported.id}) created nothing that is still there; nothing was changed`);
  }
  const run = await ctx.store.beginRun({
    clusterUrl: ctx.url, clusterKey, ...(typeof imported.context.lockKey === 'string' ? { lockKey: imported.context.lockKey } : {}), connector: imported.connector, operation: 'rollback', workflowFile: DELETE_WORKFLOW_FILE, workflowId: 'delete-connector',
    inputs: { connectorName: imported.connector }, context: { undoes: imported.id, connectorType: imported.context.connectorType },
  }, { takeOverStale: true });
  const deleted = await deleteConnector(ctx, run, (imported.context.connectorType ?? 'source') as 'source' | 'sink', true, options);
  const message = importUndone(imported.connector, imported.id, ctx.url, deleted);
  await ctx.store.finishRun(run.id, { status: deleted.ok ? 'succeeded' : 'failed', message });
  if (deleted.ok) await ctx.store.updateRunContext(imported.id, { undoneBy: run.id });
  return { runId: run.id, status: deleted.ok ? 'succeeded' : 'failed', message, ...(deleted.snapshotId ? { snapshotId: deleted.snapshotId } : {}) };
}

const DELETE_WORKFLOW_FILE = IMPORT_WORKFLOW.file.replace('import-connector', 'delete-connector');
