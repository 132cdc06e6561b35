// `offsetctl move`, `copy`, `export` and `import`: connectors with their offsets across Connect
// clusters (src/ops/move). The source is the usual connection (--url, --context); the target is
// `--to <context|url>`, resolved the same way, so each cluster keeps its own credentials. Plan,
// show, ask (or --yes), apply with Ctrl-C as a cancel, print the outcome. Exit statuses: 0 done,
// 1 the run failed (the message says where the connector is and in which state), 2 refused
// before anything changed.
import { Option, type Command } from 'commander';
import type { MovePlan, MoveOutcome } from '../../ops/move/index.js';
import { OpsError } from '../../ops/errors.js';
import { addConnectionOptions, type Connection, type ConnectionOptions } from '../connection.js';
import { addKafkaOptions, type KafkaFlags, preflightKafkaSettings, parseBootstrap } from '../kafka-settings.js';
import { profileOptionsFor, withSourceDbFlags, type SourceDbOptions } from '../source-db.js';
import { applyWithSignals, auditRefused, openFace, printOutcome } from './move-face.js';
import { stderr, stdout } from './say.js';
import { currentIO } from '../io.js';
import * as load from '../load.js';

interface MoveCliOptions extends ConnectionOptions, KafkaFlags, SourceDbOptions {
  slotWait?: string;
  to?: string;
  as?: string;
  keepSource?: boolean;
  translateOffsets?: string;
  fromBootstrap?: string;
  translateTimeout?: string;
  allowPluginVersionChange?: boolean;
  targetState?: 'auto' | 'RUNNING' | 'PAUSED' | 'STOPPED';
  set?: string[];
  yes?: boolean;
  dryRun?: boolean;
  selector?: string;
  all?: boolean;
  concurrency?: string;
  skipInvalid?: boolean;
}

const EXIT_HELP = '\nExit status: 0 done, 1 the run failed (the message says where the connector is and in which state), 2 refused before anything changed.';

