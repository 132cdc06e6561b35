// The actions of `move` and `copy` (registered in move.ts): one connector or a batch moved or copied
// to another Connect cluster. Loaded only through their door (load.moveActions()), so they import
// what they need statically: the ops layer's move and batch rooms, the store, the prompts.
import type { MovePlan, MoveOutcome } from '../../ops/move/index.js';
import { OpsError } from '../../ops/errors.js';
import type { Connection, } from '../connection.js';
import { preflightKafkaSettings, parseBootstrap } from '../kafka-settings.js';
import { profileOptionsFor } from '../source-db.js';
import { applyWithSignals, auditRefused, openFace, printOutcome } from './move-face.js';
import { stderr, stdout } from './say.js';
import { currentIO } from '../io.js';
import type { MoveCliOptions } from './move.js';
import { resolveLimits } from '../../ops/offsets/index.js';
import { moveApprovalReason, requestMoveInstead } from '../change-request.js';
import { confirm } from '../confirm.js';
import { killAfterSendFromEnv, testHooksFromEnv } from '../test-hooks.js';
import { checkSelection, selectConnectors } from '../../ops/batch/index.js';
import { getConnectorInfo, listConnectorNames } from '../../ops/index.js';
import { applyWithCancel, printSummary, progressLine } from './batch.js';
import * as move from '../../ops/move/index.js';
import * as batch from '../../ops/batch/index.js';

type KafkaSettings = import('../../kafka/connection.js').KafkaSettings;

export async function translateRequest(opts: MoveCliOptions, source: Connection, target: Connection): Promise<{ alias: string; kafka: KafkaSettings; source?: KafkaSettings } | undefined> {
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

export function translateTimeoutMs(opts: MoveCliOptions): number | undefined {
  if (opts.translateTimeout === undefined) return undefined;
  const s = Number(opts.translateTimeout);
  if (!Number.isFinite(s) || s <= 0) throw new OpsError('E_USAGE', `--translate-timeout ${opts.translateTimeout}: give a number of seconds, e.g. --translate-timeout 300`, { field: 'translate-timeout' });
  return s * 1000;
}

export async function runMove(mode: 'move' | 'copy', connector: string, opts: MoveCliOptions): Promise<void> {
  const face = await openFace(opts, opts.to);
  const json = face.source.output === 'json';
  const info = (text: string): unknown => (json ? stderr : stdout)(`${text}\n`);
  try {
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
    await confirm(question(plan), { yes: opts.yes === true });
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

export function slotWait(opts: MoveCliOptions): { releaseWaitMs?: number } {
  if (opts.slotWait === undefined) return {};
  const s = Number(opts.slotWait);
  if (!Number.isFinite(s) || s <= 0 || s > 3600) throw new OpsError('E_USAGE', `--slot-wait ${opts.slotWait}: give a number of seconds from 1 to 3600, e.g. --slot-wait 120`, { field: 'slot-wait' });
  return { releaseWaitMs: s * 1000 };
}

/** The command's choices of a move or copy: planned with them, and a request keeps them to plan it again. */
export function moveChoices(opts: MoveCliOptions): import('../../ops/changes/index.js').MoveChoices {
  return {
    ...(opts.as ? { as: opts.as } : {}), ...(opts.keepSource ? { keepSource: true } : {}), ...(opts.targetState ? { targetState: opts.targetState } : {}),
    ...(opts.allowPluginVersionChange ? { allowPluginVersionChange: true } : {}), ...(opts.set ? { set: settings(opts.set) } : {}),
  };
}

/** `--set key=value` flags as a configuration's settings. */
export function settings(pairs: string[]): Record<string, string> {
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
export async function moveBatch(names: string[], opts: MoveCliOptions): Promise<void> {
  const selection = { names, ...(opts.selector !== undefined ? { selector: opts.selector } : {}), ...(opts.all ? { all: true } : {}) };
  checkSelection(selection);
  if (opts.translateOffsets !== undefined) throw new OpsError('E_USAGE', '--translate-offsets moves one sink at a time: name one connector', { field: 'translate-offsets' });
  const concurrency = batch.parseConcurrency(opts.concurrency);
  const face = await openFace(opts, opts.to);
  const json = face.source.output === 'json';
  try {
    const connectors = selectConnectors(await listConnectorNames(face.ctx.http, face.ctx.url), selection);
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
