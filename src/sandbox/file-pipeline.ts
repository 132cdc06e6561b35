// A FileStreamSource -> topic -> FileStreamSink pipeline on the sandbox: data that really flows,
// for the demo and the integration tests. Each pipeline has its own names, topic and files.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConnectRest } from './connect-rest.js';

export interface FilePipeline {
  source: string;
  sink: string;
  topic: string;
  inputFile: string;
  outputFile: string;
  lines: string[];
  /** Deletes both connectors (the files stay for inspection). */
  remove(): Promise<void>;
}

export interface FilePipelineOptions {
  /** Folder for the input and output files (created). */
  dir: string;
  /** Name prefix, e.g. `it-rewind`; a random suffix keeps runs apart. */
  prefix: string;
  lines: string[];
  /** Create the sink too (default true). */
  withSink?: boolean;
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

export async function createFilePipeline(rest: ConnectRest, options: FilePipelineOptions): Promise<FilePipeline> {
  mkdirSync(options.dir, { recursive: true });
  const base = uniqueName(options.prefix);
  const inputFile = join(options.dir, `${base}.in.txt`);
  const outputFile = join(options.dir, `${base}.out.txt`);
  writeFileSync(inputFile, options.lines.map((l) => `${l}\n`).join(''));
  const pipeline: FilePipeline = {
    source: `${base}-source`,
    sink: `${base}-sink`,
    topic: `${base}-topic`,
    inputFile,
    outputFile,
    lines: options.lines,
    remove: async () => {
      await rest.deleteConnector(pipeline.source);
      if (options.withSink !== false) await rest.deleteConnector(pipeline.sink);
    },
  };
  await rest.createConnector(pipeline.source, {
    'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector',
    'tasks.max': '1',
    file: inputFile,
    topic: pipeline.topic,
  });
  if (options.withSink !== false) {
    await rest.createConnector(pipeline.sink, {
      'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector',
      'tasks.max': '1',
      file: outputFile,
      topics: pipeline.topic,
    });
  }
  return pipeline;
}

/** The file's lines (without the trailing empty one); [] when it does not exist yet. */
export function readLines(file: string): string[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

/** Waits until `file` has at least `count` lines; returns them. */
export async function waitForLines(file: string, count: number, timeoutMs = 60_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = readLines(file);
    if (lines.length >= count) return lines;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${count} lines in ${file}; it has ${lines.length}: ${JSON.stringify(lines.slice(-5))}`);
    await sleep(250);
  }
}

/**
 * Waits until the source connector's committed offset covers the whole input file, so a GET of
 * its offsets is stable (offsets are flushed every second on the sandbox).
 */
export async function waitForSourceCaughtUp(rest: ConnectRest, pipeline: FilePipeline, timeoutMs = 60_000): Promise<void> {
  const size = statSync(pipeline.inputFile).size;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { offsets } = await rest.offsets(pipeline.source);
    if (offsets.some((o) => o.offset?.['position'] === size)) return;
    if (Date.now() >= deadline) throw new Error(`source ${pipeline.source} did not commit position ${size} within ${timeoutMs} ms: ${JSON.stringify(offsets)}`);
    await sleep(250);
  }
}

/** Waits until the sink's consumer group committed `offset` on partition 0 of the pipeline's topic. */
export async function waitForSinkCommitted(rest: ConnectRest, pipeline: FilePipeline, offset: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { offsets } = await rest.offsets(pipeline.sink);
    if (offsets.some((o) => o.partition['kafka_topic'] === pipeline.topic && o.offset?.['kafka_offset'] === offset)) return;
    if (Date.now() >= deadline) throw new Error(`sink ${pipeline.sink} did not commit offset ${offset} within ${timeoutMs} ms: ${JSON.stringify(offsets)}`);
    await sleep(250);
  }
}
