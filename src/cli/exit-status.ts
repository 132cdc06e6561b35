// The one place where error codes become exit statuses: 0 done, 1 ran and failed, 2 refused
// before any request or change. Every code of every layer has its row (the type checker sees to
// that); nothing decides an exit status from message text. Only main.ts sets the status.
import { formatLocation, type ArazzoErrorCode } from '../arazzo/errors.js';
import { redactText } from '../http/redact.js';
import { withFlagAdvice, type FlagSet } from './flag-advice.js';
import type { KafkaErrorCode } from '../kafka/errors.js';
import type { OpsErrorCode } from '../ops/errors.js';
import type { SandboxErrorCode } from '../sandbox/errors.js';
import type { StoreErrorCode } from '../store/errors.js';

/** Codes of the CLI itself: a failure already reported in full (the outcome or report is printed). */
export type CliErrorCode = 'E_RUN_FAILED' | 'E_WORKFLOW_FAILED';

export type ErrorCode = ArazzoErrorCode | OpsErrorCode | KafkaErrorCode | StoreErrorCode | SandboxErrorCode | CliErrorCode;

export const EXIT_STATUS: Record<ErrorCode, 0 | 1 | 2> = {
  // the engine: refused before any request ...
  E_DOCUMENT_READ: 2,
  E_DOCUMENT_PARSE: 2,
  E_DOCUMENT_INVALID: 2,
  E_SOURCE: 2,
  E_OPERATION: 2,
  E_EXPRESSION: 2,
  E_CRITERION: 2,
  E_INPUTS: 2,
  E_WORKFLOW_NOT_FOUND: 2,
  // ... or failed while running
  E_REQUEST: 1,
  E_STEP_BUDGET: 1,
  E_HTTP: 1,
  // operations: pre-flight refusals change nothing
  E_CONFIG: 2,
  E_USAGE: 2,
  E_OFFSETS_INVALID: 2,
  E_CONNECTOR_NOT_FOUND: 2,
  E_NOT_CONFIRMED: 2,
  E_PREFLIGHT: 2,
  E_UNREACHABLE: 2,
  E_CONNECT_API: 1,
  E_PLAN_INVALID: 2,
  E_PLAN_STALE: 2,
  E_APPROVAL_REQUIRED: 2,
  E_PLAN_MOVED: 2,
  // the Kafka client layer: every read happens while planning, before any change
  E_KAFKA: 2,
  E_KAFKA_TOPIC_NOT_FOUND: 2,
  // the store
  E_LOCKED: 2,
  E_STORE: 2,
  E_NOT_FOUND: 2,
  E_CHANGED: 2,
  E_STORE_USAGE: 2,
  E_STORE_SCHEMA: 2,
  // the sandbox
  E_SANDBOX_PREREQ: 2,
  E_SANDBOX_PORT_TAKEN: 2,
  E_SANDBOX_BUSY: 2,
  E_SANDBOX_VERSION: 2,
  E_SANDBOX_JARS: 1,
  E_SANDBOX_START: 1,
  E_SANDBOX_STOP: 1,
  E_SANDBOX_NOT_RUNNING: 1,
  E_SANDBOX_DEMO: 1,
  // the CLI
  E_RUN_FAILED: 1,
  E_WORKFLOW_FAILED: 1,
};

/**
 * A failure whose account is already on stdout (the outcome JSON, the workflow report): main
 * sets the exit status and prints only the message, when there is one.
 */
export class ReportedFailure extends Error {
  readonly code: CliErrorCode;
  constructor(code: CliErrorCode, message = '') {
    super(message);
    this.name = 'ReportedFailure';
    this.code = code;
  }
}

export function exitStatusFor(err: unknown): 0 | 1 | 2 {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && Object.hasOwn(EXIT_STATUS, code) ? EXIT_STATUS[code as ErrorCode] : 1;
}

/**
 * The error as the CLI prints it. `flagAdvice`: which flags the command has (`true`: the
 * connection flags), so a lower layer's neutral hint (credentials, trust; a source to map, a
 * server to set) becomes advice about them. Without it the neutral message stands alone.
 */
export function formatError(err: unknown, options: { flagAdvice?: boolean | FlagSet } = {}): string {
  const e = err as { code?: string; message?: string; location?: Parameters<typeof formatLocation>[0]; diagnostics?: Array<{ message: string; file?: string; line?: number; column?: number; pointer?: string }> };
  const lines: string[] = [];
  const where = formatLocation(e.location);
  const message = e.message ?? String(err);
  // Loader messages may already start with their location: do not print it twice.
  const prefix = where && !message.startsWith(where) ? `${where}: ` : '';
  const flags = options.flagAdvice === true ? 'connection' : options.flagAdvice || undefined;
  lines.push(`error${e.code ? ` [${e.code}]` : ''}: ${prefix}${flags ? withFlagAdvice(message, err, flags) : message}`);
  for (const d of e.diagnostics ?? []) {
    const loc = formatLocation(d);
    lines.push(`  ${loc ? loc + ': ' : ''}${d.message}${d.pointer ? ` (at ${d.pointer})` : ''}`);
  }
  return redactText(lines.join('\n'));
}
