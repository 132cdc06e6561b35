// `offsetctl export`: a backup of connectors — configuration (references kept, literal secrets
// left out unless asked for), state, type, plugin, offsets, the Kafka cluster — as plain data.
// By default the offsets are read while the connector runs, and the backup says so. Consistent:
// each running (or paused) connector is stopped briefly through the restore workflow with no
// offsets to write (stop, wait, snapshot, back to its state), journaled like any change, so its
// offsets are read while nothing moves them; its configuration is read before and after.
import { lockKeyOf } from '../plan/index.js';
import type { RunEvent } from '../../arazzo/index.js';
import { runWorkflow } from '../../arazzo/index.js';
import { getOffsets, getSettledConnectorInfo, type ConnectorInfo } from '../connect/index.js';
import type { OpsContext } from '../context.js';
import { OpsError } from '../errors.js';
import { runAudited, type AuditScope } from '../audit/index.js';
import { beingApplied } from './audit-move.js';
import { describeFailure } from '../run/index.js';
import { RunJournal } from '../run/index.js';
import { offsetEntries, type OffsetEntry } from '../offsets/index.js';
import { ROLLBACK, targetStateFor, type OperationSpec } from '../workflows/index.js';
import { loadOpsWorkflow, WORKFLOW_FILES } from '../workflows/index.js';
import { BACKUP_KIND, BACKUP_VERSION, type Backup, type BackupConnector } from './backup.js';
import { readClusterFacts } from './clusters.js';
import { listPlugins, pluginConfigDefinition, readConfig } from './connect-reads.js';
import { configSecrets, withoutKeys } from './config-secrets.js';
import { pluginOf, type PluginInfo } from './plugins.js';

export interface ExportRequest {
  connectors: readonly string[];
  /** Keep literal secrets in the backup (it must then be kept like a password file). */
  includeSecrets?: boolean;
  /** Stop each running connector briefly so config and offsets are read at one moment. */
  consistent?: boolean;
}

export interface ExportOptions {
  onEvent?: (event: RunEvent) => void;
  signal?: AbortSignal;
  beforeStep?: (stepId: string, runId: string) => Promise<void>;
  batchId?: string;
  /**
   * Who exports: a consistent export stops each running connector for a moment (a change of its
   * state, with a snapshot), so each such run is in the audit trail, as every change is.
   */
  audit?: AuditScope;
  /** The approved change request this export applies (`changes apply`): the door checks the store has it being applied. */
  requestId?: string;
}

export interface ExportResult {
  backup: Backup;
  /** The runs of a consistent export (one per connector that was stopped), with their snapshots. */
  runs: Array<{ connector: string; runId: string; snapshotId?: string }>;
  warnings: string[];
}

const EXPORT_SPEC: OperationSpec = { ...ROLLBACK, operation: 'export' };

export async function exportConnectors(ctx: OpsContext, req: ExportRequest, options: ExportOptions = {}): Promise<ExportResult> {
  const { facts } = await readClusterFacts(ctx);
  const plugins = await listPlugins(ctx.http, ctx.url);
  const warnings: string[] = [];
  const runs: ExportResult['runs'] = [];
  const connectors: BackupConnector[] = [];
  for (const name of req.connectors) {
    if (options.signal?.aborted) throw new OpsError('E_NOT_CONFIRMED', `export cancelled before ${name}; nothing was written`);
    const info = await getSettledConnectorInfo(ctx.http, ctx.url, name);
    const stopFirst = req.consistent === true && (info.state === 'RUNNING' || info.state === 'PAUSED');
    let offsets: OffsetEntry[];
    let config = info.config;
    if (stopFirst) {
      const read = options.audit ? await readStoppedAudited(ctx, info, facts.key, options.audit, options, warnings) : await readStopped(ctx, info, facts.key, options);
      runs.push({ connector: name, runId: read.runId, ...(read.snapshotId ? { snapshotId: read.snapshotId } : {}) });
      offsets = read.offsets;
      const after = await readConfig(ctx.http, ctx.url, name);
      if (after && JSON.stringify(sorted(after)) !== JSON.stringify(sorted(config))) {
        throw new OpsError('E_PREFLIGHT', `the configuration of ${name} changed while it was stopped for the export (someone updated it); export it again`);
      }
      config = after ?? config;
    } else {
      offsets = offsetEntries(await getOffsets(ctx.http, ctx.url, name));
    }
    connectors.push(await describe(ctx, info, config, offsets, plugins, {
      includeSecrets: req.includeSecrets === true, offsetsRead: stopFirst || info.state !== 'RUNNING' ? 'stopped' : 'running',
      ...(facts.kafkaClusterId ? { kafkaClusterId: facts.kafkaClusterId } : {}),
    }, warnings));
  }
  return {
    backup: { kind: BACKUP_KIND, version: BACKUP_VERSION, exportedAt: new Date().toISOString(), cluster: { url: ctx.url, ...(facts.version ? { version: facts.version } : {}), ...(facts.kafkaClusterId ? { kafkaClusterId: facts.kafkaClusterId } : {}) }, connectors },
    runs, warnings,
  };
}

