// Writing a large offsets set in bounded chunks through the operation's own workflow. The
// workflow keeps the order of the calls: its first run stops the connector, snapshots and writes
// the first chunk, verifies it, and leaves the connector STOPPED; every further chunk re-runs the
// workflow from its change step (the engine's resume, with the first run's readInitialState and
// capture outputs preloaded), writes and verifies that chunk; only the last run puts the
// connector back in its end state. A failed chunk ends the loop; the caller recovers as usual.
import { runWorkflow, type ResumePoint, type RunEventListener, type WorkflowResult } from '../../arazzo/index.js';
import type { HttpSender } from '../../http/client.js';
import { planChunks } from '../offsets/index.js';
import type { OpsWorkflow } from '../workflows/index.js';

export interface ChunkedRun {
  workflow: OpsWorkflow;
  inputs: Record<string, unknown>;
  http: HttpSender;
  onEvent: RunEventListener;
  signal: AbortSignal;
  resume?: ResumePoint;
  /** The workflow step that writes offsets (rewindOffsets / restoreOffsets). */
  mutatingStep: string;
  chunkSize: number;
  /** Progress: chunk `index` (1-based) of `total`, with `size` partitions, is about to be written. */
  onChunk?: (index: number, total: number, size: number) => void;
}

/** Runs the workflow once when `inputs.offsets` fits in one chunk, else once per chunk as described above. */
export async function runWorkflowInChunks(req: ChunkedRun): Promise<WorkflowResult> {
  const { workflow } = req;
  const offsets = Array.isArray(req.inputs.offsets) ? (req.inputs.offsets as unknown[]) : [];
  const chunks = planChunks(offsets, req.chunkSize);
  const base = { registry: workflow.registry, workflowId: workflow.workflowId, http: req.http, onEvent: req.onEvent, signal: req.signal };
  if (chunks.length <= 1) return runWorkflow({ ...base, inputs: req.inputs, ...(req.resume ? { resume: req.resume } : {}) });

  // Intermediate runs leave the connector STOPPED: the rewind/reset workflows take resumeAfter,
  // the restore workflow a targetState.
  const hold = 'targetState' in req.inputs ? { targetState: 'STOPPED' } : { resumeAfter: 'never' };
  const mutationAt = workflow.stepOrder.indexOf(req.mutatingStep);
  // A resumed chunked run whose process died after the first write starts again at the first
  // chunk's write: writing a chunk twice writes the same values, skipping one would lose it.
  let resume = req.resume;
  if (resume && workflow.stepOrder.indexOf(resume.stepId) > mutationAt) resume = { stepId: req.mutatingStep, steps: resume.steps };
  let preloaded: ResumePoint['steps'] = resume ? { ...resume.steps } : {};
  let result: WorkflowResult | undefined;
  for (let i = 0; i < chunks.length; i++) {
    const last = i === chunks.length - 1;
    const inputs = { ...req.inputs, offsets: chunks[i], ...(last ? {} : hold) };
    req.onChunk?.(i + 1, chunks.length, chunks[i]!.length);
    const start = i === 0 ? resume : { stepId: req.mutatingStep, steps: preloaded };
    result = await runWorkflow({ ...base, inputs, ...(start ? { resume: start } : {}) });
    if (result.status !== 'passed') return result;
    if (i === 0) preloaded = { ...preloaded, ...outputsBefore(result, workflow.stepOrder.slice(0, mutationAt)) };
  }
  return result!;
}

/** The outputs of the steps before the change step, from a finished run, for the next runs' `$steps`. */
function outputsBefore(result: WorkflowResult, stepIds: string[]): ResumePoint['steps'] {
  const wanted = new Set(stepIds);
  const out: ResumePoint['steps'] = {};
  for (const step of result.steps) if (step.status === 'passed' && wanted.has(step.stepId)) out[step.stepId] = { outputs: step.outputs };
  return out;
}
