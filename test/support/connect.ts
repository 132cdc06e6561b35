// Kafka Connect helpers for tests: a REST client on a sandbox worker and FileStream pipelines
// in a temp folder with unique names, removed again by the test.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConnectRest, createFilePipeline, type FilePipeline } from '../../src/sandbox/index.js';
import { getSandbox } from './sandbox.js';

export { ConnectRest, type FilePipeline } from '../../src/sandbox/index.js';

/** A REST client on worker `index` of the running sandbox (default the first). */
export async function sandboxRest(index = 0): Promise<ConnectRest> {
  const { connect } = await getSandbox();
  const url = connect[index % connect.length];
  if (!url) throw new Error('the sandbox reports no Connect worker');
  return new ConnectRest(url);
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `offsetctl-${prefix}-`));
}

/** `count` distinct lines: `<prefix> line 1`, `<prefix> line 2`, ... */
export function numberedLines(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_v, i) => `${prefix} line ${i + 1}`);
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
