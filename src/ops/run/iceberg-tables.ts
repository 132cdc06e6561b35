// The table side of an Iceberg sink's run (src/ops/profiles/iceberg.ts planned it): after the
// connector is STOPPED and its offsets are snapshotted, before the offsets are written, each
// table's branch is set back by workflows/set-iceberg-table-snapshot.arazzo.yaml (a commit with a
// requirement on the branch's current snapshot: a concurrent commit fails it, and the run is put
// back). Should the run fail after a table was set back, the table is put back too, with the same
// workflow the other way. What was done is recorded in the run's context (`icebergTablesSet`).
import { join } from 'node:path';
import { assertValid, loadDocumentFile, loadSources, runWorkflow } from '../../arazzo/index.js';
import { HttpClient, type HttpRequest, type HttpResponse, type HttpSender } from '../../http/client.js';
import type { Store } from '../../store/index.js';
import { validateArazzo } from '../../arazzo/index.js';
import type { Plan } from '../plan/index.js';
import { WORKFLOWS_DIR } from '../workflows/index.js';

type IcebergPlan = NonNullable<NonNullable<Plan['profile']>['iceberg']>;
type TableStep = IcebergPlan['steps'][number];

export const ICEBERG_WORKFLOW = { file: join(WORKFLOWS_DIR, 'set-iceberg-table-snapshot.arazzo.yaml'), workflowId: 'set-iceberg-table-snapshot' };

/** The branch's snapshot in a loadTable answer, read exactly (ids beyond 2^53). */
export function branchHead(text: string, branch: string): string | undefined {
  const refs = /"refs"\s*:\s*\{([\s\S]*?\})\s*\}/.exec(text)?.[1] ?? '';
  const ref = new RegExp(`"${branch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\s*:\\s*\\{[^}]*?"snapshot-id"\\s*:\\s*(-?\\d+)`).exec(refs)?.[1];
  return ref ?? (branch === 'main' ? /"current-snapshot-id"\s*:\s*(-?\d+)/.exec(text)?.[1] : undefined);
}

/** Each snapshot's parent and total-records, ids kept exactly. */
function snapshotsOf(text: string): Map<string, { parent?: string; total: number }> {
  const exact = JSON.parse(text.replace(/"((?:current-|parent-)?snapshot-id)"\s*:\s*(-?\d+)/g, '"$1":"$2"')) as {
    metadata?: { snapshots?: Array<{ 'snapshot-id': string; 'parent-snapshot-id'?: string; summary?: Record<string, string> }> };
  };
  return new Map((exact.metadata?.snapshots ?? []).map((s) => [s['snapshot-id'], {
    ...(s['parent-snapshot-id'] ? { parent: s['parent-snapshot-id'] } : {}), total: Number(s.summary?.['total-records'] ?? 0) || 0,
  }]));
}

/** A sender that keeps the last answer's text (the read-back is compared exactly, not as parsed numbers). */
class Keeping implements HttpSender {
  last = '';
  constructor(private readonly inner: HttpSender) {}
  async send(req: HttpRequest): Promise<HttpResponse> {
    const res = await this.inner.send(req);
    this.last = res.body.toString('utf8');
    return res;
  }
}

export class IcebergTableRun {
  /** The steps done, in order (undone the other way when the run fails). */
  readonly done: TableStep[] = [];
  #started = false;
  /** Why setting a table back failed (the run then fails before any offset is written). */
  error: string | undefined;
  constructor(private readonly store: Store, private readonly plan: IcebergPlan, private readonly http: HttpSender = new HttpClient({ timeoutMs: 30_000 })) {}

