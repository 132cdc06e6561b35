// The flags every change command shares (rewind, reset, rollback; one connector or a batch):
// confirmation, dry run, the state left afterwards, batch selection, and the pre-flight limits.
import type { Command } from 'commander';
import type { ResumeAfter } from '../../ops/index.js';
import { OpsError } from '../../ops/errors.js';
import type { ConnectionOptions } from '../connection.js';

export interface ChangeOptions extends ConnectionOptions {
  yes?: boolean;
  dryRun?: boolean;
  leaveStopped?: boolean;
  resume?: boolean;
  allowForward?: boolean;
  planOut?: string;
}

export interface LimitOptions {
  maxPartitions?: string;
  maxOffsetsBytes?: string;
  chunkSize?: string;
}

export function withChangeFlags(cmd: Command): Command {
  return cmd
    .option('--selector <regex>', 'batch: every connector whose name matches this regular expression')
    .option('--all', 'batch: every connector of the cluster')
    .option('--concurrency <n>', 'batch: connectors changed at once (default 4)')
    .option('--skip-invalid', 'batch: leave out (and list) connectors refused in pre-flight instead of refusing the batch')
    .option('--yes', 'do not ask for confirmation (scripts)')
    .option('--dry-run', 'run the pre-flight checks and show the diff, change nothing')
    .option('--plan-out <file>', 'run the pre-flight, show the diff and save the plan to this file, change nothing; `offsetctl apply <file>` applies it later (docs/reviewed-changes.md)')
    .option('--leave-stopped', 'leave the connector STOPPED afterwards')
    .option('--resume', 'resume the connector afterwards even if it was PAUSED or STOPPED before');
}

/** The pre-flight limits (src/ops/offsets/limits.ts, docs/limits.md). */
export function withLimitFlags(cmd: Command): Command {
  return cmd
    .option('--max-partitions <n>', 'refuse a change that writes more partitions (env OFFSETCTL_MAX_PARTITIONS; default 100000)')
    .option('--max-offsets-bytes <bytes>', 'refuse a larger offsets file (env OFFSETCTL_MAX_OFFSETS_BYTES; default 33554432 = 32 MiB)')
    .option('--chunk-size <n>', 'partitions per PATCH; larger sets are written and verified chunk by chunk (env OFFSETCTL_CHUNK_SIZE; default 10000)');
}

export function limitFlags(opts: LimitOptions): LimitOptions {
  return {
    ...(opts.maxPartitions !== undefined ? { maxPartitions: opts.maxPartitions } : {}),
    ...(opts.maxOffsetsBytes !== undefined ? { maxOffsetsBytes: opts.maxOffsetsBytes } : {}),
    ...(opts.chunkSize !== undefined ? { chunkSize: opts.chunkSize } : {}),
  };
}

/** `--leave-stopped` / `--resume` → what happens to the connector after the change. */
export function resumeAfterFrom(opts: ChangeOptions): ResumeAfter {
  if (opts.leaveStopped && opts.resume) {
    throw new OpsError('E_USAGE', '--leave-stopped and --resume contradict each other: pass at most one', { field: 'resume' });
  }
  return opts.leaveStopped ? 'never' : opts.resume ? 'always' : 'auto';
}
