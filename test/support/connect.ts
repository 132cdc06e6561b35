// Kafka Connect for tests: the one client (the sandbox's ConnectRest, also what the demo uses),
// and ConnectFixture on top of it — connectors with unique names and files in a temp folder,
// removed again by the test — plus FileStream pipelines and polling.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConnectRest, createFilePipeline, type ConnectorStatus, type FilePipeline } from '../../src/sandbox/index.js';
import { getSandbox } from './sandbox.js';

export { ConnectRest, type FilePipeline } from '../../src/sandbox/index.js';

/** A REST client on worker `index` of the running sandbox (default the first). */
export async function sandboxRest(index = 0): Promise<ConnectRest> {
  return new ConnectRest(await workerUrl(index));
}

/** A fixture on worker `index` of the running sandbox, with its own temp folder. */
export async function connectFixture(index = 0): Promise<ConnectFixture> {
  return new ConnectFixture(await workerUrl(index));
}

async function workerUrl(index: number): Promise<string> {
  const { connect } = await getSandbox();
  const url = connect[index % connect.length];
  if (!url) throw new Error('the sandbox reports no Connect worker');
  return url;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix.startsWith('offsetctl-') ? prefix : `offsetctl-${prefix}-`));
}

/** `count` distinct lines: `<prefix> line 1`, `<prefix> line 2`, ... */
export function numberedLines(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_v, i) => `${prefix} line ${i + 1}`);
}

/** A connector, topic or file name no other test (or engineer) on the shared sandbox uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6).toString(36)}`;
}

/**
 * Polls `probe` until it returns a value (not undefined/false); its last error ends up in the
 * timeout message. The default bound is for the cluster getting ready (a sink joining its group
 * and committing), not an assertion of speed: on a machine loaded to 15 on 2 cores a sink took
 * over 60 s to commit its first offsets, so the default is 120 s.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 120_000, everyMs = 250): Promise<T> {
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

/**
 * Creates a FileStreamSource -> topic -> FileStreamSink pipeline and waits until both run.
 * Register `pipeline.remove` with `t.after` so the connectors go away even when the test fails.
 */
export async function startPipeline(rest: ConnectRest, prefix: string, lines: string[], options: { withSink?: boolean } = {}): Promise<FilePipeline> {
  const pipeline = await createFilePipeline(rest, { dir: tempDir(prefix), prefix: `it-${prefix}`, lines, ...options });
  await rest.waitForRunning(pipeline.source);
  if (options.withSink !== false) await rest.waitForRunning(pipeline.sink);
  return pipeline;
}

export interface OffsetsBody {
  offsets: Array<{ partition: Record<string, unknown>; offset: Record<string, unknown> | null }>;
}

/** Offsets sorted by partition, for equality checks that ignore Connect's ordering. */
export function sortedOffsets(body: OffsetsBody): OffsetsBody['offsets'] {
  return [...body.offsets].sort((a, b) => JSON.stringify(a.partition).localeCompare(JSON.stringify(b.partition)));
}

/** The Connect fixture of the ops tests: set-up and assertions, never the code under test. */
export class ConnectFixture extends ConnectRest {
  /** A temp folder for this fixture's files. */
  readonly dir: string;
  readonly #created: string[] = [];

  constructor(url: string) {
    super(url);
    this.dir = tempDir('offsetctl-ops-');
  }

  get url(): string {
    return this.baseUrl;
  }

  /** A FileStreamSource reading a new file of `lines` lines into a new topic; waits until its offset covers the file. */
  async createSource(lines = 5, options: { fileName?: string; name?: string } = {}): Promise<{ name: string; file: string; topic: string }> {
    const name = options.name ?? uniqueName('ops-src');
    const file = join(this.dir, options.fileName ?? `${name}.txt`);
    const topic = `${name}-topic`;
    writeFileSync(file, Array.from({ length: lines }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    await this.createConnector(name, { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', 'tasks.max': '1', file, topic });
    this.#created.push(name);
    await this.waitRunning(name);
    // The whole file read and committed: an offset read before that (a test's "before") moves on
    // under the test's feet — seen on Kafka 3.6.2 under load: rolled back to 7, read again at 35.
    const size = Buffer.byteLength(readFileSync(file, 'utf8'));
    await waitFor(`${name} to commit the offset of its whole file (${size} bytes)`, async () => {
      const o = await this.offsets(name);
      return o.offsets.length > 0 && Number((o.offsets[0]?.offset as { position?: number } | null)?.position) >= size;
    });
    return { name, file, topic };
  }

  /**
   * A FileStreamSink writing `topic` into a new file (`<name>.out` in this fixture's folder); waits
   * until it runs. `strings` reads keys and values as plain strings (records a test produced itself).
   */
  async createSink(topic: string, options: { name?: string; strings?: boolean } = {}): Promise<{ name: string; file: string }> {
    const name = options.name ?? uniqueName('ops-sink');
    const file = join(this.dir, `${name}.out`);
    const converters: Record<string, string> = options.strings
      ? { 'key.converter': 'org.apache.kafka.connect.storage.StringConverter', 'value.converter': 'org.apache.kafka.connect.storage.StringConverter' }
      : {};
    await this.createConnector(name, { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', 'tasks.max': '1', file, topics: topic, ...converters });
    this.#created.push(name);
    await this.waitRunning(name);
    return { name, file };
  }

  /** Connector and all its tasks (at least one) RUNNING. */
  async waitRunning(name: string): Promise<ConnectorStatus> {
    return waitFor(`${name} and its tasks RUNNING`, async () => {
      const s = await this.status(name);
      return s.connector.state === 'RUNNING' && s.tasks.length > 0 && s.tasks.every((t) => t.state === 'RUNNING') ? s : undefined;
    });
  }

  /** Deletes every connector this fixture created (register with `after`). */
  async cleanup(): Promise<void> {
    for (const name of this.#created) await this.deleteConnector(name).catch(() => undefined);
  }
}

/**
 * The entries that still hold an offset. Right after a reset Connect may still list a partition
 * with "offset": null (a tombstone it has read but not yet dropped); the reset workflow's
 * confirmCleared step counts both as cleared, and so do the tests.
 */
export function stillSet<T extends { offset?: unknown }>(entries: readonly T[]): T[] {
  return entries.filter((e) => e.offset !== null && e.offset !== undefined);
}
