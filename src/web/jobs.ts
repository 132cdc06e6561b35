// Operations started from the console run in this process, one job each. A job keeps the
// engine's events (reduced to what the live view shows) so a page opened late, or reloaded,
// replays them before following the new ones over Server-Sent Events.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { redactText } from '../http/redact.js';
import { applyMoveAudited, type ClusterRef, type MovePlan } from './ops-bridge.js';
import { applyAudited, applyBatch, incompleteCount, isRefusal, newBatchId, outcomeSentence, planBatch, reviewedOps, summarize, type AuditScope, type BatchEvent, type BatchRow, type CheckedPlan, type OperationOutcome, type OpsContext, type OpsEvent, type Plan, type SharedConsoleState } from './ops-bridge.js';

/** How many connectors of a batch change at once from the console (the CLI's default). */
const BATCH_CONCURRENCY = 4;

export interface JobEvent {
  seq: number;
  at: string;
  type: string;
  stepId?: string;
  status?: string;
  text: string;
}

export interface JobEnd {
  status: 'succeeded' | 'unchanged' | 'failed' | 'refused';
  message: string;
  connectorState?: string;
  snapshotId?: string;
  runId?: string;
  warnings: string[];
  /** A batch: one row per connector (its status, final state, run and snapshot). */
  batch?: { id: string; rows: BatchRow[] };
}

export interface Job {
  id: string;
  /** "rewind of orders-sink", "reset of 3 connectors". */
  title: string;
  /** Every connector the job changes: a viewer of the job must be allowed each. */
  connectors: string[];
  clusterUrl: string;
  /** The named context it was started in (the audit's): its page is that context's. */
  context?: string;
  startedAt: string;
  events: JobEvent[];
  end?: JobEnd;
  listeners: Set<(event: JobEvent | JobEnd) => void>;
  /** Aborting cancels the run through applyPlan's signal (a stopped connector is put back). */
  controller: AbortController;
  /** Who started it (the audit trail's actor). */
  by: string;
}

/** Told when a job starts and how it ends (the console's metrics). */
export interface JobObserver {
  started(job: Job): void;
  ended(job: Job, end: JobEnd): void;
}

export class Jobs {
  readonly #jobs = new Map<string, Job>();
  readonly #running = new Set<Promise<void>>();
  readonly #observer: JobObserver | undefined;
  readonly #beforeStep: ((stepId: string, runId: string) => Promise<void>) | undefined;

  /** `beforeStep`: the integration tests' hook (pause or die before a step), handed in by the CLI's `ui`. */
  constructor(observer?: JobObserver, beforeStep?: (stepId: string, runId: string) => Promise<void>) {
    this.#observer = observer;
    this.#beforeStep = beforeStep;
  }

  #shared: SharedConsoleState | undefined;

