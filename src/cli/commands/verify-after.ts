// `--verify <duration>` and `--rollback-on-failure` on rewind, reset and rollback (one connector):
// after the run ends with the connector running again, watch that it moves (src/ops/verify); when
// it fails or nothing moves in that time, say so (exit 1) and, with --rollback-on-failure, put the
// run's snapshot back (an audited rollback, like `offsetctl rollback --snapshot <id>`).
import type { Command } from 'commander';
import type { AuditScope, OperationOutcome, OpsContext, Plan } from '../../ops/index.js';
import { OpsError } from '../../ops/errors.js';
import type { Connection } from '../connection.js';
import { profileOptionsFor, type SourceDbOptions } from '../source-db.js';
import type { OffsetEntry } from '../../ops/offsets/index.js';
import type { ProfileOptions } from '../../ops/profiles/index.js';
import type { RecordMark } from '../../ops/verify/index.js';
import type { KafkaSettings } from '../../kafka/connection.js';
import { stderr, stdout } from './say.js';
import * as load from '../load.js';
import { ReportedFailure } from '../exit-status.js';

export interface VerifyFlags extends SourceDbOptions {
  verify?: string;
  rollbackOnFailure?: boolean;
  leaveStopped?: boolean;
}

export function withVerifyFlags(cmd: Command): Command {
  return cmd
    .option('--verify <duration>', 'after the change, watch up to this long (30s, 2m) that the connector moves: tasks RUNNING, offsets leaving what was '
      + 'written, the first new records on a source\'s topics or the first record a sink consumed (with a Kafka bootstrap), a Debezium source\'s '
      + 'slot active and confirmed_flush_lsn moving (with --source-db); exit 1 if not')
    .option('--rollback-on-failure', 'with --verify: when the connector fails, or nothing moves in that time though there was something to move for, '
      + 'roll back to the run\'s snapshot (an idle source or a sink with no lag is not rolled back)');
}

/** Refuses the flags where they cannot apply (before anything changes). */
export function checkVerifyFlags(opts: VerifyFlags, batch: boolean): number | undefined {
  if (opts.rollbackOnFailure && opts.verify === undefined) {
    const why = '--rollback-on-failure needs --verify <duration>: how long the connector has to show it moves';
    throw new OpsError('E_USAGE', why, { field: 'rollback-on-failure' });
  }
  if (opts.verify === undefined) return undefined;
  if (batch) throw new OpsError('E_USAGE', '--verify is for one connector at a time (not with several names, --selector or --all)', { field: 'verify' });
  if (opts.leaveStopped) {
    throw new OpsError('E_USAGE', '--verify watches the connector run after the change: it cannot go with --leave-stopped', { field: 'verify' });
  }
  return durationMs(opts.verify);
}

