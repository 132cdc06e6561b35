// What a command takes from the process — its streams, environment, clock, working folder and
// exit status — and what it makes from them — the HTTP sender to Kafka Connect, the store, the
// prompts — as one injected set (gh's IOStreams/Factory). The launcher runs a command with the
// process's own (PROCESS_IO); a test runs the real command in its own process with streams it
// reads back and, when it wants, a sender, store or prompter of its own (withIO, see
// main(argv, io) and test/support/in-process.ts). The IO is scoped with AsyncLocalStorage, so
// code deep inside a command (say.ts, confirm.ts, connection.ts, the env look-ups) asks
// currentIO() instead of being handed it through every call. The factories are optional: left
// out, the standard one is built where it is used, loaded only then (`--version` loads none).
import { AsyncLocalStorage } from 'node:async_hooks';
import { resolve } from 'node:path';
import type { HttpClientOptions, HttpSender } from '../http/client.js';
import type { Store, StoreChoice } from '../store/index.js';

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
  /** Makes the sender of a command's requests to Kafka Connect (default: connection.ts's standardSender). */
  httpSender?: (options: SenderOptions) => Promise<ConnectSender>;
  /** Opens the store a command chose (default: store-choice.ts's standardOpenStore). */
  openStore?: (choice: StoreChoice, options: { migrate?: boolean }) => Promise<Store>;
  /** Asks the operator (default: the terminal on stdin/stderr, confirm.ts and ask-secret.ts). */
  prompter?: Prompter;
}

/** An HTTP sender a command can close when it is done (src/http's clients). */
export interface ConnectSender extends HttpSender {
  close(): Promise<void>;
}

/** What the sender is made for: credentials, TLS, timeout; `pooled` for a long-lived process (the console). */
export interface SenderOptions extends HttpClientOptions {
  pooled: boolean;
}

/** The operator's answers: the terminal's by default; a test's scripted ones. */
export interface Prompter {
  /** Whether anybody can be asked (a terminal): without, a confirmation is refused and a secret is not asked. */
  interactive(): boolean;
  /** The line typed in answer to a yes/no question ('' when none). */
  ask(question: string): Promise<string>;
  /** A secret typed without echo ('' when none). */
  secret(question: string): Promise<string>;
}

/** A path the operator typed, as the command's working folder sees it (absolute paths stay as they are). */
export function fromCwd(path: string): string {
  return resolve(currentIO().cwd(), path);
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