export function register(program: Command): void {
  addKafkaOptions(withSourceDbFlags(moveFlags(addConnectionOptions(program
    .command('move')
    .argument('[connectors...]', 'connector name(s) on the current cluster; several, --selector or --all make a batch')
    .requiredOption('--to <context|url>', 'the Connect cluster to move to: a context name, or its worker URL(s)')
    .option('--keep-source', 'leave the original STOPPED on the old cluster instead of deleting it')
    .option('--translate-offsets <alias>', 'a sink moved to a Connect cluster on another Kafka cluster: translate its offsets with MirrorMaker 2\'s checkpoints (<alias>.checkpoints.internal on the target\'s Kafka cluster: --bootstrap or the target context\'s)')
    .option('--from-bootstrap <host:port,...>', 'with --translate-offsets: the Kafka cluster the sink reads now (default: the current context\'s bootstrap), to check MirrorMaker 2\'s translation record by record (its security settings are the current context\'s)')
    .option('--translate-timeout <seconds>', 'how long to wait for MirrorMaker 2 to checkpoint the stopped sink\'s offsets (default 120)')
    .option('--selector <regex>', 'batch: every connector whose name matches this regular expression')
    .option('--all', 'batch: every connector of the cluster')
    .option('--concurrency <n>', 'batch: connectors moved at once (default 4)')
    .option('--skip-invalid', 'batch: leave out (and list) connectors refused in pre-flight instead of refusing the batch')
    .option('--slot-wait <seconds>', 'a Debezium PostgreSQL source: how long to wait for the old task to let go of its replication slot before the new ' +
      'one starts (default 60)')
    .description('move connectors to another Connect cluster with their offsets: pre-flight both, stop, snapshot, create STOPPED there, write and verify offsets, delete here, start there'))))).addHelpText('after', EXIT_HELP)
    .action(async (names: string[], opts: MoveCliOptions) => {
      if (names.length !== 1 || opts.selector !== undefined || opts.all || opts.concurrency !== undefined || opts.skipInvalid) return moveBatch(names, opts);
      await runMove('move', names[0]!, opts);
    });

  moveFlags(addConnectionOptions(program
    .command('copy')
    .argument('<connector>', 'connector name on the current cluster')
    .requiredOption('--as <new-name>', 'the copy\'s name')
    .option('--to <context|url>', 'the Connect cluster to copy to (default: the same cluster)')
    .option('--set <key=value>', 'a setting of the copy\'s configuration (repeatable), e.g. a Debezium source\'s own --set slot.name=… --set publication.name=… --set topic.prefix=…', (v: string, all: string[] = []) => [...all, v])
    .description('copy a connector under a new name (blue/green), with its offsets: a sink\'s copy gets its own consumer group with the offsets written explicitly, a source\'s copy the offsets under the new name; the original is put back as it was'))).addHelpText('after', EXIT_HELP)
    .action(async (connector: string, opts: MoveCliOptions) => runMove('copy', connector, opts));

  addConnectionOptions(program
    .command('export')
    .argument('[connectors...]', 'connector name(s)')
    .option('--selector <regex>', 'every connector whose name matches this regular expression')
    .option('--all', 'every connector of the cluster')
    .option('--consistent', 'stop each running connector briefly (snapshot first, then back to its state) so configuration and offsets are read at one moment')
    .option('--include-secrets', 'keep literal secrets (PASSWORD-typed values) in the file; by default they are left out and the import asks for them')
    .option('--yes', 'with --consistent: do not ask for confirmation (scripts)')
    .description('write a backup of connectors (configuration, state, type, plugin and version, offsets, Kafka cluster id, read time) as YAML on stdout (JSON with -o json)'))
    .action(async (names: string[], opts: ConnectionOptions & { selector?: string; all?: boolean; consistent?: boolean; includeSecrets?: boolean; yes?: boolean }) => (await load.moveBackup()).runExport(names, opts));

  addKafkaOptions(addConnectionOptions(program
    .command('import')
    .argument('<backup>', 'a file written by `offsetctl export` (YAML or JSON), or - for stdin')
    .requiredOption('--to <context|url>', 'the Connect cluster to create the connectors on')
    .option('--only <names>', 'only these connectors of the backup, comma-separated')
    .option('--replace', 'replace connectors of the same name (their offsets are snapshotted first)')
    .option('--secrets-file <file>', 'the secrets the backup left out, as YAML or JSON {"<connector>": {"<key>": "<value>"}}')
    .option('--allow-plugin-version-change', 'accept another version of a connector\'s plugin on the target')
    .option('--allow-duplicate-source', 'import a source onto the Kafka cluster it was exported from although its original may run there (it is gone or stopped)')
    .option('--concurrency <n>', 'connectors imported at once (default 4)')
    .option('--yes', 'do not ask for confirmation (scripts)')
    .option('--dry-run', 'run the pre-flight checks, change nothing')
    .description('create the connectors of a backup on a cluster: pre-flight all first, each created STOPPED, its offsets written and verified, then put in its exported state')))
    .addHelpText('after', EXIT_HELP)
    .action(async (file: string, opts: ImportCliOptions) => (await load.moveBackup()).runImport(file, opts));
}

type ImportCliOptions = ConnectionOptions & KafkaFlags & {
  to: string; only?: string; replace?: boolean; secretsFile?: string; allowPluginVersionChange?: boolean; allowDuplicateSource?: boolean;
  concurrency?: string; yes?: boolean; dryRun?: boolean;
};

function moveFlags(cmd: Command): Command {
  return cmd
    .option('--allow-plugin-version-change', 'accept another version of the connector\'s plugin on the target')
    .addOption(new Option('--target-state <state>', 'the state the new connector is put in (default auto: the original\'s)').choices(['auto', 'RUNNING', 'PAUSED', 'STOPPED']))
    .option('--yes', 'do not ask for confirmation (scripts)')
    .option('--dry-run', 'run the pre-flight checks on both clusters, change nothing');
}

type KafkaSettings = import('../../kafka/connection.js').KafkaSettings;

