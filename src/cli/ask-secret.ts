// Asking an operator at a terminal for a secret the command needs (an import's secrets the
// backup left out): the answer is not echoed, and is registered for masking at once. Without a
// terminal nobody is asked: the caller refuses and names the flag that gives the value.
import { registerSecret } from '../http/redact.js';
import { currentIO, type InStream, type OutStream } from './io.js';

export function canAsk(stdin: InStream = currentIO().stdin): boolean {
  return stdin.isTTY === true && typeof stdin.setRawMode === 'function';
}

/** One line typed without echo (Enter ends it, Ctrl-C refuses); undefined for an empty answer. */
export async function askSecret(question: string, stdin: InStream = currentIO().stdin, out: OutStream = currentIO().stderr): Promise<string | undefined> {
  out.write(question);
  stdin.setRawMode?.(true);
  stdin.resume();
  try {
    const value = await new Promise<string>((resolve, reject) => {
      let typed = '';
      const onData = (chunk: Buffer): void => {
        for (const ch of chunk.toString('utf8')) {
          if (ch === '\r' || ch === '\n') {
            stdin.removeListener('data', onData);
            return resolve(typed);
          }
          if (ch === '\u0003') {
            stdin.removeListener('data', onData);
            return reject(Object.assign(new Error('not confirmed: interrupted while asked for a secret; nothing was changed'), { code: 'E_NOT_CONFIRMED' }));
          }
          if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
          else typed += ch;
        }
      };
      stdin.on('data', onData);
    });
    out.write('\n');
    if (value === '') return undefined;
    registerSecret(value);
    return value;
  } finally {
    stdin.setRawMode?.(false);
    stdin.pause();
  }
}
