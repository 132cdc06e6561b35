// Where the operator commands write: everything shown to a person goes through here, and
// registered secrets are masked on the way out (the journal and snapshots keep the real values,
// which resume and rollback replay).
import { redactText } from '../../http/redact.js';
import { currentIO, type OutStream } from '../io.js';

export function stdout(text: string): boolean {
  return currentIO().stdout.write(redactText(text));
}

export function stderr(text: string): boolean {
  return currentIO().stderr.write(redactText(text));
}

/** A step recorded, but its audit entry not written: said, never hidden. */
export function warnUnaudited(step: { auditWarning?: string }): void {
  if (step.auditWarning) stderr(`warning: ${step.auditWarning}\n`);
}

/** About 64 KB of text per write. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Long output (the diff of a million partitions) written as it is made, in chunks of about
 * 64 KB, each masked like any other line. Between chunks the event loop runs: a reader that went
 * away (`… --dry-run | head -1`) ends the command at once through main's closed-pipe handler,
 * instead of after every line was built and written, and a slow reader holds back one chunk, not
 * the whole text. A chunk ends at a line's end, so a secret within one line is masked whole.
 */
export async function writeLines(to: 'stdout' | 'stderr', lines: Iterable<string>): Promise<void> {
  const stream = to === 'stdout' ? currentIO().stdout : currentIO().stderr;
  let chunk = '';
  for (const line of lines) {
    chunk += `${line}\n`;
    if (chunk.length >= CHUNK_CHARS) {
      await writeChunk(stream, chunk);
      chunk = '';
    }
  }
  if (chunk !== '') await writeChunk(stream, chunk);
}

/** A long text (a JSON outcome) in the same chunks, cut at line ends. */
export async function writeText(to: 'stdout' | 'stderr', text: string): Promise<void> {
  if (text.length < CHUNK_CHARS) {
    await writeChunk(to === 'stdout' ? currentIO().stdout : currentIO().stderr, text);
    return;
  }
  await writeLines(to, piecesOf(text));
}

function* piecesOf(text: string): Generator<string> {
  let from = 0;
  while (from < text.length) {
    let end = text.indexOf('\n', Math.min(from + CHUNK_CHARS, text.length - 1));
    if (end < 0) end = text.length;
    yield text.slice(from, end);
    from = end + 1;
  }
}

async function writeChunk(stream: OutStream, text: string): Promise<void> {
  const more = stream.write(redactText(text));
  await new Promise<void>((resolve) => {
    if (more) setImmediate(resolve);
    else {
      // Whichever comes first: the reader took the chunk, or it is gone (main's handler exits).
      const done = (): void => {
        stream.off('drain', done);
        stream.off('close', done);
        resolve();
      };
      stream.once('drain', done);
      stream.once('close', done);
    }
  });
}
