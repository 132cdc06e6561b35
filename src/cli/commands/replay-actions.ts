
import { OpsError } from '../../ops/errors.js';
import { resolveConnection } from '../connection.js';
import { resolveKafkaAccess } from '../kafka-settings.js';
import { stderr, stdout } from './say.js';
import { profileOptionsFor, } from '../source-db.js';
import { currentIO } from '../io.js';
import { exitStatusFor, ReportedFailure } from '../exit-status.js';
import type { ReplayFlags } from './replay.js';
import { openCommandStore } from '../store-choice.js';
import { confirm } from '../confirm.js';
import { cliActorFor } from '../actor.js';
import * as replay from '../../ops/replay/index.js';
import * as audit from '../../ops/audit/index.js';

export async function replayCommand(connector: string, opts: ReplayFlags): Promise<void> {
  if (opts.table === undefined) {
    throw new OpsError('E_USAGE', '--table is required: the captured table to read again, as <schema>.<table> (e.g. public.orders)', { field: 'table' });
  }
  if ((opts.toTime === undefined) !== (opts.timeColumn === undefined)) {
    const field = opts.toTime === undefined ? 'to-time' : 'time-column';
    throw new OpsError('E_USAGE', '--to-time and --time-column go together: the time, and the table\'s column it is compared with', { field });
  }
  const conn = await resolveConnection(opts);
  const json = conn.output === 'json';
  const info = (text: string): unknown => (json ? stderr : stdout)(`${text}\n`);
  const store = await openCommandStore(conn.store);
  const ctx = { url: conn.url, http: conn.http, store };
  const scope = { actor: await cliActorFor(store), ...(conn.contextName ? { context: conn.contextName } : {}) };
  let plan: Awaited<ReturnType<typeof replay.planReplay>> | undefined;
  try {
    const access = resolveKafkaAccess(opts, conn.context);
    plan = await replay.planReplay(ctx, {
      connector, table: opts.table, ...(opts.where !== undefined ? { where: opts.where } : {}),
      ...(opts.toTime !== undefined && opts.timeColumn !== undefined ? { since: { column: opts.timeColumn, time: absoluteTime(opts.toTime) } } : {}),
    });
    // With a read-only login to the source database, the dry run says how many rows the condition reads.
    const { sourceDb } = await profileOptionsFor(opts, conn.context, connector);
    if (sourceDb) {
      const rows = await replay.countReplayRows(sourceDb, plan.table, plan.filter);
      plan.facts.push(`${rows} row(s) of ${plan.table} match now (counted on ${sourceDb.display})`);
    }
    if (!json) {
      info(`replay ${plan.connector} (${plan.connectorClass}) on ${plan.clusterUrl}`);
      for (const fact of plan.facts) info(`  ${fact}`);
      info(`  signal: ${JSON.stringify(plan.signal)}`);
    }
    for (const w of plan.warnings) stderr(`warning: ${w}\n`);
    let outcome: Awaited<ReturnType<typeof replay.applyReplay>>;
    if (opts.dryRun) {
      outcome = replay.dryRunReplay(plan);
    } else {
      await confirm(`Send execute-snapshot for ${plan.table}${plan.filter ? ` where ${plan.filter}` : ''} to ${plan.connector}?`, { yes: opts.yes === true });
      const bootstrap = access.bootstrap ?? plan.signalBootstrap ?? [];
      const kafka = bootstrap.length > 0 ? await access.settingsFor(bootstrap) : undefined;
      const { bootstrap: _b, ...security } = kafka ?? { bootstrap: [] };
      outcome = await replay.applyReplay(ctx, plan, scope, { bootstrap, kafka: security });
    }
    if (json) stdout(`${JSON.stringify({ ...outcome, plan: { facts: plan.facts, signal: plan.signal } }, null, 2)}\n`);
    else info(outcome.message);
    if (outcome.status === 'failed') {
      throw new ReportedFailure('E_RUN_FAILED', '');
    }
  } catch (err) {
    if (exitStatusFor(err) === 2 && !audit.wasAudited(err)) {
      const where = plan ? { clusterUrl: plan.clusterUrl, clusterKey: plan.clusterKey } : {};
      await audit.auditRefusal(ctx, scope, { action: 'replay', connector, ...where }, err).catch(() => undefined);
    }
    throw err;
  } finally {
    await store.close();
    await conn.http.close();
  }
}

/** `-2h`, `-30m`, `-1d` as an ISO time (UTC); anything else as given (checked by ops). */
export function absoluteTime(text: string): string {
  const m = /^-(\d+)([smhd])$/.exec(text.trim());
  if (!m) return text.trim();
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
  return new Date(currentIO().now() - Number(m[1]) * unit).toISOString();
}

/** `rewind <debezium-source> --to-time <t> --time-column <c> --table <t>`: the same replay, `<c> >= '<t>'`. */
export async function rewindAsReplay(names: string[], opts: ReplayFlags & { selector?: string; all?: boolean; offsets?: string }): Promise<void> {
  if (names.length !== 1 || opts.selector !== undefined || opts.all) {
    throw new OpsError('E_USAGE', '--time-column makes the rewind a replay of one Debezium source: give one connector name', { field: 'time-column' });
  }
  if (opts.toTime === undefined || opts.offsets !== undefined) {
    throw new OpsError('E_USAGE',
      '--time-column goes with --to-time (and not --offsets): rows whose column is at or after that time are '
      + 'read again', { field: 'time-column' });
  }
  await replayCommand(names[0]!, opts);
}
