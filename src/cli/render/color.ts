// Whether to colour output: only on a terminal, never when NO_COLOR is set to anything
// (https://no-color.org) or --no-color was given; FORCE_COLOR=1 forces it (pagers that keep it).
import { currentIO } from '../io.js';

/** Called by main when --no-color appears anywhere on the command line (kept on this command's IO). */
export function disableColor(): void {
  currentIO().noColor = true;
}

export function useColor(stream: { isTTY?: boolean } = currentIO().stdout, env: NodeJS.ProcessEnv = currentIO().env): boolean {
  if (currentIO().noColor) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}
