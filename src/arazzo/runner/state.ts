// The runner's own state for one run (shared by nested workflows) and its public result types.
import type { ErrorInfo } from '../errors.js';
import type { CriterionResult } from '../criteria/index.js';
import type { HttpSender } from '../http.js';
import type { MessageTransport, StartPosition } from '../messaging.js';
import type { SourceRegistry } from '../sources/index.js';
import type { CompiledStep, CompiledWorkflowRef } from './compile.js';
import type { EventEmitter, RunEventListener } from './events.js';

export interface StepResult {
  workflowId: string;
  stepId: string;
  kind: 'operation' | 'workflow' | 'message';
  /** 1 for the first execution of a visit to the step, 2 for its first retry, ... */
  attempt: number;
  status: 'passed' | 'failed';
  request?: { method: string; url: string };
  response?: { status: number; durationMs: number };
  /** 1.1 AsyncAPI steps: the channel address (topic) and, once known, where the message is. */
  message?: { action: 'send' | 'receive'; address: string; partition?: number; offset?: string };
  outputs: Record<string, unknown>;
  /** The success criteria that did not pass, with their messages. */
  failedCriteria: CriterionResult[];
  /** The action taken after the step, if any. */
  action?: { name: string; type: 'end' | 'goto' | 'retry' };
  error?: ErrorInfo;
  durationMs: number;
}

export interface WorkflowResult {
  workflowId: string;
  status: 'passed' | 'failed';
  outputs: Record<string, unknown>;
  /** Every step execution of the run in order, nested workflows and dependsOn included. */
  steps: StepResult[];
  error?: ErrorInfo;
}

export interface ResumePoint {
  /** The step to start at (it runs again: the run died before or during it). */
  stepId: string;
  /** Outputs of the steps that already ran, visible as `$steps.<id>.outputs.*`. */
  steps: Record<string, { outputs: Record<string, unknown> }>;
}

export interface RunWorkflowOptions {
  registry: SourceRegistry;
  /** Defaults to the document's only workflow (or its first, when there are several). */
  workflowId?: string;
  inputs: Record<string, unknown>;
  http: HttpSender;
  /** Awaited before the runner continues. */
  onEvent?: RunEventListener;
  /** Step executions allowed in one run (retries, gotos and nested workflows count). Default 10,000. */
  maxSteps?: number;
  signal?: AbortSignal;
  resume?: ResumePoint;
  /** 1.1 AsyncAPI steps send and receive through this (e.g. src/kafka/messaging.ts). */
  messages?: MessageTransport;
  /** 1.1: steps of a workflow that uses dependsOn run at most this many at a time. Default 4. */
  concurrency?: number;
}

export interface WorkflowOutcome {
  status: 'passed' | 'failed';
  outputs: Record<string, unknown>;
  error?: ErrorInfo;
}

export interface RunState {
  http: HttpSender;
  events: EventEmitter;
  signal: AbortSignal | undefined;
  maxSteps: number;
  used: number;
  /** Executions per step, to name the looping step when the budget runs out. */
  counts: Map<CompiledStep, number>;
  /** `workflowId/stepId` of each step counted. */
  stepNames: Map<CompiledStep, string>;
  workflows: Record<string, { inputs?: Record<string, unknown>; outputs: Record<string, unknown> }>;
  results: StepResult[];
  /** Workflows that finished in this run: dependsOn runs each of them once. */
  completed: Set<object>;
  messages: MessageTransport | undefined;
  /** Where each receivable channel ended when the run started (by endpoint key). */
  marks: Map<string, Promise<StartPosition>>;
  concurrency: number;
  /** `workflowId/stepId` of every step that passed in this run (1.1 cross-workflow dependsOn). */
  passedSteps: Set<string>;
  /** Runs a workflow inside this run (workflow steps, goto/retry to workflows). */
  execute(ref: CompiledWorkflowRef, inputs: Record<string, unknown>): Promise<WorkflowOutcome>;
}