async function translateRequest(opts: MoveCliOptions, source: Connection, target: Connection): Promise<{ alias: string; kafka: KafkaSettings; source?: KafkaSettings } | undefined> {
  if (opts.translateOffsets === undefined) {
    if (opts.fromBootstrap !== undefined) throw new OpsError('E_USAGE', '--from-bootstrap checks the offsets --translate-offsets translates: give --translate-offsets <alias> too, or leave --from-bootstrap out', { field: 'from-bootstrap' });
    return undefined;
  }
  // The checkpoints are on the target's Kafka cluster: --bootstrap, else the target context's.
  const kafka = await preflightKafkaSettings(opts, target.context, { ...currentIO().env, OFFSETCTL_BOOTSTRAP: currentIO().env.OFFSETCTL_BOOTSTRAP ?? '' });
  if (!kafka) throw new OpsError('E_USAGE', `--translate-offsets reads MirrorMaker 2's checkpoints from the target's Kafka cluster: give its bootstrap servers with --bootstrap <host:port> (or set the target context's bootstrap)`, { field: 'bootstrap' });
  // The records the sink read, on the Kafka cluster it reads now: --from-bootstrap, else the current context's.
  if (opts.fromBootstrap !== undefined) parseBootstrap(opts.fromBootstrap, '--from-bootstrap');
  const from = await preflightKafkaSettings(opts.fromBootstrap !== undefined ? { bootstrap: opts.fromBootstrap } : {}, source.context, { ...currentIO().env, OFFSETCTL_BOOTSTRAP: '' });
  return { alias: opts.translateOffsets, kafka, ...(from ? { source: from } : {}) };
}

function translateTimeoutMs(opts: MoveCliOptions): number | undefined {
  if (opts.translateTimeout === undefined) return undefined;
  const s = Number(opts.translateTimeout);
  if (!Number.isFinite(s) || s <= 0) throw new OpsError('E_USAGE', `--translate-timeout ${opts.translateTimeout}: give a number of seconds, e.g. --translate-timeout 300`, { field: 'translate-timeout' });
  return s * 1000;
}

async function runMove(mode: 'move' | 'copy', connector: string, opts: MoveCliOptions): Promise<void> {
  const face = await openFace(opts, opts.to);
  const json = face.source.output === 'json';
  const info = (text: string): unknown => (json ? stderr : stdout)(`${text}\n`);
  try {
    const move = await load.opsMove();
    const { resolveLimits } = await load.opsOffsets();
    const translate = await translateRequest(opts, face.source, face.target);
    const choices = moveChoices(opts);
    const limits = resolveLimits({}, currentIO().env);
    const plan = await move.planMove(face.ctx, face.to, {
      connector, mode, ...choices, ...(translate ? { translate } : {}), limits,
      ...(mode === 'move' ? { profile: await profileOptionsFor(opts, face.source.context, connector), ...slotWait(opts) } : {}),
    });
    info(describePlan(plan));
    for (const w of plan.warnings) stderr(`warning: ${w}\n`);
    if (opts.dryRun) {
      if (json) stdout(`${JSON.stringify({ status: 'dry-run', plan: planJson(plan) }, null, 2)}\n`);
      else stdout('dry run: nothing was changed\n');
      return;
    }
    const { moveApprovalReason, requestMoveInstead } = await load.changeRequest();
    const reason = await moveApprovalReason(face.source, face.ctx.store, plan);
    if (reason !== undefined) {
      // Four-eyes: the move as shown becomes a request; `changes apply` plans it again and checks it.
      if (translate) {
        const why = `--translate-offsets cannot be requested yet (${reason}): the translation is read when the move runs; nothing was changed`;
        throw new OpsError('E_USAGE', why, { field: 'translate-offsets' });
      }
      await requestMoveInstead(face.source, face.ctx, face.to, plan, choices, info, reason);
      return;
    }
    const { confirm } = await load.confirm();
    await confirm(question(plan), { yes: opts.yes === true });
    const { killAfterSendFromEnv } = await load.testHooks();
    const to = { url: face.to.url, http: killAfterSendFromEnv(face.to.http) };
    const outcome = await applyWithSignals((signal, beforeStep, onEvent) => move.applyMoveAudited(face.ctx, to, plan, face.audit, {
      signal, onEvent, ...(beforeStep ? { beforeStep } : {}), ...verifyOption(), ...(translateTimeoutMs(opts) !== undefined ? { translateTimeoutMs: translateTimeoutMs(opts)! } : {}),
    }), info);
    printOutcome(outcome, json, plan.warnings);
  } catch (err) {
    await auditRefused(face, { action: mode, connector }, err);
    throw err;
  } finally {
    await face.close();
  }
}

function slotWait(opts: MoveCliOptions): { releaseWaitMs?: number } {
  if (opts.slotWait === undefined) return {};
  const s = Number(opts.slotWait);
  if (!Number.isFinite(s) || s <= 0 || s > 3600) throw new OpsError('E_USAGE', `--slot-wait ${opts.slotWait}: give a number of seconds from 1 to 3600, e.g. --slot-wait 120`, { field: 'slot-wait' });
  return { releaseWaitMs: s * 1000 };
}

