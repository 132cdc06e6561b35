// One error type for the sandbox boundary. `code` is stable (the CLI maps it to an exit status);
// `message` says what went wrong and what to do about it.

export type SandboxErrorCode =
  | 'E_SANDBOX_PREREQ' // java or mvn missing / too old
  | 'E_SANDBOX_PORT_TAKEN' // a port the sandbox needs is in use by another program
  | 'E_SANDBOX_JARS' // Maven could not resolve the Kafka jars
  | 'E_SANDBOX_START' // a process died or did not become ready during start-up
  | 'E_SANDBOX_STOP' // a process or listener survived `down`
  | 'E_SANDBOX_VERSION' // --kafka-version unusable, or differs from the running sandbox's
  | 'E_SANDBOX_BUSY' // another `offsetctl sandbox up` is running on the same folder
  | 'E_SANDBOX_DEMO' // the sandbox runs, but the demo's `offsetctl rewind` failed
  | 'E_SANDBOX_NOT_RUNNING' // a command needs a running sandbox
  | 'E_USAGE'; // a wrong argument (e.g. a process name that does not exist)

export class SandboxError extends Error {
  readonly code: SandboxErrorCode;

  constructor(code: SandboxErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SandboxError';
    this.code = code;
  }
}