  /** Every job this process holds, newest first. */
  list(): Job[] {
    return [...this.#jobs.values()].reverse();
  }

  /** On a team store: every job's state is written there too, so other replicas show it. */
  share(state: SharedConsoleState): void {
    this.#shared = state;
  }

  /** A job of this process, or on a team store one another replica started (read-only: its events as recorded). */
  async find(id: string): Promise<Job | undefined> {
    const mine = this.#jobs.get(id);
    if (mine || !this.#shared) return mine;
    const data = await this.#shared.getJob(id);
    return data ? jobOf(data) : undefined;
  }

  /** This process's jobs and, on a team store, every replica's (newest first). */
  async all(limit = 100): Promise<Job[]> {
    if (!this.#shared) return this.list().slice(0, limit);
    return (await this.#shared.listJobs(limit)).map(jobOf);
  }

  /** Writes the job's state for the other replicas (a failed write is not the job's failure). */
  #record(job: Job): void {
    if (!this.#shared) return;
    const { listeners: _l, controller: _c, ...data } = job;
    void this.#shared.putJob(job.id, { ...data, replica: `${hostname()} pid ${process.pid}` }).catch(() => undefined);
  }

  get(id: string): Job | undefined {
    return this.#jobs.get(id);
  }

  /** Starts applying the plan, audited under the signed-in user; returns at once with the job (its events follow). */
  start(ctx: OpsContext, plan: Plan, audit: AuditScope, reviewed?: { planDigest: string; requestId?: string; onEnd?: (end: JobEnd) => Promise<string | undefined> }): Job {
    const { job, emit } = this.#open(`${plan.operation} of ${plan.connector}`, [plan.connector], plan.clusterUrl, audit);
    const running = applyAudited(ctx, plan, audit, {
      onEvent: this.#shower(job, emit),
      signal: job.controller.signal,
      ...(this.#beforeStep ? { beforeStep: this.#beforeStep } : {}),
      ...(reviewed ? { reviewed: { planDigest: reviewed.planDigest, ...(reviewed.requestId ? { requestId: reviewed.requestId } : {}) } } : {}),
    }).then((outcome) => endOf(outcome), failedEnd);
    this.#finish(job, emit, running, reviewed?.onEnd);
    return job;
  }

  /**
   * Applies an approved request of many connectors as one batch, like `offsetctl changes apply`:
   * every connector's checked plan is planned again (reads only), then they change a few at a
   * time under one batch id, each run audited under the signed-in user. Cancelling (server
   * shutdown) starts no further connector and cancels the running ones, which put theirs back.
   */
  startBatch(ctx: OpsContext, checked: CheckedPlan, audit: AuditScope, reviewed: { requestId: string; onEnd?: (end: JobEnd) => Promise<string | undefined> }): Job {
    const connectors = checked.connectors.map((c) => c.plan.connector);
    const { job, emit } = this.#open(`${checked.saved.operation} of ${connectors.length} connectors`, connectors, checked.connectors[0]!.plan.clusterUrl, audit);
    const ops = reviewedOps(ctx, checked, { requestId: reviewed.requestId, audit });
    const batchId = newBatchId();
    const onEvent = (event: BatchEvent): void => {
      const shown = batchLine(event, job.events.length + 1);
      if (!shown) return;
      job.events.push(shown);
      emit(shown);
    };
    const options = { concurrency: BATCH_CONCURRENCY, onEvent, signal: job.controller.signal };
    const running = (async (): Promise<JobEnd> => {
      const planned = await planBatch<Plan>(ops, connectors, options);
      const todo = planned.plans.filter((p) => !p.nothingToChange);
      const unchanged: BatchRow[] = planned.plans.filter((p) => p.nothingToChange).map((p) => ({
        connector: p.connector, status: 'unchanged', finalState: p.stateBefore, message: 'nothing to change: the offsets already are the target',
      }));
      const rows = [...unchanged, ...await applyBatch(ops, todo, batchId, options)];
      const summary = summarize(batchId, checked.saved.operation, connectors, rows);
      const end: JobEnd = {
        status: incompleteCount(summary) > 0 ? 'failed' : summary.counts.succeeded > 0 ? 'succeeded' : 'unchanged',
        message: `${outcomeSentence(summary)} (batch ${batchId})`,
        warnings: [], batch: { id: batchId, rows: summary.connectors.map((r) => ({ ...r, message: redactText(r.message) })) },
      };
      return end;
    })().catch(failedEnd);
    this.#finish(job, emit, running, reviewed.onEnd);
    return job;
  }

  /**
   * Applies an approved move or copy request (routes/changes.ts checked it against the clusters)
   * through ops' door, applyMoveAudited: past the policy only for the request the store has as
   * being applied, under the original's lock, audited under the signed-in user.
   */
  startMove(from: OpsContext, to: ClusterRef, plan: MovePlan, audit: AuditScope, reviewed: { requestId: string; onEnd?: (end: JobEnd) => Promise<string | undefined> }): Job {
    const connectors = [...new Set([plan.connector, plan.targetName])];
    const as = plan.targetName !== plan.connector ? ` as ${plan.targetName}` : '';
    const { job, emit } = this.#open(`${plan.operation} of ${plan.connector}${as} to ${plan.to.url}`, connectors, plan.from.url, audit);
    const show = this.#shower(job, emit);
    const running = applyMoveAudited(from, to, plan, audit, {
      onEvent: (event) => show(event as OpsEvent),
      signal: job.controller.signal,
      ...(this.#beforeStep ? { beforeStep: this.#beforeStep } : {}),
    }, reviewed.requestId).then((outcome) => endOf(outcome), failedEnd);
    this.#finish(job, emit, running, reviewed.onEnd);
    return job;
  }

  /** A run's events as the job's page shows them: each kept, recorded and sent to its watchers. */
  #shower(job: Job, emit: (value: JobEvent | JobEnd) => void): (event: OpsEvent) => void {
    const view = liveView();
    return (event) => {
      const shown = view(event, job.events.length + 1);
      if (!shown) return;
      job.events.push(shown);
      this.#record(job);
      emit(shown);
    };
  }

  #open(title: string, connectors: string[], clusterUrl: string, audit: AuditScope): { job: Job; emit: (value: JobEvent | JobEnd) => void } {
    const job: Job = {
      id: `job-${randomBytes(6).toString('hex')}`, title, connectors, clusterUrl, startedAt: new Date().toISOString(), events: [], listeners: new Set(),
      controller: new AbortController(), by: audit.actor.user, ...(audit.context ? { context: audit.context } : {}),
    };
    this.#jobs.set(job.id, job);
    this.#record(job);
    this.#observer?.started(job);
    const emit = (value: JobEvent | JobEnd): void => {
      for (const listener of job.listeners) listener(value);
    };
    return { job, emit };
  }

  #finish(job: Job, emit: (value: JobEvent | JobEnd) => void, outcome: Promise<JobEnd>, onEnd?: (end: JobEnd) => Promise<string | undefined>): void {
    const running = outcome.then(async (end) => {
      // An approved request records how applying ended (its runs) before the job says it is done.
      const warning = await onEnd?.(end).catch((err: unknown) => `the change request's outcome could not be recorded: ${redactText((err as Error).message)}`);
      if (warning) end.warnings.push(warning);
      job.end = end;
      this.#record(job);
      this.#observer?.ended(job, end);
      emit(end);
    });
    this.#running.add(running);
    void running.finally(() => this.#running.delete(running));
  }

  /**
   * Cancels every job still running, the way Ctrl-C cancels a CLI run: applyPlan stops the
   * workflow and, once the connector was stopped, puts it back (used when the server shuts down).
   */
  cancelAll(reason = 'the console shut down'): void {
    // The reason is the run's account: "cancelled: the console shut down", not "cancelled by you".
    for (const job of this.#jobs.values()) if (!job.end) job.controller.abort(reason);
  }

  /** How many jobs are still running. */
  get running(): number {
    return this.#running.size;
  }

  /** Waits for every running job (used when the server shuts down). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#running]);
  }
}

/** A job as another replica recorded it: shown, never followed or cancelled from here. */
function jobOf(data: Record<string, unknown>): Job {
  const d = data as unknown as Omit<Job, 'listeners' | 'controller'>;
  return { ...d, events: d.events ?? [], connectors: d.connectors ?? [], listeners: new Set(), controller: new AbortController() };
}

function failedEnd(err: unknown): JobEnd {
  return { status: isRefusal(err) ? 'refused' : 'failed', message: redactText((err as Error).message ?? String(err)), warnings: [] };
}

/** A batch's progress as the live view's lines: each connector's start, steps and end. */
function batchLine(event: BatchEvent, seq: number): JobEvent | undefined {
  const base = { seq, at: new Date().toISOString() };
  switch (event.type) {
    case 'planned':
      return event.refused ? { ...base, type: 'step.finished', status: 'failed', text: `${event.connector}: refused in pre-flight: ${redactText(event.refused)}` } : undefined;
    case 'started':
      return { ...base, type: 'workflow.started', text: `${event.connector} started` };
    case 'step':
      return { ...base, type: event.waiting ? 'step.waiting' : 'step.started', stepId: event.stepId, text: `${event.connector}: ${event.stepId}${event.waiting ? ': waiting' : ' started'}` };
    case 'finished': {
      const ok = event.row.status === 'succeeded' || event.row.status === 'unchanged';
      return { ...base, type: 'step.finished', status: ok ? 'passed' : 'failed', text: `${event.connector} ${event.row.status}, ${event.row.finalState} (${event.done} of ${event.total})` };
    }
    default:
      return undefined;
  }
}

function endOf(outcome: Pick<OperationOutcome, 'message' | 'connectorState' | 'snapshotId' | 'runId' | 'warnings'> & { status: string }): JobEnd {
  return {
    // An empty diff changes nothing (no stop, no snapshot, no run): not a failure.
    status: outcome.status === 'succeeded' || outcome.status === 'unchanged' ? outcome.status : 'failed',
    message: redactText(outcome.message),
    ...(outcome.connectorState ? { connectorState: outcome.connectorState } : {}),
    ...(outcome.snapshotId ? { snapshotId: outcome.snapshotId } : {}),
    ...(outcome.runId ? { runId: outcome.runId } : {}),
    warnings: outcome.warnings.map(redactText),
  };
}

/**
 * What the live view shows of the engine's events, like the CLI's progress lines: one line when
 * a step starts and one when it ends, a single "waiting" line for a polling step's retries (a
 * poll that is not there yet is not a failure), and no request/response detail (the run's
 * journal page has it). Returns a stateful reducer; `seq` numbers the lines shown.
 */
export function liveView(): (event: OpsEvent, seq: number) => JobEvent | undefined {
  let retrying = '';
  const waited = new Set<string>();
  return (event, seq) => {
    const base = { seq, at: event.at, type: event.type };
    switch (event.type) {
      case 'workflow.started':
        return { ...base, text: `workflow ${event.workflowId} started` };
      case 'step.started':
        return event.attempt > 1 || waited.has(event.stepId) ? undefined : { ...base, stepId: event.stepId, text: `${event.stepId} started` };
      case 'action.taken':
        if (event.action.type !== 'retry') return undefined;
        retrying = event.stepId;
        if (waited.has(event.stepId)) return undefined;
        waited.add(event.stepId);
        return { ...base, type: 'step.waiting', stepId: event.stepId, text: `${event.stepId}: waiting (${event.action.name})` };
      case 'step.finished': {
        const wasRetry = event.status === 'failed' && retrying === event.stepId;
        retrying = '';
        if (wasRetry) return undefined;
        if (event.status === 'passed') waited.delete(event.stepId);
        return { ...base, stepId: event.stepId, status: event.status, text: `${event.stepId} ${event.status}${event.error ? `: ${redactText(event.error.message)}` : ''}` };
      }
      case 'workflow.finished':
        return { ...base, status: event.status, text: `workflow ${event.workflowId} ${event.status}` };
      default:
        return undefined;
    }
  };
}
