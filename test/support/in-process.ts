// Running the real command in the test's own process (issue 31): the commander program of
// src/cli/main.ts, given streams this module reads back, an environment and a clock of its own
// (src/cli/io.ts). No launcher, no bundle, no child process: what a command test is about (its
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
}

export interface InProcessResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Process events a command may listen on (Ctrl-C, the console's stop): removed after each run. */
const PROCESS_EVENTS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * `offsetctl <args>` as runCli runs it (same environment rules, same result shape, stdin given
 * and closed, never a terminal), in this process. Commands run from the repository root, like runCli's.
 */
export async function runInProcess(args: string[], options: InProcessOptions = {}): Promise<InProcessResult> {
  if (process.cwd() !== repoRoot) throw new Error(`runInProcess runs commands from ${repoRoot}; this test process is in ${process.cwd()}`);
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
    cwd: () => repoRoot,
    exitCode: undefined,
    noColor: false,
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
