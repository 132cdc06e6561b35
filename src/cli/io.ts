// What a command takes from the process — its streams, environment, clock, working folder and
// exit status — as one injected set (gh's IOStreams/Factory). The launcher runs a command with
// the process's own (processIO); a test runs the real command in its own process with streams it
// reads back (withIO, see main(argv, io) and test/support/in-process.ts). The IO is scoped with
// AsyncLocalStorage, so code deep inside a command (say.ts, confirm.ts, the env look-ups) asks
// currentIO() instead of being handed it through every call.
import { AsyncLocalStorage } from 'node:async_hooks';

/** A stream shown to the operator: a terminal has isTTY and columns. */
export type OutStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
/** Where answers and piped input come from (a terminal has isTTY; setRawMode when it is one). */
export type InStream = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };

export interface CliIO {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
  env: NodeJS.ProcessEnv;
  /** Milliseconds since the epoch (Date.now for the process). */
  now(): number;
  cwd(): string;
  /** The command's exit status; for the process it is process.exitCode itself. */
  exitCode: number | undefined;
  /** --no-color was given (main sets it; render/color.ts reads it). */
  noColor: boolean;
}

/** The process's own IO: what the launcher runs with. exitCode reads and sets process.exitCode. */
const PROCESS_IO: CliIO = {
  get stdout() { return process.stdout; },
  get stderr() { return process.stderr; },
  get stdin() { return process.stdin; },
  get env() { return process.env; },
  now: () => Date.now(),
  cwd: () => process.cwd(),
  get exitCode() { return typeof process.exitCode === 'number' ? process.exitCode : undefined; },
  set exitCode(code: number | undefined) { process.exitCode = code; },
  noColor: false,
};

const scope = new AsyncLocalStorage<CliIO>();

/** The IO of the command running now: the one main was given, else the process's. */
export function currentIO(): CliIO {
  return scope.getStore() ?? PROCESS_IO;
}

/** Whether this is the process's own IO (the launcher's: closed pipes and signals are real). */
export function isProcessIO(io: CliIO): boolean {
  return io === PROCESS_IO;
}

/** Runs `fn` (and everything it awaits or starts) with `io` as currentIO(). */
export function withIO<T>(io: CliIO, fn: () => T): T {
  return scope.run(io, fn);
}
