// `rewind --to-time | --to-earliest | --to-latest | --shift-by | --to-offset`: the flags, and the
// one call that turns them into target offsets; the command hands those to planRewind (same
// pre-flight, diff, snapshot and workflow as `--offsets <file>`), with the position table as plan data.
import type { Command } from 'commander';
import type { PositionFlags, PositionTargets } from '../../ops/positions/index.js';
import { OpsError } from '../../ops/errors.js';
import type { Connection } from '../connection.js';
import { addKafkaOptions, type KafkaFlags, resolveKafkaAccess } from '../kafka-settings.js';
import { currentIO } from '../io.js';
import * as load from '../load.js';

export const POSITION_HELP = `
Positions (instead of --offsets): every partition of every topic the connector consumes
(sinks: topics or topics.regex; MirrorSourceConnector: the source cluster's partitions).
  --to-time 2026-11-30T09:55:00Z | -2h | -30m   first record at or after that time
  --to-earliest | --to-latest                  log start | log end
  --shift-by -5000 | +100                      from the committed offset, clamped to the log
  --to-offset 42 --partition orders:3          one partition
Kafka is reached with --bootstrap (else OFFSETCTL_BOOTSTRAP, else the context's bootstrap), with
the --kafka-* security settings; its cluster id must match the
worker's (GET / → kafka_cluster_id) unless the connector overrides bootstrap.servers.`;

/** Registers the position flags and the Kafka access flags on `rewind`. */
export function addPositionOptions(cmd: Command): Command {
  return addKafkaOptions(cmd
    .option('--to-time <time>', 'rewind to the first record at or after this time: ISO-8601 with zone, or -2h, -30m, -1d')
    .option('--to-earliest', 'rewind to the start of every partition\'s log')
    .option('--to-latest', 'move to the end of every partition\'s log (skip everything unread)')
    .option('--shift-by <n>', 'move every partition by n records from its committed offset (-n replays, +n skips)')
    .option('--to-offset <n>', 'set one partition (with --partition) to this offset')
    .option('--partition <topic:p>', 'the partition for --to-offset'))
    .addHelpText('after', POSITION_HELP);
}

export type PositionOptions = PositionFlags & KafkaFlags & { offsets?: string };

/**
 * A position flag, or no --offsets at all (then the missing position is what is refused). The
 * positions room loads here, in the action, not when `rewind` registers its flags.
 */
export async function wantsPosition(opts: PositionOptions): Promise<boolean> {
  return opts.offsets === undefined || (await load.opsPositions()).hasPosition(opts);
}

/**
 * The target offsets for a position, with the per-partition table as data: parses the flags,
 * resolves Kafka access (flags, else the context's), and asks ops to look the partitions up.
 * The caller hands the result to planRewind; nothing is printed here. Refusals exit 2.
 */
export async function positionTargetsFor(conn: Connection, connector: string, opts: PositionOptions): Promise<PositionTargets> {
  const { hasPosition, parsePosition, positionTargets } = await load.ops();
  if (opts.offsets !== undefined && hasPosition(opts)) throw new OpsError('E_USAGE', '--offsets and a position (--to-time, --to-earliest, ...) contradict each other: give one', { field: 'offsets' });
  const access = resolveKafkaAccess(opts, conn.context);
  const position = parsePosition(opts, currentIO().now());
  return positionTargets(conn, connector, position, access);
}
