// One error type for the engine boundary. `code` is stable (the CLI maps it to an exit status);
// `message` says what is wrong and what to do about it.

export interface SourceLocation {
  file?: string;
  /** JSON Pointer into the document, e.g. `/workflows/0/steps/2/operationId`. */
  pointer?: string;
  line?: number;
  column?: number;
}

export type ArazzoErrorCode =
  | 'E_DOCUMENT_READ' // file missing or unreadable
  | 'E_DOCUMENT_PARSE' // not YAML/JSON, alias bomb, too large
  | 'E_DOCUMENT_INVALID' // structure or references wrong (see `diagnostics`)
  | 'E_SOURCE' // a source description could not be loaded or is not allowed
  | 'E_OPERATION' // operationId / operationPath not found or ambiguous
  | 'E_EXPRESSION' // runtime expression syntax
  | 'E_CRITERION' // criterion syntax or unsupported type/version
  | 'E_INPUTS' // workflow inputs do not match the schema
  | 'E_WORKFLOW_NOT_FOUND'
  | 'E_REQUEST' // a request could not be built (missing path parameter, bad server, ...)
  | 'E_STEP_BUDGET' // endless loop guard
  | 'E_HTTP'; // transport failure (connection refused, timeout)

/** Errors raised before any request is sent: the CLI exits 2 for these. */
export const REFUSAL_CODES: ReadonlySet<ArazzoErrorCode> = new Set([
  'E_DOCUMENT_READ',
  'E_DOCUMENT_PARSE',
  'E_DOCUMENT_INVALID',
  'E_SOURCE',
  'E_OPERATION',
  'E_EXPRESSION',
  'E_CRITERION',
  'E_INPUTS',
  'E_WORKFLOW_NOT_FOUND',
]);

/**
 * What the caller could change to get past an error, said without naming any caller's options:
 * the engine knows nothing of the CLI. A front end turns a hint into advice about its own flags
 * (src/cli/flag-advice.ts), and one that lacks those flags (a shipped workflow run by `rewind`)
 * shows the neutral message alone.
 */
export type ArazzoHint =
  /** Point the source at another (local) description. No `source`: whichever source is meant. */
  | { kind: 'map-source'; source?: string }
  /** Allow fetching remote descriptions, or map the source to a local one. */
  | { kind: 'allow-remote'; source: string }
  /** Give the source a server URL (or bootstrap servers) to send to. */
  | { kind: 'set-server'; source: string }
  /** The document has several workflows: say which one to run. */
  | { kind: 'choose-workflow'; ids: string[] }
  /** Required workflow inputs without a value. */
  | { kind: 'provide-input'; names: string[] }
  /** The endless-loop guard stopped the run: raise the step budget if the loop is intended. */
  | { kind: 'raise-step-budget' }
  /** A source mapping (`map`) or server (`server`) given by the caller names no sourceDescription. */
  | { kind: 'unknown-source-name'; given: 'map' | 'server'; name: string };

/** An error as runs report it (step and workflow results, events): plain data. */
export interface ErrorInfo {
  code: string;
  message: string;
  hint?: ArazzoHint;
}

export interface Diagnostic extends SourceLocation {
  code: string;
  message: string;
  severity: 'error' | 'warning';
}

export class ArazzoError extends Error {
  readonly code: ArazzoErrorCode;
  readonly location: SourceLocation | undefined;
  readonly diagnostics: Diagnostic[];
  readonly hint: ArazzoHint | undefined;

  constructor(code: ArazzoErrorCode, message: string, options: { location?: SourceLocation; diagnostics?: Diagnostic[]; hint?: ArazzoHint; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ArazzoError';
    this.code = code;
    this.location = options.location;
    this.diagnostics = options.diagnostics ?? [];
    this.hint = options.hint;
  }
}

/** `file:line:column` (or as much of it as is known), for messages. */
export function formatLocation(loc: SourceLocation | undefined): string {
  if (!loc) return '';
  const parts = [loc.file ?? '<document>'];
  if (loc.line !== undefined) parts.push(String(loc.line));
  if (loc.line !== undefined && loc.column !== undefined) parts.push(String(loc.column));
  return parts.join(':');
}
