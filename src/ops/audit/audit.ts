// The audit trail of changes: who did what, when, on which connector, with the diff. Both faces
// apply through `applyAudited` and report refusals through `auditRefusal`, so a change made in
// the console and one made from the CLI leave the same entries. The actor comes from the face,
// which authenticated it (the console's sign-in, the OS and database user of the CLI); ops never
// takes a name from a request. The audit is for people: messages and the diff are masked here
// (registered secrets), while the snapshot and the journal keep the real values.
import { redactText, redactValue } from '../../http/redact.js';
import type { ActorSource, AuditActor, AuditDiffEntry, AuditRecord, NewAuditEntry } from '../../store/index.js';
import { applyPlan, type ApplyOptions, type OperationOutcome } from '../run/index.js';
import type { OpsContext } from '../context.js';
import type { ConnectorRefusal } from '../errors.js';
import type { Plan } from '../plan/index.js';
import { requireNoPolicy } from './policy.js';

/** Errors already written to the audit (by applyAudited), so a face does not write them twice. */
const audited = new WeakSet<object>();

export function wasAudited(err: unknown): boolean {
  return typeof err === 'object' && err !== null && audited.has(err);
}

export interface AuditScope {
  actor: AuditActor;
  /** The console's context name (the CLI's too, when it used one). */
  context?: string;
}

/** The plan's diff as the audit keeps it: every partition that changes; unchanged ones only counted. */
export function auditDiff(plan: Pick<Plan, 'diff'>): { diff: AuditDiffEntry[]; counts: Record<string, number> } {
  const diff: AuditDiffEntry[] = [];
  for (const e of plan.diff.entries) {
    if (e.kind === 'unchanged') continue;
    diff.push(redactValue({ change: e.kind, partition: e.partition, ...(e.before !== null ? { from: e.before } : {}), ...(e.after !== null ? { to: e.after } : {}) }));
  }
  return { diff, counts: { ...plan.diff.counts } };
}

/**
 * applyPlan with the audit: one entry when the run opens (with the diff) and one with its outcome
 * (the snapshot id included); a refusal (another run holds the connector) is an entry too. The
 * entry for the start is written before the first step, so a run killed half-way still says who
 * started it.
 */
export async function applyAudited(ctx: OpsContext, plan: Plan, scope: AuditScope, options: ApplyOptions = {}): Promise<OperationOutcome> {
  const { diff, counts } = auditDiff(plan);
  const what: AuditedRun = {
    action: plan.operation, connector: plan.connector, clusterUrl: plan.clusterUrl, clusterKey: plan.clusterKey,
    ...(plan.runId ? { runId: plan.runId } : {}), ...(plan.snapshotId ? { snapshotId: plan.snapshotId } : {}), diff, counts,
  };
  // A resumed run finishes a change already begun (and put back when cancelled): its start was the gate.
  what.policy = { reviewed: options.reviewed?.requestId !== undefined || plan.runId !== undefined };
  return runAudited(ctx, scope, what, (started) => applyPlan(ctx, plan, {
    ...options,
    ...runActor(scope.actor),
    onEvent: (event) => {
      if (event.type === 'ops.run.started') started(event.runId);
      options.onEvent?.(event);
    },
  }));
}

/** What the entries of one run say besides who: the action, the connector and its cluster, the diff. */
export interface AuditedRun {
  action: string;
  connector: string;
  clusterUrl: string;
  clusterKey?: string;
  /** A run taken over (resume): its id until the run says its own. */
  runId?: string;
  snapshotId?: string;
  /** Said in the entry of the start (where the change goes: a move's target). */
  message?: string;
  diff?: AuditDiffEntry[];
  counts?: Record<string, number>;
  /**
   * The change is gated by the team store's policy (policy.ts): refused (and audited as refused)
   * before it starts when a policy covers it and it is not an approved request. `clusterKeys`:
   * every cluster it changes (a move: both), else `clusterKey`.
   */
  policy?: { reviewed: boolean; clusterKeys?: string[] };
}

/**
 * The audit around any run a face starts — a change (applyAudited), a move, a copy, an import:
 * `run` calls `started(runId)` once its run is opened (the entry of the start, before the first
 * step), and its outcome is the entry of the end. A run that throws is a refusal (nothing began)
 * after its start entry, if any.
 */
