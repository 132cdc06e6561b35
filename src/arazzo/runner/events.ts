// The runner's typed events. Renderers and the journal consume them; the runner awaits each
// listener call before it continues, so a journal can flush to disk before the next step starts.
import type { ErrorInfo } from '../errors.js';
import type { CriterionResult } from '../criteria/index.js';

interface EventBase {
  /** ISO 8601 time the event was created. */
  at: string;
}

export interface WorkflowStartedEvent extends EventBase {
  type: 'workflow.started';
  workflowId: string;
  inputs: Record<string, unknown>;
}

export interface StepStartedEvent extends EventBase {
  type: 'step.started';
  workflowId: string;
  stepId: string;
  /** 1 for the first execution of this step visit, 2 for the first retry, ... */
  attempt: number;
}

export interface RequestSentEvent extends EventBase {
  type: 'request.sent';
  workflowId: string;
  stepId: string;
  method: string;
  url: string;
  /**
   * Credential headers (Authorization, cookies, API keys) masked with `redactHeaders`. Everything
   * else in events is the real data (bodies, URLs, outputs): a listener that shows it to a person
   * redacts it there, one that stores it for replay or verification must not.
   */
  headers: Record<string, string | string[]>;
  body?: string;
}

export interface ResponseReceivedEvent extends EventBase {
  type: 'response.received';
  workflowId: string;
  stepId: string;
  status: number;
  headers: Record<string, string | string[]>;
  body?: unknown;
  durationMs: number;
}

export interface CriterionEvaluatedEvent extends EventBase {
  type: 'criterion.evaluated';
  workflowId: string;
  stepId: string;
  /** Where the criterion came from: the step's successCriteria or an action's criteria. */
  source: 'successCriteria' | `action:${string}`;
  result: CriterionResult;
}

export interface ActionTakenEvent extends EventBase {
  type: 'action.taken';
  workflowId: string;
  stepId: string;
  action: { name: string; type: 'end' | 'goto' | 'retry'; stepId?: string; workflowId?: string; retryAfter?: number; retryLimit?: number };
  /** Why: `onSuccess`, `onFailure`, `successActions`, `failureActions`, plus the delay for retries. */
  reason: string;
}

export interface StepFinishedEvent extends EventBase {
  type: 'step.finished';
  workflowId: string;
  stepId: string;
  status: 'passed' | 'failed';
  outputs: Record<string, unknown>;
  error?: ErrorInfo;
  /** 1.1 AsyncAPI steps: the topic and where the message sent or received is. */
  message?: { action: 'send' | 'receive'; address: string; partition?: number; offset?: string };
}

export interface WorkflowFinishedEvent extends EventBase {
  type: 'workflow.finished';
  workflowId: string;
  status: 'passed' | 'failed';
  outputs: Record<string, unknown>;
  error?: ErrorInfo;
}

export type RunEvent =
  | WorkflowStartedEvent
  | StepStartedEvent
  | RequestSentEvent
  | ResponseReceivedEvent
  | CriterionEvaluatedEvent
  | ActionTakenEvent
  | StepFinishedEvent
  | WorkflowFinishedEvent;

export type RunEventListener = (event: RunEvent) => void | Promise<void>;

type Payload<T extends RunEvent> = Omit<T, 'at'>;
type AnyPayload = { [K in RunEvent['type']]: Payload<Extract<RunEvent, { type: K }>> }[RunEvent['type']];

/**
 * Emits through the listener and waits for it. `enabled` lets callers skip building payloads
 * altogether when nobody listens (the benchmark runs without a listener).
 */
export class EventEmitter {
  readonly enabled: boolean;
  readonly #listener: RunEventListener | undefined;

  constructor(listener: RunEventListener | undefined) {
    this.#listener = listener;
    this.enabled = listener !== undefined;
  }

  async emit(payload: AnyPayload): Promise<void> {
    if (!this.#listener) return;
    await this.#listener({ ...payload, at: new Date().toISOString() } as RunEvent);
  }
}
