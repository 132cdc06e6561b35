// `--output json`: exactly one JSON document per run, refusals included.
import type { WorkflowResult } from '../../arazzo/index.js';
import { redactValue } from '../../http/redact.js';
import { ArazzoError } from '../../arazzo/errors.js';

export function renderJson(result: WorkflowResult): string {
  const doc: Record<string, unknown> = { workflowId: result.workflowId, status: result.status, outputs: result.outputs, steps: result.steps };
  if (result.error) doc['error'] = result.error;
  return `${JSON.stringify(redactValue(doc), null, 2)}\n`;
}

/** The document printed when the run was refused before it started. */
export function refusalResult(workflowId: string | undefined, err: unknown): WorkflowResult {
  const e = err as { code?: unknown; message?: unknown; hint?: unknown };
  return {
    workflowId: workflowId ?? '',
    status: 'failed',
    outputs: {},
    steps: [],
    error: {
      code: typeof e?.code === 'string' ? e.code : 'E_INTERNAL',
      message: typeof e?.message === 'string' ? e.message : String(err),
      ...(err instanceof ArazzoError && err.hint ? { hint: err.hint } : {}),
    },
  };
}
