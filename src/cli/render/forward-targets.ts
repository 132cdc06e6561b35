// Targets beyond a partition's end (Plan.forwardTargets): the lines shown under the diff, and
// the extra yes they need — --allow-forward, or an answer at a terminal; --yes alone is not enough.
import type { ForwardTarget } from '../../ops/positions/index.js';
import { OpsError } from '../../ops/errors.js';
import { confirm } from '../confirm.js';
import { currentIO } from '../io.js';

/** Lines for the diff: one per target beyond the end, with what Connect will do about it. */
export function describeForwardTargets(forward: ForwardTarget[], max = 20): string[] {
  if (forward.length === 0) return [];
  const lines = [`! ${forward.length} target(s) lie beyond the end of their partition:`];
  for (const f of forward.slice(0, max)) lines.push(`!   ${JSON.stringify(f.partition)}: ${f.field} ${f.target}, but ${f.endText}`);
  if (forward.length > max) lines.push(`!   ... and ${forward.length - max} more`);
  lines.push('!   A sink then finds its offset out of range and resets to the earliest record (it replays the partition); a source skips what it has not read.');
  return lines;
}

/** The extra yes such targets need: --allow-forward, or an answer at a terminal; --yes alone is not enough. */
export async function confirmForwardTargets(forward: ForwardTarget[], flags: { allowForward?: boolean; yes?: boolean }): Promise<void> {
  if (forward.length === 0 || flags.allowForward) return;
  const first = forward[0]!;
  const summary = `${forward.length} target(s) lie beyond the end of their partition (offsets[${first.index}]: ${first.field} ${first.target}, but ${first.endText})`;
  if (flags.yes || currentIO().stdin.isTTY !== true) {
    throw new OpsError('E_PREFLIGHT', `${summary}; pass --allow-forward to write them anyway; nothing was changed`, { field: 'offsets' });
  }
  await confirm(`${summary}. Write them anyway?`);
}
