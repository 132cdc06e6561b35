// The per-connector operations of a batch (ConnectorOps, src/ops/batch.ts) made of the real
// plan → apply functions: planRewind / planReset / planRollback / planResume, then applyPlan
// with the batch id, which applyPlan records in the run's context when it opens the run (before
// its first step), so a batch killed at any step leaves every started run findable by
// `runs --batch <id>`. Data in, events out: no prompts, no files, no process state.
import { applyPlan, type ApplyOptions } from './apply.js';
import type { BatchApplyOptions, ConnectorOps } from './batch.js';
import { getConnectorInfo } from './connect-client.js';
import type { OpsContext } from './context.js';
import { OpsError } from './errors.js';
import { planReset, planResume, planRewind, planRollback, type Plan, type ResumeAfter } from './plan.js';

export type BatchOperation = 'rewind' | 'reset' | 'rollback';

export interface ChangeRequest {
  operation: BatchOperation;
  resumeAfter: ResumeAfter;
  /** rewind: the offsets document for one connector (throws a refusal when it has none). */
  offsetsFor?: (connector: string) => unknown;
}

/** What the face adds to every apply of the batch (test hooks). */
export type BatchFaceOptions = Pick<ApplyOptions, 'beforeStep'>;

/** rewind / reset / rollback of one connector at a time. */
export function changeOps(ctx: OpsContext, req: ChangeRequest, face: BatchFaceOptions = {}): ConnectorOps<Plan> {
  return {
    plan: async (connector) => {
      switch (req.operation) {
        case 'rewind': {
          if (!req.offsetsFor) throw new OpsError('E_USAGE', 'rewind needs --offsets <file|->', { field: 'offsets' });
          return planRewind(ctx, { connector, offsets: req.offsetsFor(connector), resumeAfter: req.resumeAfter });
        }
        case 'reset':
          return planReset(ctx, { connector, resumeAfter: req.resumeAfter });
        case 'rollback': {
          const targetState = req.resumeAfter === 'never' ? 'STOPPED' : req.resumeAfter === 'always' ? 'RUNNING' : undefined;
          return planRollback(ctx, { connector, ...(targetState ? { targetState } : {}) });
        }
      }
    },
    apply: (plan, options) => applyPlan(ctx, plan, applyOptions(options, face)),
    state: async (connector) => (await getConnectorInfo(ctx.http, ctx.url, connector)).state,
  };
}

/** Finishing the interrupted runs of a batch; keyed by connector (one run per connector and batch). */
export function resumeOps(ctx: OpsContext, runIdOf: (connector: string) => string, face: BatchFaceOptions = {}): ConnectorOps<Plan> {
  return {
    plan: (connector) => planResume(ctx, { runId: runIdOf(connector) }),
    apply: (plan, options) => applyPlan(ctx, plan, applyOptions(options, face)),
    state: async (connector) => (await getConnectorInfo(ctx.http, ctx.url, connector)).state,
  };
}

function applyOptions(options: BatchApplyOptions, face: BatchFaceOptions): ApplyOptions {
  return {
    batchId: options.batchId,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(face.beforeStep ? { beforeStep: face.beforeStep } : {}),
  };
}
