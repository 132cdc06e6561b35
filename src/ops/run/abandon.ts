// Abandoning an interrupted run: the documented way out that changes no offsets. The run's lock
// is released and the run recorded as abandoned, with who did it and why; the connector is left
// exactly as it is. Planned first (reads only), so a face can show the connector's live state
// and ask before anything is recorded.
import type { RunRecord } from '../../store/index.js';
import { getSettledConnectorInfo } from '../connect/index.js';
import type { OpsContext } from '../context.js';
import { OpsError } from '../errors.js';
import { describeState } from './failure-text.js';

export interface AbandonPlan {
  run: RunRecord;
  /** The connector's state as Kafka Connect reports it now, or undefined when it did not answer. */
  liveState?: string;
  /** `STOPPED with …`: the state and odd tasks, as failure texts show it. */
  liveText?: string;
  /** Why the live state could not be read. */
  unreadable?: string;
}

/** Reads only. Refused (exit 2) unless the run is interrupted: running with its process gone. */
export async function planAbandon(ctx: OpsContext, runId: string): Promise<AbandonPlan> {
  const run = await ctx.store.getRun(runId).catch((err: unknown) => {
    throw (err as { code?: string }).code === 'E_NOT_FOUND' ? new OpsError('E_PREFLIGHT', (err as Error).message, { field: 'run' }) : err;
  });
  if (run.status !== 'running') {
    throw new OpsError('E_PREFLIGHT', `run ${run.id} is ${run.status}: only an interrupted run can be abandoned (see \`offsetctl runs show ${run.id}\`)`, { field: 'run' });
  }
  if (run.displayStatus !== 'interrupted') {
    throw new OpsError('E_PREFLIGHT', `run ${run.id} is still running (pid ${run.pid} on ${run.hostname}): wait for it, or stop that process first; nothing was changed`, { field: 'run' });
  }
  try {
    // Settled: a rebalance shows a STOPPED connector as UNASSIGNED for a moment, and the operator
    // decides on what this says (seen in a CI rehearsal: "is UNASSIGNED now" of a STOPPED one).
    const info = await getSettledConnectorInfo(ctx.http, ctx.url, run.connector);
    return { run, liveState: info.state, liveText: describeState(info) };
  } catch (err) {
    return { run, unreadable: (err as Error).message };
  }
}

export interface AbandonRequest {
  /** Who abandons it, as the face knows them from something that authenticated them (the OS login, the console's sign-in). */
  by: string;
  reason: string;
}

/** Records the run as abandoned (who, why, the state seen) and releases its lock; no request goes to Kafka Connect. */
export async function abandonRun(ctx: OpsContext, plan: AbandonPlan, req: AbandonRequest): Promise<RunRecord> {
  const reason = req.reason.trim();
  if (reason === '') throw new OpsError('E_USAGE', '--reason: say why the run is abandoned (it is recorded with the run)', { field: 'reason' });
  // Refused (E_LOCKED) if the run's process came back or another process took the run meanwhile.
  const run = await ctx.store.takeOverRun(plan.run.id);
  const at = new Date().toISOString();
  await ctx.store.updateRunContext(run.id, { abandoned: { by: req.by, reason, at, ...(plan.liveState ? { connectorState: plan.liveState } : {}) } });
  const seen = plan.liveText ? `${run.connector} was ${plan.liveText}` : `the state of ${run.connector} could not be read`;
  await ctx.store.finishRun(run.id, {
    status: 'abandoned',
    message: `abandoned by ${req.by}: ${reason} (${seen}; no offset was changed by abandoning it)`,
    ...(plan.liveState ? { connectorState: plan.liveState } : {}),
  });
  return ctx.store.getRun(run.id);
}
