// The size limit of an offsets input, checked where the CLI reads it (src/ops/offsets/limits.ts holds
// the limits themselves): a file is refused by its size before it is read, and stdin is cut off
// as soon as it goes past the limit instead of being held in memory whole.
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { OpsError } from '../ops/errors.js';
import { LIMIT_SOURCES, type OffsetLimits } from '../ops/offsets/index.js';
import { currentIO } from './io.js';

/** Refuses an offsets file larger than the limit before reading it (stdin is checked once read). */
export async function checkInputSize(fileOrDash: string, limits: OffsetLimits, readBytes?: number): Promise<void> {
  let bytes = readBytes;
  if (bytes === undefined && fileOrDash !== '-') bytes = await stat(fileOrDash).then((s) => (s.isFile() ? s.size : undefined), () => undefined);
  if (bytes !== undefined && bytes > limits.maxInputBytes) {
    throw new OpsError('E_PREFLIGHT', `${fileOrDash === '-' ? '<stdin>' : fileOrDash}: the offsets input ${fileOrDash === '-' ? `went past ${bytes.toLocaleString('en-US')} bytes (reading stopped there), above` : `is ${bytes.toLocaleString('en-US')} bytes, above`} the limit of ${limits.maxInputBytes.toLocaleString('en-US')} bytes; nothing was changed. Split the change into several files, or raise the limit with ${LIMIT_SOURCES.maxInputBytes.flag} <bytes> (env ${LIMIT_SOURCES.maxInputBytes.env}) if the workers have the memory for it`, { field: 'offsets' });
  }
}

/**
 * stdin that stops with the size refusal as soon as more than the limit has arrived, so a huge
 * pipe is never held in memory whole. Read lazily: nothing is consumed unless `-` was given.
 */
export function boundedStdin(limits: OffsetLimits, stdin: NodeJS.ReadableStream = currentIO().stdin): NodeJS.ReadableStream {
  async function* bounded(): AsyncGenerator<Buffer> {
    let bytes = 0;
    for await (const chunk of stdin) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      bytes += buffer.length;
      if (bytes > limits.maxInputBytes) await checkInputSize('-', limits, bytes);
      yield buffer;
    }
  }
  return Readable.from(bounded());
}

