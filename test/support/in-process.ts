// Running the real command in the test's own process (issue 31): the commander program of
// src/cli/main.ts, given streams this module reads back, an environment and a clock of its own
// (src/cli/io.ts), and when a test wants them an HTTP sender, a store, a prompter and a working
// folder of its own. No launcher, no bundle, no child process: what a command test is about (its
// output, its exit status, what it changed) without ~150 ms of start-up per call. The launcher,
// signals, closed pipes and anything needing a process of its own stay spawn tests (cli.ts).
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { isolatedState, type RunCliOptions } from './cli.js';
import { repoRoot } from './repo.js';

export interface InProcessOptions extends RunCliOptions {
  /** The command's clock (default Date.now): `--older-than 2d` against a fixed day. */
  now?: () => number;
  /** The command's working folder (default the repository root, as runCli's): relative files are read from it. */
  cwd?: string;
  /** Makes the HTTP sender to Kafka Connect (default the standard one; wrap standardSender to record). */
  httpSender?: CliIO['httpSender'];
  /** Opens the store the command chose (default the standard one; hand in a store to inspect it afterwards). */
  openStore?: CliIO['openStore'];
  /** The operator's answers (default: none, as without a terminal; scriptedPrompter answers in turn). */
  prompter?: CliIO['prompter'];
}

export interface InProcessResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Process events a command may listen on (Ctrl-C, the console's stop): removed after each run. */
const PROCESS_EVENTS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * A prompter that gives these answers in turn (a confirmation's "y"/"n", a secret), as a terminal
 * would; it records each question. Asked more often than it has answers, it fails the test.
 */
export function scriptedPrompter(answers: string[]): NonNullable<CliIO['prompter']> & { questions: string[] } {
  const left = [...answers];
  const questions: string[] = [];
  const next = async (question: string): Promise<string> => {
    questions.push(question);
    const answer = left.shift();
    if (answer === undefined) throw new Error(`scriptedPrompter: no answer left for ${JSON.stringify(question)}`);
    return answer;
  };
  return { questions, interactive: () => true, ask: next, secret: next };
}

/**
 * `offsetctl <args>` as runCli runs it (same environment rules, same result shape, stdin given
 * and closed, never a terminal), in this process, from `options.cwd` (default the repository root).
 */
export async function runInProcess(args: string[], options: InProcessOptions = {}): Promise<InProcessResult> {
  const cwd = options.cwd ?? repoRoot;
  const env: NodeJS.ProcessEnv = { ...process.env, ...isolatedState(), ...options.env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  let stdout = '';
  let stderr = '';
  const out = new PassThrough();
  const err = new PassThrough();
  out.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  err.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const io: CliIO = {
    stdout: out,
    stderr: err,
    stdin: Readable.from([options.stdin ?? ''].filter((s) => s !== '')),
    env,
    now: options.now ?? (() => Date.now()),
    cwd: () => cwd,
    exitCode: undefined,
    noColor: false,
    ...(options.httpSender ? { httpSender: options.httpSender } : {}),
    ...(options.openStore ? { openStore: options.openStore } : {}),
    ...(options.prompter ? { prompter: options.prompter } : {}),
  };
  const before = new Map(PROCESS_EVENTS.map((event) => [event, process.listeners(event)]));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`offsetctl ${args.join(' ')} ran in-process for over ${options.timeoutMs ?? 300_000} ms`)), options.timeoutMs ?? 300_000);
  });
  try {
    const status = await Promise.race([main(['node', 'offsetctl', ...args], io), timeout]);
    return { status, stdout, stderr };
  } finally {
    clearTimeout(timer);
    // What the run registered on the process and did not take back (a signal handler) goes with it.
    for (const event of PROCESS_EVENTS) {
      const had = before.get(event) ?? [];
      for (const listener of process.listeners(event)) if (!had.includes(listener)) process.removeListener(event, listener as NodeJS.SignalsListener);
    }
  }
}
