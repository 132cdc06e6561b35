// Turning a failed run into the one-line explanation an operator reads at 3 a.m.
import type { WorkflowResult } from '../../arazzo/index.js';
import type { ConnectorInfo, TaskState } from '../connect/index.js';
import { criterionWords, describeCriterion } from '../workflows/index.js';

/** What the run's journal saw that explains a failure (RunJournal has these). */
export interface FailureFacts {
  /** Why the journal cancelled the run, when it did. */
  safetyError: { code: string; message: string } | undefined;
  /** Last response body per step. */
  lastResponses: ReadonlyMap<string, { status: number; body: unknown }>;
}

/** Why a workflow run failed, in one line: the step's error, its failed criteria, Connect's message, a FAILED task's trace. */
export function describeFailure(result: WorkflowResult, journal: FailureFacts): string {
  if (journal.safetyError) return journal.safetyError.message;
  const failed = [...result.steps].reverse().find((s) => s.status === 'failed');
  const parts: string[] = [];
  if (failed) {
    if (failed.error) parts.push(failed.error.message);
    const last = journal.lastResponses.get(failed.stepId);
    const trace = last ? failedTaskTrace(last.body) : undefined;
    // A FAILED task says more than the criterion that noticed it.
    if (!trace) for (const c of failed.failedCriteria) parts.push(criterionMessage(c));
    if (last) {
      const connectMessage = (last.body as { message?: unknown } | undefined)?.message;
      if (last.status >= 300 || typeof connectMessage === 'string') parts.push(`HTTP ${last.status}${typeof connectMessage === 'string' ? `: ${connectMessage}` : ''}`);
      if (trace) parts.push(trace);
    }
  } else if (result.error) {
    parts.push(result.error.message);
  }
  return parts.length > 0 ? parts.join('; ') : 'the workflow failed';
}

/**
 * A failed criterion as the account says it: a shipped workflow's regex in words first
 * (`expected no tasks (an empty task list) (regex … on …): no match in "[{…}]"`), else the engine's message.
 */
function criterionMessage(c: { type?: string; condition: string; context?: string; message?: string }): string {
  const words = criterionWords(c);
  if (!words) return c.message ?? `criterion not met: ${c.condition}`;
  const why = c.message?.startsWith(`${c.condition}: `) ? c.message.slice(c.condition.length + 2) : c.message;
  return `${describeCriterion(c)}${why ? `: ${why}` : ''}`;
}

/** "task 0 FAILED: <first lines of its trace>" from a status body, if any task (or the connector) failed. */
export function failedTaskTrace(body: unknown): string | undefined {
  const status = body as { connector?: { state?: string; trace?: string }; tasks?: Array<{ id?: number; state?: string; trace?: string }> } | undefined;
  const failures: string[] = [];
  if (status?.connector?.state === 'FAILED') failures.push(`connector FAILED: ${firstLines(status.connector.trace)}`);
  for (const t of status?.tasks ?? []) if (t.state === 'FAILED') failures.push(`task ${t.id ?? '?'} FAILED: ${firstLines(t.trace)}`);
  return failures.length > 0 ? failures.join('; ') : undefined;
}

function firstLines(trace: string | undefined): string {
  return (trace ?? '(no trace)').split('\n').slice(0, 3).map((l) => l.trim()).join(' | ');
}

/**
 * `RUNNING`, or `RUNNING with task 0 FAILED` when some task is not running. A STOPPED connector has
 * no tasks (Connect writes it zero task configs); an UNASSIGNED task status beside it is the trace
 * the stopped task's worker writes on its way down, and Connect drops it a moment later, so it is
 * not shown: "STOPPED with task 0 UNASSIGNED" and "STOPPED" are the same state, read a second apart.
 */
export function describeState(info: Pick<ConnectorInfo, 'state' | 'tasks'>): string {
  const odd = info.tasks.filter((t) => t.state !== 'RUNNING' && t.state !== info.state && !(info.state === 'STOPPED' && t.state === 'UNASSIGNED'));
  return odd.length === 0 ? info.state : `${info.state} with ${odd.map((t) => `task ${t.id} ${t.state}`).join(', ')}`;
}

/** The state text read at the start of the run (`RUNNING with task 0 FAILED`), from readInitialState's outputs. */
export function stateTextBefore(state: string | undefined, tasks: unknown): string | undefined {
  if (state === undefined) return undefined;
  const list = Array.isArray(tasks) ? (tasks as Array<Partial<TaskState>>) : [];
  return describeState({ state, tasks: list.map((t) => ({ id: Number(t.id ?? 0), state: String(t.state ?? '') })) });
}
