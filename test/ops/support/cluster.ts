// Helpers for the ops integration tests: the sandbox's Connect URL, FileStream connectors with
// unique names and files in a temp folder, polling, and running bin/offsetctl as a process.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The repository root (this file runs from dist/test/ops/support). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const CLI = join(REPO_ROOT, 'bin', 'offsetctl');

let cachedUrl: string | undefined;

/**
 * The first Connect worker of the running sandbox; throws a clear error when it is not up.
 * Asks a few times: a status read can fail for a moment while someone rebuilds dist/.
 */
export function sandboxUrl(): string {
  if (cachedUrl) return cachedUrl;
  let said = '';
  for (let attempt = 0; attempt < 10; attempt++) {
    const r = spawnSync(process.execPath, [CLI, 'sandbox', 'status', '--output', 'json'], { encoding: 'utf8' });
    said = `${r.stdout}${r.stderr}`;
    try {
      const status = JSON.parse(r.stdout) as { running?: boolean; connect?: string[] };
      if (status.running && status.connect?.[0]) return (cachedUrl = status.connect[0]);
    } catch { /* asked again below */ }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
  }
  throw new Error(`the sandbox is not running: start it with \`./bin/offsetctl sandbox up\` (status said: ${said})`);
}

export interface CliResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `bin/offsetctl` with the arguments, optional stdin and extra environment. */
export function runCli(args: string[], options: { env?: Record<string, string>; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status, signal) => resolvePromise({ status, signal, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

export function tempDir(prefix = 'offsetctl-ops-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6).toString(36)}`;
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await sleep(everyMs);
  }
}

export interface ConnectorStatus {
  connector: { state: string; trace?: string };
  tasks: Array<{ id: number; state: string; trace?: string }>;
}

export interface OffsetsBody {
  offsets: Array<{ partition: Record<string, unknown>; offset: Record<string, unknown> | null }>;
}

/** A small Kafka Connect REST client for test set-up and assertions (not the code under test). */
export class ConnectFixture {
  readonly url: string;
  readonly dir: string;
  readonly #created: string[] = [];

  constructor(url: string = sandboxUrl()) {
    this.url = url;
    this.dir = tempDir();
  }

  async request(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    const res = await fetch(`${this.url}${path}`, {
      method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : undefined; } catch { /* keep text */ }
    return { status: res.status, body: parsed };
  }

  /** A FileStreamSource reading a new file of `lines` lines into a new topic; waits until its offset covers the file. */
  async createSource(lines = 5, options: { fileName?: string } = {}): Promise<{ name: string; file: string; topic: string }> {
    const name = uniqueName('ops-src');
    const file = join(this.dir, options.fileName ?? `${name}.txt`);
    const topic = `${name}-topic`;
    writeFileSync(file, Array.from({ length: lines }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    const res = await this.request('POST', '/connectors', { name, config: { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', 'tasks.max': '1', file, topic } });
    if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${JSON.stringify(res.body)}`);
    this.#created.push(name);
    await this.waitRunning(name);
    await waitFor(`${name} to commit its offset`, async () => {
      const o = await this.offsets(name);
      return o.offsets.length > 0 && Number((o.offsets[0]?.offset as { position?: number } | null)?.position) > 0;
    });
    return { name, file, topic };
  }

  async status(name: string): Promise<ConnectorStatus> {
    const res = await this.request('GET', `/connectors/${encodeURIComponent(name)}/status`);
    if (res.status !== 200) throw new Error(`status ${name}: ${res.status}`);
    return res.body as ConnectorStatus;
  }

  async offsets(name: string): Promise<OffsetsBody> {
    const res = await this.request('GET', `/connectors/${encodeURIComponent(name)}/offsets`);
    if (res.status !== 200) throw new Error(`offsets ${name}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as OffsetsBody;
  }

  async waitRunning(name: string): Promise<ConnectorStatus> {
    return waitFor(`${name} and its tasks RUNNING`, async () => {
      const s = await this.status(name);
      return s.connector.state === 'RUNNING' && s.tasks.length > 0 && s.tasks.every((t) => t.state === 'RUNNING') ? s : undefined;
    });
  }

  async cleanup(): Promise<void> {
    for (const name of this.#created) await this.request('DELETE', `/connectors/${encodeURIComponent(name)}`).catch(() => undefined);
  }
}

/** Offsets sorted by partition, for equality checks that ignore Connect's ordering. */
export function sortedOffsets(body: OffsetsBody): OffsetsBody['offsets'] {
  return [...body.offsets].sort((a, b) => JSON.stringify(a.partition).localeCompare(JSON.stringify(b.partition)));
}
