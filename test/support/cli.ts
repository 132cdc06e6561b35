// Running the real CLI from tests, the way a user or CI does.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, repoRoot } from './repo.js';

export interface CliResult {
  /** The exit status; 128 + n when a signal ended the process (see `signal`). */
  status: number;
  /** The signal that ended the process (a test hook's SIGKILL), else null. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  /** Added to (or, with undefined, removed from) this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** Written to the CLI's stdin, which is then closed (empty when not given: never a terminal). */
  stdin?: string;
  /** The process is sent SIGTERM after this long (default 300 s). */
  timeoutMs?: number;
}

/**
 * Runs `offsetctl <args>` from the repository root as a user or CI does: the one way tests run
 * the CLI. Asynchronous, so a test's own server or a concurrent run keeps going meanwhile.
 */
export function runCli(args: string[], options: RunCliOptions = {}): Promise<CliResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { cwd: repoRoot, env: { ...process.env, ...isolatedState(), ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    // SIGTERM first (offsetctl cancels and recovers); a process that does not end within 20 s
    // more is killed, so a hang never outlives its timeout.
    let escalate: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      escalate = setTimeout(() => child.kill('SIGKILL'), 20_000);
    }, options.timeoutMs ?? 300_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(escalate);
      resolveRun({ status: code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 1), signal, stdout, stderr });
    });
    // A CLI that exits before reading its stdin closes the pipe: that is not the test's error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin ?? '');
  });
}

let stateHome: string | undefined;
/**
 * A command a test runs without naming a state folder (no --state-dir, no OFFSETCTL_STATE_DIR)
 * uses one of this test process's own, never the machine's ~/.local/state/offsetctl: a store
 * left there by another checkout (a newer schema, another engineer's runs) made a test fail that
 * never meant to touch it. A test that sets XDG_STATE_HOME itself keeps its own.
 */
export function isolatedState(): NodeJS.ProcessEnv {
  stateHome ??= mkdtempSync(join(tmpdir(), 'offsetctl-test-state-'));
  return { XDG_STATE_HOME: stateHome };
}

export interface WorkflowRunJson {
  workflowId: string;
  status: 'passed' | 'failed';
  outputs: Record<string, unknown>;
  steps: Array<{ stepId: string; [key: string]: unknown }>;
  error?: { code: string; message: string };
}

export interface WorkflowRunRequest {
  /** The Arazzo document (absolute path). */
  file: string;
  /** Source description name -> OpenAPI file, passed as `--source name=path`. */
  sources?: Record<string, string>;
  /** `--server <url>` for every source, or `--server <name>=<url>` per source (a multi-source document). */
  server: string | Record<string, string>;
  /** Values are JSON-encoded for `--input name=<json>` (strings stay plain). */
  inputs: Record<string, unknown>;
}

/** `offsetctl workflow run <file> --source ... --server ... --input ... --output json`, parsed. */
export async function runWorkflowCli(request: WorkflowRunRequest): Promise<{ cli: CliResult; result: WorkflowRunJson }> {
  const args = ['workflow', 'run', request.file];
  for (const [name, path] of Object.entries(request.sources ?? {})) args.push('--source', `${name}=${path}`);
  if (typeof request.server === 'string') args.push('--server', request.server);
  else for (const [name, url] of Object.entries(request.server)) args.push('--server', `${name}=${url}`);
  for (const [name, value] of Object.entries(request.inputs)) args.push('--input', `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  args.push('--output', 'json');
  const cli = await runCli(args);
  let result: WorkflowRunJson;
  try {
    result = JSON.parse(cli.stdout) as WorkflowRunJson;
  } catch {
    throw new Error(`offsetctl ${args.join(' ')} printed no JSON (exit ${cli.status}).\nstdout: ${cli.stdout}\nstderr: ${cli.stderr}`);
  }
  return { cli, result };
}

/** A one-line account of a failed run for assertion messages: which step, which status, what body. */
export function describeRun(run: { cli: CliResult; result: WorkflowRunJson }): string {
  return JSON.stringify({ exit: run.cli.status, status: run.result.status, error: run.result.error, steps: run.result.steps }, null, 1).slice(0, 6000) + (run.cli.stderr ? `\nstderr: ${run.cli.stderr.slice(0, 2000)}` : '');
}