export function durationMs(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m?.[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  const ms = m ? Number(m[1]) * unit : NaN;
  if (!Number.isFinite(ms) || ms < 1000 || ms > 3_600_000) {
    throw new OpsError('E_USAGE', `--verify ${JSON.stringify(text)}: expected a duration from 1s to 1h (30s, 2m, 90)`, { field: 'verify' });
  }
  return ms;
}

/**
 * Before the change runs (or the resume is sent): a source's topics marked at their end offsets,
 * so the records it writes once it runs again are told from what was there (the run resumes it
 * before the watch begins). Undefined without --verify, or without a Kafka bootstrap.
 */
export async function markBeforeChange(
  ctx: Pick<OpsContext, 'url' | 'http'>, conn: Connection, connector: string, opts: VerifyFlags, info: (text: string) => unknown,
): Promise<RecordMark | undefined> {
  if (opts.verify === undefined) return undefined;
  const kafka = await verifyKafka((await profileOptionsFor(opts, conn.context, connector)).kafka, info);
  if (!kafka) return undefined;
  const { markOutputs } = await load.opsVerify();
  try {
    return await markOutputs(ctx, connector, kafka);
  } catch (err) {
    info(`verify: the new records are not read: ${(err as Error).message}`);
    return undefined;
  }
}

/** Called where a single change ends (runChange), only for a run that succeeded. */
export async function verifyAfter(
  ops: typeof import('../../ops/index.js'), ctx: OpsContext, conn: Connection, plan: Plan, outcome: OperationOutcome, opts: VerifyFlags,
  audit: AuditScope, info: (text: string) => unknown, mark?: RecordMark,
): Promise<void> {
  const ms = checkVerifyFlags(opts, false);
  if (ms === undefined) return;
  if (outcome.connectorState !== 'RUNNING') {
    info(`verify: ${plan.connector} is ${outcome.connectorState ?? 'in an unknown state'} after the ${plan.operation}, as it was before: nothing to watch`);
    return;
  }
  const { watchMoving } = await load.opsVerify();
  const profile = await profileOptionsFor(opts, conn.context, plan.connector);
  info(`verify: watching ${plan.connector} for up to ${ms / 1000} s`);
  const kafka = await verifyKafka(profile.kafka, info);
  const seen = await watchMoving(ctx, {
    connector: plan.connector, durationMs: ms, written: plan.targetOffsets, ...(profile.sourceDb ? { sourceDb: profile.sourceDb } : {}),
    ...(kafka ? { kafka } : {}), ...(mark ? { mark } : {}),
  });
  for (const fact of seen.facts) info(`  ${fact}`);
  if (seen.passed) {
    info(`verify: passed — ${seen.reason}`);
    return;
  }
  if (!opts.rollbackOnFailure || !outcome.snapshotId) {
    const undo = outcome.snapshotId ? ` Undo it with \`offsetctl rollback ${plan.connector} --snapshot ${outcome.snapshotId}\`.` : '';
    throw new ReportedFailure('E_RUN_FAILED', `verify: failed — ${seen.reason}. The ${plan.operation} stays as it is.${undo}`);
  }
  if (seen.backlog?.idle) {
    // Nothing new reached it: not moving proves nothing, and undoing the change would be a guess.
    throw new ReportedFailure('E_RUN_FAILED', `verify: failed — ${seen.reason}. Not rolled back: with nothing new to read, a connector that works `
      + `does not move either. The ${plan.operation} stays as it is; undo it with \`offsetctl rollback ${plan.connector} --snapshot ${outcome.snapshotId}\`.`);
  }
  info(`verify: failed — ${seen.reason}; rolling back to snapshot ${outcome.snapshotId} (--rollback-on-failure)`);
  const back = await ops.planRollback(ctx, { connector: plan.connector, snapshotId: outcome.snapshotId, profile });
  const undone = await ops.applyAudited(ctx, back, audit);
  throw new ReportedFailure('E_RUN_FAILED', `verify: failed — ${seen.reason}. `
    + (undone.status === 'succeeded' ? `Rolled back to snapshot ${outcome.snapshotId}: ${undone.message}` : `The rollback failed too: ${undone.message}`));
}

/** `resume --verify`: the same watch, from the offsets it was resumed with; no rollback (resume changes no offset). */
export async function verifyResumed(
  ctx: Pick<OpsContext, 'url' | 'http'>, conn: Connection, connector: string, resumedAt: OffsetEntry[], ms: number, opts: VerifyFlags, mark?: RecordMark,
): Promise<void> {
  const { watchMoving } = await load.opsVerify();
  const profile = await profileOptionsFor(opts, conn.context, connector);
  const info = (text: string): void => { (conn.output === 'json' ? stderr : stdout)(`${text}\n`); };
  info(`verify: watching ${connector} for up to ${ms / 1000} s`);
  const kafka = await verifyKafka(profile.kafka, info);
  const seen = await watchMoving(ctx, {
    connector, durationMs: ms, written: resumedAt, ...(profile.sourceDb ? { sourceDb: profile.sourceDb } : {}), ...(kafka ? { kafka } : {}),
    ...(mark ? { mark } : {}),
  });
  for (const fact of seen.facts) info(`  ${fact}`);
  if (seen.passed) {
    info(`verify: passed — ${seen.reason}`);
    return;
  }
  throw new ReportedFailure('E_RUN_FAILED', `verify: failed — ${seen.reason}. Its offsets were not changed; \`offsetctl stop ${connector}\` stops it.`);
}

/** The cluster the first new records are read from (--bootstrap, OFFSETCTL_BOOTSTRAP, the context's); a bad setting is said, not fatal: the change is done. */
async function verifyKafka(kafka: ProfileOptions['kafka'], info: (text: string) => unknown): Promise<KafkaSettings | undefined> {
  try {
    return typeof kafka === 'function' ? await kafka() : kafka;
  } catch (err) {
    info(`verify: the new records are not read: ${(err as Error).message}`);
    return undefined;
  }
}
