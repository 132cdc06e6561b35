// The per-connector operations of a batch (ConnectorOps, src/ops/batch/batch.ts) made of the real
// plan → apply functions: planRewind / planReset / planRollback / planResume, then applyPlan
// with the batch id, which applyPlan records in the run's context when it opens the run (before
// its first step), so a batch killed at any step leaves every started run findable by
// `runs --batch <id>`. Data in, events out: no prompts, no files, no process state.
import { applyPlan, type ApplyOptions } from '../run/index.js';
import { applyAudited, type AuditScope } from '../audit/index.js';
import type { BatchApplyOptions, ConnectorOps } from './batch.js';
import { getConnectorInfo } from '../connect/index.js';
import type { OpsContext } from '../context.js';
import { OpsError } from '../errors.js';
import type { ProfileOptions } from '../profiles/index.js';
import { planReset, planResume, planRewind, planRollback, type Plan, type ResumeAfter } from '../plan/index.js';
import type { PositionTargets } from '../positions/index.js';

export type BatchOperation = 'rewind' | 'reset' | 'rollback';

export interface ChangeRequest {
  operation: BatchOperation;
  resumeAfter: ResumeAfter;
  /**
   * rewind: the target offsets of one connector (throws a refusal when it has none): from an
   * offsets document, or computed for a position (`--to-earliest`, ...), then with its table.
   */
  targetsFor?: (connector: string) => Promise<{ offsets: unknown; positions?: PositionTargets }>;
  /** Each connector's profile options (a Debezium source's database, the risks accepted): src/ops/profiles. */
  profileFor?: (connector: string) => Promise<ProfileOptions>;
  /** false when the batch is recorded already (`runs resume --batch` running members that never started). */
  record?: boolean;
}

/** What the face adds to every apply of the batch: test hooks, and who runs it (the audit trail). */
export type BatchFaceOptions = Pick<ApplyOptions, 'beforeStep'> & { audit?: AuditScope };

/** rewind / reset / rollback of one connector at a time. */
export function changeOps(ctx: OpsContext, req: ChangeRequest, face: BatchFaceOptions = {}): ConnectorOps<Plan> {
  return {
    plan: async (connector) => {
      const profile = (await req.profileFor?.(connector)) ?? {};
      switch (req.operation) {
        case 'rewind': {
          if (!req.targetsFor) throw new OpsError('E_USAGE', 'rewind needs --offsets <file|-> or a position', { field: 'offsets' });
          const targets = await req.targetsFor(connector);
          return planRewind(ctx, { connector, offsets: targets.offsets, resumeAfter: req.resumeAfter, profile, ...(targets.positions ? { positions: targets.positions } : {}) });
        }
        case 'reset':
          return planReset(ctx, { connector, resumeAfter: req.resumeAfter, profile });
        case 'rollback': {
          const targetState = req.resumeAfter === 'never' ? 'STOPPED' : req.resumeAfter === 'always' ? 'RUNNING' : undefined;
          return planRollback(ctx, { connector, profile, ...(targetState ? { targetState } : {}) });
        }
      }
    },
    apply: (plan, options) => applyOne(ctx, plan, applyOptions(options, face), face),
    state: async (connector) => (await getConnectorInfo(ctx.http, ctx.url, connector)).state,
    ...(req.record === false ? {} : { record: (batchId: string, plans: readonly Plan[]) => recordBatch(ctx, batchId, req, plans) }),
  };
}

/** The batch and its members in the store; a rewind's members keep the target offsets fixed when planned. */
async function recordBatch(ctx: OpsContext, batchId: string, req: ChangeRequest, plans: readonly Plan[]): Promise<void> {
  const first = plans[0];
  if (!first) return;
  await ctx.store.saveBatch({
    id: batchId, clusterUrl: first.clusterUrl, clusterKey: first.clusterKey, operation: req.operation, resumeAfter: req.resumeAfter,
    members: plans.map((p) => ({ connector: p.connector, ...(req.operation === 'rewind' ? { offsets: p.targetOffsets } : {}) })),
  });
}

/** Finishing the interrupted runs of a batch; keyed by connector (one run per connector and batch). */
export function resumeOps(ctx: OpsContext, runIdOf: (connector: string) => string, face: BatchFaceOptions = {}): ConnectorOps<Plan> {
  return {
    plan: (connector) => planResume(ctx, { runId: runIdOf(connector) }),
    apply: (plan, options) => applyOne(ctx, plan, applyOptions(options, face), face),
    state: async (connector) => (await getConnectorInfo(ctx.http, ctx.url, connector)).state,
  };
}

function applyOne(ctx: OpsContext, plan: Plan, options: ApplyOptions, face: BatchFaceOptions) {
  return face.audit ? applyAudited(ctx, plan, face.audit, options) : applyPlan(ctx, plan, options);
}

function applyOptions(options: BatchApplyOptions, face: BatchFaceOptions): ApplyOptions {
  return {
    batchId: options.batchId,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(face.beforeStep ? { beforeStep: face.beforeStep } : {}),
  };
}
