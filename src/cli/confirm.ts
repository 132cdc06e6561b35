// The last gate before a change: an operator at a terminal answers y/N; a script must say --yes.
// Without a terminal there is nobody to ask, so silence is a refusal, never a yes. A test's
// scripted answers come through the IO's prompter (io.ts), under the same rules.
import { OpsError } from '../ops/errors.js';
import { currentIO } from './io.js';
import { terminalPrompter } from './terminal-prompter.js';

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
  const io = currentIO();
  // A test's scripted answers (the IO's prompter), else the terminal's; streams given here win.
  const given = options.stdin !== undefined || options.stdout !== undefined || options.tty !== undefined;
  const prompter = (given ? undefined : io.prompter) ?? terminalPrompter(options.stdin ?? io.stdin, options.stdout ?? io.stderr, options.tty);
  if (!prompter.interactive()) {
    throw new OpsError('E_NOT_CONFIRMED', 'not confirmed: no terminal to ask on; pass --yes to confirm in a script (nothing was changed)');
  }
  const normalized = (await prompter.ask(`${question} [y/N] `)).trim().toLowerCase();
  if (normalized !== 'y' && normalized !== 'yes') throw new OpsError('E_NOT_CONFIRMED', 'not confirmed: the operator did not answer yes; nothing was changed');
}
