// One error type for the ops boundary (pre-flight, Kafka Connect reads, connections).
// `code` is stable: src/cli/exit-status.ts maps the refusal codes to exit status 2.
// `message` names what is wrong and how to fix it; `field` points at the offending input.

export type OpsErrorCode =
  | 'E_CONFIG' // no cluster URL, unknown context, unreadable secret reference, bad config file
  | 'E_USAGE' // an option value the CLI cannot accept
  | 'E_OFFSETS_INVALID' // offsets input unreadable or of the wrong shape
  | 'E_CONNECTOR_NOT_FOUND'
  | 'E_NOT_CONFIRMED' // no --yes on a non-terminal, or the operator said no
  | 'E_PREFLIGHT' // another pre-flight refusal
  | 'E_CONNECT_API' // Kafka Connect answered with an error status
  | 'E_UNREACHABLE' // a read before any change could not reach Kafka Connect (refused, timed out, TLS)
  | 'E_PLAN_INVALID' // a saved plan that is not one, or whose digest does not match its content (edited)
  | 'E_PLAN_STALE' // a saved plan or request for another connector or cluster, too old, or already applied
  | 'E_PLAN_MOVED' // a saved plan whose starting offsets moved in a way that changes what it does
  | 'E_APPROVAL_REQUIRED'; // the team store's policy requires approval and the change was not an approved request

/** What usually fixes the error, for a face to turn into its own advice (never flag names here). */
export type OpsHint = 'credentials' | 'client-certificate' | 'tls-trust';

export class OpsError extends Error {
  readonly code: OpsErrorCode;
  readonly field: string | undefined;
  /** HTTP status when the error came from a Kafka Connect response. */
  readonly status: number | undefined;
  /** A read that may succeed when asked again shortly (Connect rebalancing). */
  readonly retryable: boolean;
  readonly hint: OpsHint | undefined;
  /** A refusal of many connectors at once (an import): each one's own reason, so each is audited under its name. */
  readonly connectors: readonly ConnectorRefusal[] | undefined;

  constructor(
    code: OpsErrorCode,
    message: string,
    options: { field?: string; status?: number; retryable?: boolean; hint?: OpsHint; cause?: unknown; connectors?: readonly ConnectorRefusal[] } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OpsError';
    this.code = code;
    this.field = options.field;
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.hint = options.hint;
    this.connectors = options.connectors;
  }
}

export interface ConnectorRefusal {
  connector: string;
  reason: string;
}

/**
 * Planning reads only, so an error answer from Kafka Connect while planning (a 500 to a
 * pre-flight GET) changed nothing: it is a refusal (E_PREFLIGHT, exit 2), not a failed run
 * (E_CONNECT_API, exit 1). The plan functions every face calls are wrapped in it at their rooms'
 * doors; the message says nothing changed.
 */
export function refusedBeforeAnyChange<A extends unknown[], R>(plan: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A): Promise<R> => {
    try {
      return await plan(...args);
    } catch (err) {
      if (!(err instanceof OpsError) || err.code !== 'E_CONNECT_API') throw err;
      throw new OpsError('E_PREFLIGHT', `${err.message}; nothing was changed`, {
        ...(err.field !== undefined ? { field: err.field } : {}), ...(err.status !== undefined ? { status: err.status } : {}),
        ...(err.hint !== undefined ? { hint: err.hint } : {}), retryable: err.retryable, cause: err,
      });
    }
  };
}