  /** Wraps the face's beforeStep: before `mutatingStep` starts (the snapshot is stored), the tables are set back. */
  wrap(inner: ((stepId: string, runId: string) => Promise<void>) | undefined, mutatingStep: string): (stepId: string, runId: string) => Promise<void> {
    return async (stepId, runId) => {
      await inner?.(stepId, runId);
      if (stepId !== mutatingStep || this.#started) return;
      this.#started = true;
      const run = await this.store.getRun(runId);
      if (!run.context.snapshotId) throw new Error('refusing to set Iceberg tables back: no snapshot of the offsets was stored before');
      const fail = (err: unknown): never => {
        this.error = (err as Error).message;
        throw err;
      };
      // The heads with the connector stopped, beside the offsets snapshot just stored: what a
      // rollback to that snapshot restores (the sink may have committed since the plan).
      const heads = await Promise.all(this.plan.heads.map(async (h) => {
        const snapshotId = branchHead(await this.#read(h.table), h.branch);
        return { table: h.table, branch: h.branch, ...(snapshotId ? { snapshotId } : {}) };
      })).catch(fail);
      await this.store.updateRunContext(runId, { icebergTables: heads });
      for (const planned of this.plan.steps) {
        const step = await this.#asNow(planned).catch(fail);
        await this.#set(step, step.current, step.target).catch(fail);
        this.done.push(step);
        const set = this.done.map((s) => ({ table: s.table, branch: s.branch, from: s.current, to: s.target }));
        await this.store.updateRunContext(runId, { icebergTablesSet: set });
      }
    };
  }

  /**
   * The step against the branch as it is now, the connector stopped: the sink may have committed
   * since the plan (it ran until the stop). Snapshots added after the planned head hold only later
   * data, so the planned target stays right and the requirement names the head now; a head that
   * does not descend from the planned one (someone set the branch elsewhere) fails the run.
   */
  async #read(table: string): Promise<string> {
    const parts = table.split('.');
    const path = `${encodeURIComponent(parts.slice(0, -1).join('\u001f'))}/tables/${encodeURIComponent(parts[parts.length - 1]!)}`;
    const res = await this.http.send({ method: 'GET', url: `${this.plan.base}/namespaces/${path}`, headers: { accept: 'application/json' } });
    const text = res.body.toString('utf8');
    if (res.status !== 200) throw new Error(`loading Iceberg table ${table} answered ${res.status}: ${text.slice(0, 300)}`);
    return text;
  }

  async #asNow(step: TableStep): Promise<TableStep> {
    const text = await this.#read(step.table);
    const head = branchHead(text, step.branch);
    if (head === step.current) return step;
    const snapshots = snapshotsOf(text);
    const line: string[] = [];
    for (let id = head; id !== undefined && line.length < 100_000; id = snapshots.get(id)?.parent) line.push(id);
    if (!head || !line.includes(step.current)) {
      throw new Error(`Iceberg table ${step.table} (branch ${step.branch}) is at snapshot ${head ?? '(none)'}, ` +
        `which does not follow ${step.current} as planned: plan again`);
    }
    const total = (id: string): number => snapshots.get(id)?.total ?? 0;
    return { ...step, current: head, rowsRemoved: total(head) - total(step.target) };
  }

  async #set(step: TableStep, from: string, to: string): Promise<void> {
    const keeping = new Keeping(this.http);
    const doc = await loadDocumentFile(ICEBERG_WORKFLOW.file);
    assertValid(doc, validateArazzo(doc));
    const registry = await loadSources(doc, { servers: { all: this.plan.base } });
    const result = await runWorkflow({
      registry, workflowId: ICEBERG_WORKFLOW.workflowId, http: keeping,
      inputs: { namespace: step.namespace, table: step.name, branch: step.branch, currentSnapshotId: from, targetSnapshotId: to },
    });
    const failed = result.steps.find((s) => s.status !== 'passed');
    if (result.status !== 'passed') {
      const status = String((failed as { response?: { status?: number } } | undefined)?.response?.status ?? '');
      const why = failed ? `step ${failed.stepId} answered ${status} ${keeping.last.slice(0, 300)}` : result.error?.message ?? 'failed';
      throw new Error(`setting Iceberg table ${step.table} (branch ${step.branch}) from snapshot ${from} to ${to} failed: ${why.trim()} ` +
        '(a 409 CommitFailedException means another commit came first)');
    }
    const head = branchHead(keeping.last, step.branch);
    if (head !== to) throw new Error(`Iceberg table ${step.table} (branch ${step.branch}) reads back at snapshot ${head ?? '(none)'}, not ${to}`);
  }

  /** Puts back the tables this run set back (newest first); returns what could not be put back. */
  async undo(runId: string): Promise<string[]> {
    const failed: string[] = [];
    for (const step of [...this.done].reverse()) {
      try {
        await this.#set(step, step.target, step.current);
      } catch (err) {
        failed.push(`${step.table}: ${(err as Error).message}`);
      }
    }
    await this.store.updateRunContext(runId, { icebergTablesPutBack: this.done.length - failed.length }).catch(() => undefined);
    return failed;
  }

  /** One sentence for the run's account. */
  describe(): string {
    return this.done.map((s) => {
      const rows = s.rowsRemoved >= 0 ? `${s.rowsRemoved} row(s) removed` : `${-s.rowsRemoved} row(s) restored`;
      return `Iceberg table ${s.table} (branch ${s.branch}) set back from snapshot ${s.current} to ${s.target} (${rows})`;
    }).join('; ');
  }
}
