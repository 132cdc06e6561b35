// Spawning and timing whole processes: the end-to-end figures measure from spawn to exit, the
// way a user or a script experiences a command.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './figure.js';

export interface TimedRun {
  ms: number;
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface SpawnOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
}

/** Runs a command to completion and returns its wall time (spawn → exit) and output. */
export function timeSpawn(command: string, args: readonly string[], options: SpawnOptions = {}): Promise<TimedRun> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: options.cwd ?? repoRoot, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      const ms = performance.now() - started;
      if (timer) clearTimeout(timer);
      resolvePromise({ ms, status, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

export interface NodeRun extends TimedRun {
  /** User + system CPU time of the process itself (not its children), from bench/cpu-report.ts. */
  cpuMs: number;
  maxRssMb: number;
}

/** Runs `node <args>` with the CPU-report preload: wall time, and the process's own CPU time. */
export async function timeNode(args: readonly string[], options: SpawnOptions = {}): Promise<NodeRun> {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-bench-cpu-'));
  const file = join(dir, 'cpu.json');
  try {
    const preload = pathToFileURL(resolve(repoRoot, 'dist', 'bench', 'cpu-report.js')).href;
    const run = await timeSpawn(process.execPath, ['--import', preload, ...args], {
      ...options,
      env: { ...(options.env ?? process.env), OFFSETCTL_BENCH_CPU_FILE: file },
    });
    let usage = { cpuMs: Number.NaN, maxRssMb: Number.NaN };
    try {
      usage = JSON.parse(readFileSync(file, 'utf8')) as typeof usage;
    } catch {
      // Killed before exit: no report. NaN keeps it out of any figure.
    }
    return { ...run, ...usage };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts bench/server.ts in its own process, so the server's work runs on the other core instead
 * of in the event loop being measured (Kafka Connect is a remote process too).
 */
export function startServerProcess(): Promise<ServerProcess> {
  const script = resolve(repoRoot, 'dist', 'bench', 'server.js');
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolvePromise, reject) => {
    const lines = createInterface({ input: child.stdout! });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`bench server exited early with status ${code}`)));
    lines.once('line', (line) => {
      const { url } = JSON.parse(line) as { url: string };
      resolvePromise({
        url,
        child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** Environment for Redocly CLI: no telemetry, no update check, no colour codes in what we parse. */
export function redoclyEnv(): NodeJS.ProcessEnv {
  return { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1', FORCE_COLOR: '0' };
}
