// Asking an operator for a secret the command needs (an import's secrets the backup left out):
// the answer is not echoed, and is registered for masking at once. Without a terminal nobody is
// asked: the caller refuses and names the flag that gives the value. The IO's prompter answers
// when a test hands one in (io.ts); else the terminal (terminal-prompter.ts).
import { registerSecret } from '../http/redact.js';
import { currentIO, type Prompter } from './io.js';
import { terminalPrompter } from './terminal-prompter.js';

function prompter(): Prompter {
  const io = currentIO();
  return io.prompter ?? terminalPrompter(io.stdin, io.stderr);
}

/** Whether a secret can be asked: the IO's prompter says so, or stdin is a terminal that can hide typing. */
export function canAsk(): boolean {
  const io = currentIO();
  return io.prompter ? io.prompter.interactive() : io.stdin.isTTY === true && typeof io.stdin.setRawMode === 'function';
}

/** One line typed without echo (Enter ends it, Ctrl-C refuses); undefined for an empty answer. */
export async function askSecret(question: string): Promise<string | undefined> {
  const value = await prompter().secret(question);
  if (value === '') return undefined;
  registerSecret(value);
  return value;
}
