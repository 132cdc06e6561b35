// What rewind, reset and rollback share around the workflow: the operator-facing side
// (show the diff, dry-run, confirm) and opening the journaled run under the connector's lock.
import type { HttpSender } from '../http/client.js';
import type { RunEvent } from '../arazzo/index.js';
import { openStore, type NewRun, type Store } from '../store/index.js';
import { confirm } from './preflight-confirm.js';
import { renderDiff, type OffsetDiff } from './diff.js';
import { OpsError } from './errors.js';
import type { OperationOutcome } from './run-operation.js';

export interface OpsConnection {
  url: string;
  http: HttpSender;
  stateDir: string;
}

/** Where ops talks to the operator; the CLI decides stdout/stderr and colours. */
export interface OpsIO {
  /** Human-readable lines (the diff, progress). */
  info(text: string): void;
  color?: boolean;
  onProgress?: (event: RunEvent) => void;
}

export type ResumeAfter = 'auto' | 'always' | 'never';

export interface ChangeFlags {
  yes?: boolean;
  dryRun?: boolean;
  leaveStopped?: boolean;
  resume?: boolean;
}

/** `--leave-stopped` / `--resume` → the workflows' resumeAfter input. */
export function resumeAfterFrom(flags: ChangeFlags): ResumeAfter {
  if (flags.leaveStopped && flags.resume) {
    throw new OpsError('E_USAGE', '--leave-stopped and --resume contradict each other: pass at most one', { field: 'resume' });
  }
  return flags.leaveStopped ? 'never' : flags.resume ? 'always' : 'auto';
}

export function diffCounts(diff: OffsetDiff): NonNullable<OperationOutcome['diff']> {
  return { ...diff.counts };
}

/**
 * Shows the plan and asks. Returns a dry-run outcome when `--dry-run` stops here, otherwise
 * undefined once the operator (or --yes) agreed; throws E_NOT_CONFIRMED when not.
 */
export async function presentAndConfirm(args: {
  io: OpsIO; flags: ChangeFlags; heading: string; diff: OffsetDiff; question: string;
  /** Lines shown right after the diff (targets beyond the end, say). */
  notes?: string[];
  base: Pick<OperationOutcome, 'operation' | 'connector' | 'clusterUrl'>;
}): Promise<OperationOutcome | undefined> {
  const { io, diff } = args;
  io.info(args.heading);
  io.info(renderDiff(diff, { color: io.color ?? false, showUnchanged: diff.entries.length <= 50 }));
  for (const line of args.notes ?? []) io.info(line);
  if (args.flags.dryRun) {
    return { ...args.base, status: 'dry-run', message: 'dry run: nothing was changed', warnings: [], diff: diffCounts(diff) };
  }
  await confirm(args.question, { yes: args.flags.yes ?? false });
  return undefined;
}

/** Opens the store, takes the lock and records the run; the callback runs with both, the store is closed after. */
export async function withNewRun<T>(
  stateDir: string, run: NewRun, options: { takeOverStale?: boolean },
  fn: (store: Store, runRecord: ReturnType<Store['beginRun']>) => Promise<T>,
): Promise<T> {
  const store = openStore(stateDir);
  try {
    const record = store.beginRun(run, options);
    return await fn(store, record);
  } finally {
    store.close();
  }
}
