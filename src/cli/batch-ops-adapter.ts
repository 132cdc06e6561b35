// The one place where a batch (src/ops/batch.ts) meets the per-connector operations. It uses
// the plan/apply API the ops layer is moving to (planRewind, planReset, planRollback,
// planResume, applyPlan over an OpsContext), today provided by src/web/ops-bridge.ts over
// rewindConnector / resetConnector / rollbackConnector / resumeRun. When src/ops exports
// plan/apply itself, point the import below at it; nothing else in the batch changes.
//
// Tagging a run with its batch id: today's operations open the run themselves, so the id is
// written into the run's context as soon as its first engine event arrives (the run holds the
// connector's lock by then, which names it). That is before the run's first step, so a batch
// killed at any step leaves every started run findable by `runs --batch <id>`.
import type { RunEvent } from '../arazzo/index.js';
import type { ApplyOptions, ConnectorOps } from '../ops/batch.js';
import type { OpsConnection, ResumeAfter } from '../ops/begin-change.js';
import { OpsError } from '../ops/errors.js';
import type { OperationOutcome } from '../ops/run-operation.js';
import { openStore, type Store } from '../store/index.js';
import {
  applyPlan, connectorInfo, listConnectorsOf, planReset, planResume, planRewind, planRollback,
  type OpsContext, type Plan,
} from '../web/ops-bridge.js';

export type { Plan } from '../web/ops-bridge.js';
export type BatchOperation = 'rewind' | 'reset' | 'rollback';

export interface BatchContext {
  ctx: OpsContext;
  close(): void;
}

/** Opens the state store for the whole batch (plans of rollbacks read snapshots from it). */
export function openBatchContext(conn: OpsConnection): BatchContext {
  const store = openStore(conn.stateDir);
  return { ctx: { url: conn.url, http: conn.http, store }, close: () => store.close() };
}

export async function connectorNames(ctx: OpsContext): Promise<string[]> {
  return (await listConnectorsOf(ctx)).map((c) => c.name);
}

export interface ChangeRequest {
  operation: BatchOperation;
  resumeAfter: ResumeAfter;
  /** rewind: the offsets document for one connector (a refusal when it has none). */
  offsetsFor?: (connector: string) => unknown;
}

/** rewind / reset / rollback of one connector at a time, for src/ops/batch.ts. */
export function changeOps(ctx: OpsContext, req: ChangeRequest): ConnectorOps<Plan> {
  return {
    plan: async (connector) => {
      switch (req.operation) {
        case 'rewind': {
          if (!req.offsetsFor) throw new OpsError('E_USAGE', 'rewind needs --offsets <file|->', { field: 'offsets' });
          return planRewind(ctx, { connector, offsets: req.offsetsFor(connector), resumeAfter: req.resumeAfter });
        }
        case 'reset':
          return planReset(ctx, { connector, resumeAfter: req.resumeAfter });
        case 'rollback':
          return planRollback(ctx, { connector, ...(req.resumeAfter === 'never' ? { targetState: 'STOPPED' as const } : req.resumeAfter === 'always' ? { targetState: 'RUNNING' as const } : {}) });
      }
    },
    apply: (plan, options) => applyTagged(ctx, plan, options),
    state: async (connector) => (await connectorInfo(ctx, connector)).state,
  };
}

/** Finishing the interrupted runs of a batch; keyed by connector (one run per connector and batch). */
export function resumeOps(ctx: OpsContext, runIdOf: (connector: string) => string): ConnectorOps<Plan> {
  return {
    plan: (connector) => planResume(ctx, { runId: runIdOf(connector) }),
    apply: (plan, options) => applyTagged(ctx, plan, options),
    state: async (connector) => (await connectorInfo(ctx, connector)).state,
  };
}

async function applyTagged(ctx: OpsContext, plan: Plan, options: ApplyOptions): Promise<OperationOutcome> {
  let tagged = false;
  const onEvent = (event: RunEvent): void => {
    if (!tagged) {
      tagged = true;
      tagRun(ctx.store, ctx.url, plan.connector, options.batchId);
    }
    options.onEvent?.(event);
  };
  return applyPlan(ctx, plan, { onEvent, ...(options.signal ? { signal: options.signal } : {}) });
}

function tagRun(store: Store, clusterUrl: string, connector: string, batchId: string): void {
  const lock = store.lockOf(clusterUrl, connector);
  if (lock && lock.pid === process.pid) store.updateRunContext(lock.runId, { batchId });
}

