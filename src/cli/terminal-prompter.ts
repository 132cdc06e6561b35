// The operator at a terminal: the standard prompter of the IO (io.ts), which a test replaces with
// scripted answers. A question is a line typed on stdin, asked on stderr (stdout stays clean for
// --output json); a secret is typed without echo (raw mode) and is not shown as it is typed.
import { createInterface } from 'node:readline';
import type { InStream, OutStream, Prompter } from './io.js';

/** Asks on these streams; `interactive` only when stdin is a terminal (or `tty` says so, for tests). */
export function terminalPrompter(stdin: InStream, out: OutStream | NodeJS.WritableStream, tty?: boolean): Prompter {
  return {
    interactive: () => tty ?? stdin.isTTY === true,
    ask: (question) => askLine(question, stdin, out),
    secret: (question) => readHidden(question, stdin, out),
  };
}

async function askLine(question: string, stdin: InStream, out: NodeJS.WritableStream): Promise<string> {
  const rl = createInterface({ input: stdin, output: out, terminal: false });
  // An input that ends before a line is typed (Ctrl-D) counts as no answer.
  const answer = await new Promise<string>((resolve) => {
    rl.once('line', resolve);
    rl.once('close', () => resolve(''));
    rl.setPrompt(question);
    rl.prompt();
  });
  rl.close();
  return answer;
}

/** One line typed without echo (Enter ends it, Ctrl-C refuses). */
async function readHidden(question: string, stdin: InStream, out: NodeJS.WritableStream): Promise<string> {
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
    return value;
  } finally {
    stdin.setRawMode?.(false);
    stdin.pause();
  }
}