/** The command's choices of a move or copy: planned with them, and a request keeps them to plan it again. */
function moveChoices(opts: MoveCliOptions): import('../../ops/changes/index.js').MoveChoices {
  return {
    ...(opts.as ? { as: opts.as } : {}), ...(opts.keepSource ? { keepSource: true } : {}), ...(opts.targetState ? { targetState: opts.targetState } : {}),
    ...(opts.allowPluginVersionChange ? { allowPluginVersionChange: true } : {}), ...(opts.set ? { set: settings(opts.set) } : {}),
  };
}

/** `--set key=value` flags as a configuration's settings. */
function settings(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new OpsError('E_USAGE', `--set ${JSON.stringify(pair)}: write --set key=value`, { field: 'set' });
    out[pair.slice(0, at).trim()] = pair.slice(at + 1);
  }
  return out;
}

export function verifyOption(): { verifyTimeoutMs?: number } {
  const raw = currentIO().env.OFFSETCTL_VERIFY_TIMEOUT_MS;
  const n = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? { verifyTimeoutMs: n } : {};
}

export function describePlan(plan: MovePlan): string {
  const verb = plan.operation === 'move' ? 'Move' : 'Copy';
  const lines = [
    `${verb} ${plan.connector} (${plan.connectorType}, ${plan.stateBefore}) from ${plan.from.url} to ${plan.to.url}${plan.targetName !== plan.connector ? ` as ${plan.targetName}` : ''}`,
    `  Kafka cluster: ${plan.from.kafkaClusterId ?? '?'} → ${plan.to.kafkaClusterId ?? '?'}${plan.from.kafkaClusterId === plan.to.kafkaClusterId ? ' (the same)' : ''}`,
    `  plugin ${plan.plugin.class}${plan.plugin.version ? ` ${plan.plugin.version}` : ''}: installed there; the configuration validates there${plan.secretKeys.length > 0 ? ` (its secrets ${plan.secretKeys.join(', ')} are carried, never stored)` : ''}`,
    `  offsets: ${plan.currentOffsets.length} partition(s) now; ${plan.offsets === 'translated' ? `translated by MirrorMaker 2's checkpoints (${plan.translation?.topic}) once the sink is stopped` : plan.sameConsumerGroup ? `consumer group ${plan.groups?.from} stays the same (same Kafka cluster); written and verified again` : 'read after the stop, written there and verified'}`,
  ];
  if (plan.translation) {
    for (const r of plan.translation.preview.rows.slice(0, 20)) lines.push(`    ${r.topic}:${r.partition} committed ${r.committed} → ${r.downstream ?? '?'} there (checkpoint of ${r.upstream ?? '?'}; ${r.status})`);
  }
  for (const fact of plan.profileFacts ?? []) lines.push(`  ${fact}`);
  if (plan.release) {
    lines.push(`  before it starts there: waits up to ${Math.round(plan.release.waitMs / 1000)} s for replication slot "${plan.release.slotName}" on ` +
      `${plan.release.database} to be inactive (the old task let go of it); still active then: the new one is not started and the move is put back`);
  }
  const after = plan.sourceAfter === 'delete' ? `deleted from ${plan.from.url}` : plan.sourceAfter === 'stop' ? `left STOPPED on ${plan.from.url}` : `put back ${plan.stateBefore} on ${plan.from.url}`;
  lines.push(`  afterwards: ${plan.targetName} ${plan.stateAfter} on ${plan.to.url}; the original ${after}`);
  return lines.join('\n');
}

export function question(plan: MovePlan): string {
  return plan.operation === 'move'
    ? `Move ${plan.connector} to ${plan.to.url}? It is stopped here first (snapshot), and runs there only once it is ${plan.sourceAfter === 'delete' ? 'deleted' : 'stopped'} here.`
    : `Copy ${plan.connector} as ${plan.targetName} to ${plan.to.url}? ${plan.connector} is stopped briefly (snapshot) and then put back.`;
}

export function planJson(plan: MovePlan): Record<string, unknown> {
  const { config: _config, inputs: _inputs, translation, ...rest } = plan;
  return { ...rest, ...(translation ? { translation: { alias: translation.alias, topic: translation.topic, rows: translation.preview.rows } } : {}) };
}

