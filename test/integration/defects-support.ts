// Shared set-up for the issue-14 defect tests: a state folder, an offsets file, the CLI's
// connection flags, and a CLI child process the test can send Ctrl-C to.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli, type CliResult } from '../support/cli.js';
import { tempDir } from '../support/connect.js';
import { cliPath, repoRoot } from '../support/repo.js';

export interface OffsetEntry {
  partition: Record<string, unknown>;
  offset: Record<string, unknown> | null;
}

/** Writes `{"offsets": entries}` to a new file and returns its path. */
export function offsetsFile(entries: OffsetEntry[]): string {
  const file = join(tempDir('defects-offsets'), 'offsets.json');
  writeFileSync(file, JSON.stringify({ offsets: entries }));
  return file;
}

export async function runsOf(stateDir: string): Promise<Array<{ id: string; connector: string; status: string; lastStep?: string; snapshotId?: string; message?: string; pid: number }>> {
  const r = await runCli(['runs', '--output', 'json', '--state-dir', stateDir]);
  return r.status === 0 ? JSON.parse(r.stdout) : [];
}

export async function snapshotsOf(stateDir: string, connector: string): Promise<Array<{ id: string; partitions: number; clusterUrl: string }>> {
  const r = await runCli(['snapshots', connector, '--output', 'json', '--state-dir', stateDir]);
  return r.status === 0 ? JSON.parse(r.stdout) : [];
}

/** A CLI process the test can signal; `done` resolves with its result. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}, input?: Buffer): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [cliPath, ...args], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  if (input) {
    child.stdin!.on('error', () => undefined); // the CLI may stop reading early: that is the point
    child.stdin!.end(input);
  }
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ status: code ?? (signal ? 128 : 1), signal, stdout, stderr }));
  });
  return { child, done };
}

export async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(250);
  }
}

export function sorted(offsets: OffsetEntry[]): OffsetEntry[] {
  return [...offsets].sort((a, b) => JSON.stringify(a.partition).localeCompare(JSON.stringify(b.partition)));
}
