// Whether to colour output: only on a terminal, never when NO_COLOR is set to anything
// (https://no-color.org) or --no-color was given; FORCE_COLOR=1 forces it (pagers that keep it).
let disabledByFlag = false;

/** Called by main when --no-color appears anywhere on the command line. */
export function disableColor(): void {
  disabledByFlag = true;
}

export function useColor(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  if (disabledByFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}
