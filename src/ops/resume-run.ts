// `offsetctl runs resume <id>`: finish a run whose process died, from its journal. The run
// restarts at the step after the last one that finished (or re-runs that step when it is a
// decision point, which only reads), with the finished steps' outputs preloaded.
import type { ResumePoint } from '../arazzo/index.js';
import { openStore, type StepRecord } from '../store/index.js';
import { clusterIdentity, lookupKeys } from './cluster-identity.js';
import { OpsError } from './errors.js';
import { resolveLimits } from './limits.js';
import { specFor } from './operations.js';
import type { ChangeFlags, OpsConnection, OpsIO } from './begin-change.js';
import { confirmResume } from './resume-confirm.js';
import { runOperation, type OperationOutcome } from './run-operation.js';
import { loadOpsWorkflow, type OpsWorkflow } from './workflow-files.js';

/**
 * Completes an interrupted run. Refused (exit 2) when the run finished, when its process is
 * still alive, or when it died during its own recovery (then `rollback` is the way).
 *
 * @example await resumeRun(conn, 'run-20261130-010400-3f2a', io)
 */
export async function resumeRun(conn: OpsConnection, runId: string, io: OpsIO, flags: ChangeFlags = {}): Promise<OperationOutcome> {
  const store = openStore(conn.stateDir);
  try {
    const found = store.getRun(runId);
    if (found.status !== 'running') {
      throw new OpsError('E_PREFLIGHT', `run ${runId} is ${found.status}: there is nothing to resume (see \`offsetctl runs show ${runId}\`)`);
    }
    if (found.context.recoveryStarted) {
      throw new OpsError('E_PREFLIGHT', `run ${runId} died while putting the connector back after a failure; undo it with \`offsetctl rollback ${found.connector}\` instead`);
    }
    if (!lookupKeys(await clusterIdentity(conn.http, conn.url)).includes(found.clusterKey)) {
      throw new OpsError('E_PREFLIGHT', `run ${runId} ran against ${found.clusterUrl}, but this command is connected to ${conn.url}, which is another cluster; pass --url ${found.clusterUrl} (with its credentials) or the matching --context`);
    }
    const spec = specFor(found.operation);
    const workflow = await loadOpsWorkflow(spec.workflow, found.clusterUrl);
    const resume = resumePointFor(workflow, store.stepsOf(runId));
    // Resuming changes offsets like any change: show what is left to do and ask (--yes for scripts).
    const stop = await confirmResume(conn, found, resume?.stepId ?? workflow.stepOrder[0] ?? '', io, flags);
    if (stop) return stop;
    const run = store.takeOverRun(runId);
    const connectorType = run.context.connectorType ?? 'source';
    const initialState = resume?.steps.readInitialState?.outputs.initialState;
    io.info(`Resuming run ${runId} (${run.operation} of ${run.connector} on ${run.clusterUrl}) at step ${resume?.stepId ?? workflow.stepOrder[0]}`);
    return await runOperation({
      store, http: conn.http, run, spec, connectorType, inputs: run.inputs, chunkSize: resolveLimits().chunkSize,
      onChunk: (i, n, size) => io.info(`writing chunk ${i}/${n} (${size} partitions)`),
      ...(resume ? { resume } : {}),
      ...(typeof initialState === 'string' ? { initialState } : {}),
      ...(io.onProgress ? { onProgress: io.onProgress } : {}),
    });
  } finally {
    store.close();
  }
}

/** Where to pick up: undefined means from the start (no step finished). */
export function resumePointFor(workflow: Pick<OpsWorkflow, 'workflowId' | 'stepOrder' | 'decisionSteps'>, journal: StepRecord[]): ResumePoint | undefined {
  const passed = journal.filter((s) => s.workflowId === workflow.workflowId && s.status === 'passed');
  const last = passed.at(-1);
  if (!last) return undefined;
  const steps: ResumePoint['steps'] = {};
  for (const s of passed) steps[s.stepId] = { outputs: s.outputs };
  const index = workflow.stepOrder.indexOf(last.stepId);
  const rerun = workflow.decisionSteps.has(last.stepId) || index === workflow.stepOrder.length - 1;
  const stepId = rerun ? last.stepId : workflow.stepOrder[index + 1]!;
  return { stepId, steps };
}

