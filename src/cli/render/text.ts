// Text output for `workflow run`: one line per step execution as it finishes (request, status,
// duration), the criteria that failed with their messages, the action taken, then a summary.
import type { CriterionResult } from '../../arazzo/criteria/index.js';
import type { RunEvent, RunEventListener, WorkflowResult } from '../../arazzo/index.js';
import { redactText, redactValue } from '../../http/redact.js';
import { advisedError } from '../flag-advice.js';

interface PendingStep {
  request?: string;
  status?: number;
  durationMs?: number;
  failed: CriterionResult[];
  action?: string;
  /** The failure led to a retry: a poll that is still waiting, not a failure (yet). */
  retry?: boolean;
}

/** A listener that writes each step as it finishes. */
export function createTextProgress(writeRaw: (text: string) => void, topWorkflowId?: string): RunEventListener {
  // Events carry real values; what reaches the person is redacted here.
  const write = (text: string): void => writeRaw(redactText(text));
  const pending = new Map<string, PendingStep>();
  const keyOf = (e: { workflowId: string; stepId: string }): string => `${e.workflowId}\u0000${e.stepId}`;
  let top = topWorkflowId;
  return (event: RunEvent) => {
    switch (event.type) {
      case 'workflow.started':
        top ??= event.workflowId;
        if (event.workflowId !== top) write(`  → workflow ${event.workflowId}\n`);
        return;
      case 'step.started':
        pending.set(keyOf(event), { failed: [] });
        return;
      case 'request.sent': {
        const p = pending.get(keyOf(event));
        if (p) p.request = `${event.method} ${event.url}`;
        return;
      }
      case 'response.received': {
        const p = pending.get(keyOf(event));
        if (p) {
          p.status = event.status;
          p.durationMs = event.durationMs;
        }
        return;
      }
      case 'criterion.evaluated': {
        const p = pending.get(keyOf(event));
        if (p && !event.result.passed && event.source === 'successCriteria') p.failed.push(event.result);
        return;
      }
      case 'action.taken': {
        const p = pending.get(keyOf(event));
        if (p) p.retry = event.action.type === 'retry';
        if (p) p.action = `${event.action.type} "${event.action.name}"${event.action.stepId ? ` → step ${event.action.stepId}` : ''}${event.action.workflowId ? ` → workflow ${event.action.workflowId}` : ''} (${event.reason})`;
        return;
      }
      case 'step.finished': {
        const p = pending.get(keyOf(event)) ?? { failed: [] };
        pending.delete(keyOf(event));
        const mark = event.status === 'passed' ? 'ok  ' : p.retry ? 'wait' : 'FAIL';
        const scope = event.workflowId === top ? '' : `${event.workflowId}/`;
        const response = p.status !== undefined ? ` → ${p.status} (${Math.round(p.durationMs ?? 0)} ms)` : '';
        const m = event.message;
        const message = m ? `  ${m.action} ${m.address}${m.offset !== undefined && m.offset !== '' ? ` (partition ${m.partition}, offset ${m.offset})` : ''}` : '';
        write(`${mark} ${scope}${event.stepId}${p.request ? `  ${p.request}` : ''}${response}${message}\n`);
        for (const c of p.failed) write(`       criterion failed: ${redactText(c.message ?? c.condition)}\n`);
        if (event.error) write(`       error [${event.error.code}]: ${redactText(advisedError(event.error).message)}\n`);
        if (p.action) write(`       action: ${p.action}\n`);
        return;
      }
      case 'workflow.finished':
        if (event.workflowId !== top) write(`  ← workflow ${event.workflowId} ${event.status}\n`);
        return;
    }
  };
}

export function renderTextSummary(result: WorkflowResult): string {
  const lines: string[] = [];
  // A failed execution followed by a retry is a poll (waiting for a state), not a failure.
  const waiting = result.steps.filter((s) => s.status === 'failed' && s.action?.type === 'retry').length;
  const failedSteps = result.steps.filter((s) => s.status === 'failed' && s.action?.type !== 'retry').length;
  lines.push(`workflow ${result.workflowId} ${result.status} (${result.steps.length} step executions, ${failedSteps} failed${waiting > 0 ? `, ${waiting} waiting (retried)` : ''})`);
  if (result.error) lines.push(`error [${result.error.code}]: ${redactText(result.error.message)}`);
  const outputs = Object.entries(redactValue(result.outputs)).filter(([, v]) => v !== undefined);
  if (outputs.length > 0) {
    lines.push('outputs:');
    for (const [name, value] of outputs) lines.push(`  ${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return lines.join('\n') + '\n';
}
