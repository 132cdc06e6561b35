// `runs resume` is a change like rewind/reset/rollback: before it continues a run it shows the
// diff between the connector's offsets now and what the run will write, and asks (--yes for
// scripts, --dry-run to stop there).
import type { RunRecord } from '../store/index.js';
import { presentAndConfirm, type ChangeFlags, type OpsConnection, type OpsIO } from './begin-change.js';
import { getConnectorInfo, getOffsets } from './connect-client.js';
import { diffOffsets } from './diff.js';
import { describeState } from './failure-text.js';
import type { OperationOutcome } from './run-operation.js';

/** Undefined when the operator (or --yes) agreed; a dry-run outcome for --dry-run; throws E_NOT_CONFIRMED otherwise. */
export async function confirmResume(conn: OpsConnection, run: RunRecord, fromStep: string, io: OpsIO, flags: ChangeFlags): Promise<OperationOutcome | undefined> {
  const info = await getConnectorInfo(conn.http, conn.url, run.connector);
  const current = await getOffsets(conn.http, conn.url, run.connector);
  const diff = run.operation === 'reset' ? diffOffsets(current, [], { mode: 'replace' }) : diffOffsets(current, run.inputs.offsets ?? []);
  const base = { operation: run.operation, connector: run.connector, clusterUrl: conn.url, runId: run.id };
  const outcome = await presentAndConfirm({
    io, flags, diff, base,
    heading: `Run ${run.id}: ${run.operation} of ${run.connector} (${info.type}, ${describeState(info)}) on ${conn.url}, interrupted; it continues at step ${fromStep}`,
    question: `Resume run ${run.id} (${run.operation} of ${run.connector}) from step ${fromStep}?`,
  });
  return outcome ? { ...outcome, runId: run.id } : undefined;
}