/** `move --selector/--all` or several names: every connector pre-flighted, one confirmation, concurrent runs. */
async function moveBatch(names: string[], opts: MoveCliOptions): Promise<void> {
  const batch = await load.opsBatch();
  const { checkSelection, selectConnectors } = await load.opsBatch();
  const { listConnectorNames } = await load.ops();
  const move = await load.opsMove();
  const { applyWithCancel, printSummary, progressLine } = await load.batch();
  const selection = { names, ...(opts.selector !== undefined ? { selector: opts.selector } : {}), ...(opts.all ? { all: true } : {}) };
  checkSelection(selection);
  if (opts.translateOffsets !== undefined) throw new OpsError('E_USAGE', '--translate-offsets moves one sink at a time: name one connector', { field: 'translate-offsets' });
  const concurrency = batch.parseConcurrency(opts.concurrency);
  const face = await openFace(opts, opts.to);
  const json = face.source.output === 'json';
  try {
    const connectors = selectConnectors(await listConnectorNames(face.ctx.http, face.ctx.url), selection);
    const { testHooksFromEnv } = await load.testHooks();
    const beforeStep = testHooksFromEnv();
    type Planned = MovePlan & { diff: { counts: { unchanged: number; changed: number; added: number; removed: number } }; nothingToChange: false };
    const ops: import('../../ops/batch/index.js').ConnectorOps<Planned> = {
      plan: async (connector) => {
        const plan = await move.planMove(face.ctx, face.to, {
          connector, mode: 'move', ...(opts.keepSource ? { keepSource: true } : {}), ...(opts.targetState ? { targetState: opts.targetState } : {}),
          ...(opts.allowPluginVersionChange ? { allowPluginVersionChange: true } : {}), profile: await profileOptionsFor(opts, face.source.context, connector), ...slotWait(opts),
        });
        return { ...plan, diff: { counts: { unchanged: plan.currentOffsets.length, changed: 0, added: 0, removed: 0 } }, nothingToChange: false };
      },
      apply: async (plan, options) => {
        const outcome: MoveOutcome = await move.applyMoveAudited(face.ctx, face.to, plan, face.audit, { batchId: options.batchId, ...(options.signal ? { signal: options.signal } : {}), ...(options.onEvent ? { onEvent: options.onEvent as never } : {}), ...(beforeStep ? { beforeStep } : {}), ...verifyOption() });
        return { ...outcome, ...(outcome.undo ? { recovery: { succeeded: outcome.undo.succeeded } } : {}) } as never;
      },
      state: async (connector) => {
        const { getConnectorInfo } = await load.ops();
        return (await getConnectorInfo(face.ctx.http, face.ctx.url, connector).catch(() => getConnectorInfo(face.to.http, face.to.url, connector))).state;
      },
    };
    const batchId = batch.newBatchId();
    const progress = progressLine(!json && currentIO().stderr.isTTY === true);
    let planned;
    try {
      planned = await batch.planBatch(ops, connectors, { concurrency, skipInvalid: opts.skipInvalid === true, onEvent: progress.onEvent });
    } finally {
      progress.stop();
    }
    const out = (text: string): void => void (json ? currentIO().stderr : currentIO().stdout).write(`${text}\n`);
    out(`Batch ${batchId}: move of ${planned.plans.length} connector(s) from ${face.ctx.url} to ${face.to.url}`);
    for (const p of planned.plans) out(describePlan(p));
    for (const s of planned.skipped) out(`skipped ${s.connector}: ${s.message}`);
    if (opts.dryRun) {
      if (json) currentIO().stdout.write(`${JSON.stringify({ batchId, operation: 'move', dryRun: true, plans: planned.plans.map(planJson), skipped: planned.skipped }, null, 2)}\n`);
      else out('dry run: nothing was changed');
      return;
    }
    const { confirm } = await load.confirm();
    await confirm(`Move ${planned.plans.length} connector(s) to ${face.to.url}? Each is stopped here (snapshot first) and runs there only once it is gone here.`, { yes: opts.yes === true });
    const rows = await applyWithCancel(batchId, concurrency, !json && currentIO().stderr.isTTY === true, (options) => batch.applyBatch(ops, planned.plans, batchId, options));
    await printSummary(batch.summarize(batchId, 'move', connectors, [...rows, ...planned.skipped]), json);
  } catch (err) {
    // A batch refused in pre-flight is one refused entry, like the other batches.
    await auditRefused(face, { action: 'move' }, err);
    throw err;
  } finally {
    await face.close();
  }
}
