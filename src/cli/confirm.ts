// The last gate before a change: an operator at a terminal answers y/N; a script must say --yes.
// Without a terminal there is nobody to ask, so silence is a refusal, never a yes.
import { createInterface } from 'node:readline';
import { OpsError } from '../ops/errors.js';
import { currentIO } from './io.js';

export interface ConfirmOptions {
  /** --yes: proceed without asking. */
  yes?: boolean;
  /** Where the answer comes from (default currentIO().stdin); asked only when it is a TTY. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Where the question goes (default currentIO().stderr, so stdout stays clean for --output json). */
  stdout?: NodeJS.WritableStream;
  /** Override TTY detection (tests). */
  tty?: boolean;
}

/**
 * Resolves when the change may go ahead; throws `E_NOT_CONFIRMED` otherwise.
 *
 * @example await confirm('Rewind my-sink to these offsets?', { yes: opts.yes })
 */
export async function confirm(question: string, options: ConfirmOptions = {}): Promise<void> {
  if (options.yes) return;
  const stdin = options.stdin ?? currentIO().stdin;
  const tty = options.tty ?? stdin.isTTY === true;
  if (!tty) {
    throw new OpsError('E_NOT_CONFIRMED', 'not confirmed: no terminal to ask on; pass --yes to confirm in a script (nothing was changed)');
  }
  const rl = createInterface({ input: stdin, output: options.stdout ?? currentIO().stderr, terminal: false });
  // An input that ends before a line is typed (Ctrl-D) counts as "no".
  const answer = await new Promise<string>((resolve) => {
    rl.once('line', resolve);
    rl.once('close', () => resolve(''));
    rl.setPrompt(`${question} [y/N] `);
    rl.prompt();
  });
  rl.close();
  const normalized = answer.trim().toLowerCase();
  if (normalized !== 'y' && normalized !== 'yes') throw new OpsError('E_NOT_CONFIRMED', 'not confirmed: the operator did not answer yes; nothing was changed');
}
