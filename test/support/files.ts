// File helpers for tests: what a FileStreamSink wrote, and waiting for it.
import { setTimeout as sleep } from 'node:timers/promises';
import { readLines } from '../../src/sandbox/index.js';

export { readLines, waitForLines } from '../../src/sandbox/index.js';

/**
 * Waits `quietMs` and returns the lines then: used after the expected lines arrived, to show
 * that no extra line follows (exactly N re-delivered, not at least N).
 */
export async function linesAfterQuiet(file: string, quietMs = 3000): Promise<string[]> {
  await sleep(quietMs);
  return readLines(file);
}