async function describe(ctx: OpsContext, info: ConnectorInfo, config: Record<string, string>, offsets: OffsetEntry[], plugins: PluginInfo[], how: { includeSecrets: boolean; offsetsRead: 'running' | 'stopped'; kafkaClusterId?: string }, warnings: string[]): Promise<BackupConnector> {
  const plugin = pluginOf(config, plugins);
  if (!plugin) throw new OpsError('E_PREFLIGHT', `${info.name}'s connector.class ${JSON.stringify(config['connector.class'])} is not among the plugins of ${ctx.url}: its plugin is needed to tell its secrets from the rest of its configuration; nothing was written`);
  const secrets = configSecrets(config, await pluginConfigDefinition(ctx.http, ctx.url, plugin.class));
  if (how.includeSecrets && secrets.literal.length > 0) warnings.push(`${info.name}: the backup holds the literal value of ${secrets.literal.join(', ')} (--include-secrets): keep the file like a password`);
  const omitted = how.includeSecrets ? [] : secrets.literal;
  return {
    name: info.name, type: info.type, state: info.state,
    plugin: { class: plugin.class, ...(plugin.version ? { version: plugin.version } : {}) },
    config: withoutKeys(config, omitted), ...(omitted.length > 0 ? { secretsOmitted: omitted } : {}),
    // Null offsets (a partition just reset) carry nothing to restore.
    offsets: offsets.filter((o) => o.offset !== null),
    offsetsRead: how.offsetsRead, readAt: new Date().toISOString(),
    ...(how.kafkaClusterId ? { kafkaClusterId: how.kafkaClusterId } : {}),
    ...(info.type === 'sink' && config['consumer.override.bootstrap.servers'] ? { ownKafkaCluster: true } : {}),
  };
}

/** The restore workflow with nothing to write: stop, wait, snapshot, and back to the state it had. */
type StoppedRead = { runId: string; snapshotId?: string; offsets: OffsetEntry[] };

/** readStopped with its audit entries: one when its run opens, one with the outcome (a failure is a refusal entry naming it). */
async function readStoppedAudited(ctx: OpsContext, info: ConnectorInfo, clusterKey: string, scope: AuditScope, options: ExportOptions, warnings: string[]): Promise<StoppedRead> {
  const id = options.requestId;
  const reviewed = id !== undefined && await beingApplied(ctx, id, { operation: 'export', connector: info.name, from: { key: clusterKey } });
  const audited = await runAudited(ctx, scope, {
    action: 'export', connector: info.name, clusterUrl: ctx.url, clusterKey,
    message: `consistent export of ${info.name}: stopped for a moment to read its offsets, then put back ${targetStateFor(info.state)}`
      + `${reviewed ? `, change request ${id}` : ''}`,
    // Gated only where a policy names `export` (it changes no offsets, but stops the connector).
    policy: { reviewed },
  }, async (started) => {
    const read = await readStopped(ctx, info, clusterKey, { ...options, onRunStarted: started });
    return { ...read, status: 'succeeded', message: `export of ${info.name}: offsets read while STOPPED, put back${read.snapshotId ? ` (snapshot ${read.snapshotId})` : ''}`, warnings: [] as string[] };
  });
  warnings.push(...audited.warnings);
  return { runId: audited.runId, offsets: audited.offsets, ...(audited.snapshotId ? { snapshotId: audited.snapshotId } : {}) };
}

async function readStopped(ctx: OpsContext, info: ConnectorInfo, clusterKey: string, options: ExportOptions & { onRunStarted?: (runId: string) => void }): Promise<StoppedRead> {
  const targetState = targetStateFor(info.state);
  const inputs = { connectorName: info.name, offsets: [], targetState };
  const run = await ctx.store.beginRun({
    clusterUrl: ctx.url, clusterKey, lockKey: lockKeyOf(info, clusterKey), connector: info.name, operation: 'export',
    workflowFile: WORKFLOW_FILES.restore.file, workflowId: WORKFLOW_FILES.restore.workflowId, inputs,
    context: { connectorType: info.type, stateBefore: info.state, ...(options.batchId ? { batchId: options.batchId } : {}) },
  });
  options.onRunStarted?.(run.id);
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const journal = new RunJournal({
    store: ctx.store, run, spec: EXPORT_SPEC, connectorType: info.type, inputs, controller, initialState: info.state,
    ...(options.onEvent ? { onProgress: options.onEvent } : {}), ...(options.beforeStep ? { beforeStep: options.beforeStep } : {}),
  });
  const workflow = await loadOpsWorkflow('restore', ctx.url);
  const result = await runWorkflow({ registry: workflow.registry, workflowId: workflow.workflowId, inputs, http: ctx.http, onEvent: journal.onEvent, signal: controller.signal })
    .finally(async () => {
      options.signal?.removeEventListener('abort', onAbort);
      await journal.flush();
    });
  const snapshotId = journal.snapshotId;
  if (result.status !== 'passed') {
    const message = `export of ${info.name} failed at step ${journal.lastFailedStep ?? journal.currentStep ?? '?'}: ${describeFailure(result, journal)}${journal.stopStarted ? ` (it was stopped for the export; bring it back with \`offsetctl ${targetState === 'PAUSED' ? 'pause' : 'resume'} ${info.name}\` if it is not ${targetState})` : ''}`;
    await ctx.store.finishRun(run.id, { status: 'failed', message });
    throw new OpsError('E_CONNECT_API', message);
  }
  const state = typeof result.outputs.connectorState === 'string' ? result.outputs.connectorState : undefined;
  await ctx.store.finishRun(run.id, { status: 'succeeded', message: `export of ${info.name}: read while STOPPED, back ${state ?? '?'} (snapshot ${snapshotId})`, ...(state ? { connectorState: state } : {}) });
  return { runId: run.id, ...(snapshotId ? { snapshotId } : {}), offsets: offsetEntries(result.outputs.offsetsBeforeRestore ?? []) };
}

function sorted(config: Record<string, string>): Array<[string, string]> {
  return Object.entries(config).sort(([a], [b]) => a.localeCompare(b));
}