export async function runAudited<T extends { status: string; message: string; warnings: string[]; runId?: string; snapshotId?: string }>(
  ctx: Pick<OpsContext, 'store'>, scope: AuditScope, what: AuditedRun, run: (started: (runId: string) => void) => Promise<T>,
): Promise<T> {
  const base: Omit<NewAuditEntry, 'outcome'> = {
    actor: scope.actor, action: what.action, connector: what.connector, clusterUrl: what.clusterUrl,
    ...(what.clusterKey ? { clusterKey: what.clusterKey } : {}),
    ...(scope.context ? { context: scope.context } : {}),
    ...(what.runId ? { runId: what.runId } : {}),
  };
  // A store that cannot write (a full disk) must not cost the run its account: the outcome is
  // still returned, with a warning that the audit entry is missing.
  const unwritten: string[] = [];
  const write = (entry: NewAuditEntry): Promise<void> => ctx.store.recordAudit(entry).then(() => undefined, (err: unknown) => {
    unwritten.push(`the audit entry (${entry.outcome}) could not be written to ${ctx.store.location}: ${redactText((err as Error).message)}`);
  });
  let started: Promise<void> = Promise.resolve();
  let outcome: T;
  try {
    if (what.policy) {
      for (const key of what.policy.clusterKeys ?? (what.clusterKey ? [what.clusterKey] : [])) {
        await requireNoPolicy(ctx.store, { clusterKey: key, connector: what.connector, action: what.action }, what.policy.reviewed);
      }
    }
    outcome = await run((runId) => {
      started = write({
        ...base, outcome: 'started', runId, ...(what.snapshotId ? { snapshotId: what.snapshotId } : {}),
        ...(what.message ? { message: redactText(what.message) } : {}), ...(what.diff ? { diff: what.diff } : {}), ...(what.counts ? { counts: what.counts } : {}),
      });
    });
  } catch (err) {
    await started;
    await auditRefusal(ctx, scope, { action: what.action, connector: what.connector, clusterUrl: what.clusterUrl, ...(what.clusterKey ? { clusterKey: what.clusterKey } : {}) }, err).catch(() => undefined);
    throw err;
  }
  await started;
  const snapshotId = outcome.snapshotId ?? what.snapshotId;
  await write({
    ...base, outcome: outcome.status === 'succeeded' || outcome.status === 'unchanged' ? outcome.status : 'failed',
    ...(outcome.runId ? { runId: outcome.runId } : {}),
    ...(snapshotId ? { snapshotId } : {}),
    message: redactText(outcome.message), ...(what.counts ? { counts: what.counts } : {}),
  });
  return unwritten.length === 0 ? outcome : { ...outcome, warnings: [...outcome.warnings, ...unwritten] };
}

/** A refused change (bad input, pre-flight, lock, no permission): who tried what on which connector, and why not. */
export async function auditRefusal(
  ctx: Pick<OpsContext, 'store'> & { url?: string },
  scope: AuditScope,
  what: { action: string; connector?: string; clusterUrl?: string; clusterKey?: string },
  err: unknown,
): Promise<AuditRecord> {
  const e = err as { code?: string; message?: string; connectors?: readonly ConnectorRefusal[] };
  const clusterUrl = what.clusterUrl ?? ctx.url;
  if (typeof err === 'object' && err !== null) audited.add(err);
  const entry = (connector: string | undefined, message: string): NewAuditEntry => ({
    actor: scope.actor, action: what.action, outcome: 'refused',
    ...(scope.context ? { context: scope.context } : {}),
    ...(clusterUrl ? { clusterUrl } : {}),
    ...(what.clusterKey ? { clusterKey: what.clusterKey } : {}),
    ...(connector ? { connector } : {}),
    message: redactText(`${e.code ? `[${e.code}] ` : ''}${message}`),
  });
  // A refusal of many connectors (an import) is one entry per connector, each with its own reason,
  // so `audit --connector` finds it; the whole message would name them only in its text.
  const each = what.connector === undefined ? e.connectors ?? [] : [];
  if (each.length > 0) {
    const records: AuditRecord[] = [];
    for (const r of each) records.push(await ctx.store.recordAudit(entry(r.connector, r.reason)));
    return records[0]!;
  }
  return ctx.store.recordAudit(entry(what.connector, e.message ?? String(err)));
}

/**
 * The run is recorded under the console's signed-in user (how they signed in, their groups), so
 * `offsetctl runs` and the Runs page say who started it, not the console process's OS user; the
 * store still adds what it authenticates itself (the database login, the process). The CLI's
 * actor is the store's own.
 */
function runActor(actor: AuditActor): { actor?: ActorSource } {
  if (actor.via === 'cli') return {};
  return {
    actor: {
      via: 'console', user: actor.user,
      signIn: {
        kind: actor.via,
        ...(actor.issuer !== undefined ? { issuer: actor.issuer } : {}),
        ...(actor.subject !== undefined ? { subject: actor.subject } : {}),
        ...(actor.groups ? { groups: [...actor.groups] } : {}),
      },
    },
  };
}

