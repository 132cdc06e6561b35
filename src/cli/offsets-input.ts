// The CLI face reads an offsets file (or stdin) for rewind and hands ops the data; the text is
// read by ops' offsets JSON reader (errors point at the file, line and column).
// A relative file is the command's working folder's (the IO's cwd, io.ts).
import { readFile } from 'node:fs/promises';
import { OpsError } from '../ops/errors.js';
import { parseOffsetsJson } from '../ops/offsets/index.js';
import { currentIO, fromCwd } from './io.js';

/**
 * Reads and parses the JSON offsets input; `-` reads stdin. Shape is checked separately
 * (validateOffsetsShape). Throws `E_OFFSETS_INVALID` naming the file and position.
 */
export async function readOffsetsInput(fileOrDash: string, stdin: NodeJS.ReadableStream = currentIO().stdin): Promise<unknown> {
  const name = fileOrDash === '-' ? '<stdin>' : fileOrDash;
  let text: string;
  try {
    text = fileOrDash === '-' ? await readStream(stdin) : await readFile(fromCwd(fileOrDash), 'utf8');
  } catch (err) {
    // A refusal of the input as such (bounded stdin past its size limit) stands as it is, with its
    // own code, the same as for a file of that size: it is not a file that cannot be read.
    if (err instanceof OpsError) throw err;
    const code = (err as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new OpsError('E_OFFSETS_INVALID', `${name}: cannot read the offsets file (${why}); pass --offsets <file> with a JSON file, or - for stdin`, { field: 'offsets', cause: err });
  }
  return parseOffsetsJson(text, name);
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
