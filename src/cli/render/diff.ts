// The diff of a plan as text: one line per partition (`~ partition: before → after`) and a summary.
import { offsetKey, type DiffKind, type OffsetDiff } from '../../ops/offsets/index.js';

export interface RenderDiffOptions {
  /** ANSI colours (the CLI passes true only for a terminal). */
  color?: boolean;
  /** List unchanged partitions too; by default only their count is shown. */
  showUnchanged?: boolean;
}

const MARK: Record<DiffKind, string> = { unchanged: '=', changed: '~', added: '+', removed: '-' };
const COLOR: Record<DiffKind, string> = { unchanged: '\x1b[2m', changed: '\x1b[33m', added: '\x1b[32m', removed: '\x1b[31m' };
const RESET = '\x1b[0m';

export function renderDiff(diff: OffsetDiff, options: RenderDiffOptions = {}): string {
  return [...diffLines(diff, options)].join('\n');
}

/**
 * The same lines one at a time, for output that is written as it is made: a diff of a million
 * partitions never exists as one string, and a reader that went away stops it (say.ts, writeLines).
 */
export function* diffLines(diff: OffsetDiff, options: RenderDiffOptions = {}): Generator<string> {
  for (const e of diff.entries) {
    if (e.kind === 'unchanged' && !options.showUnchanged) continue;
    const before = e.before === null ? '(none)' : offsetKey(e.before);
    const change = e.kind === 'unchanged' ? before : `${before} → ${e.after === null ? '(removed)' : offsetKey(e.after)}`;
    const line = `${MARK[e.kind]} ${e.key}: ${change}`;
    yield options.color ? COLOR[e.kind] + line + RESET : line;
  }
  const { changed, added, removed, unchanged } = diff.counts;
  yield changed + added + removed === 0
    ? `No change: the target equals the current offsets (${unchanged} partition${unchanged === 1 ? '' : 's'}).`
    : `${changed} changed, ${added} added, ${removed} removed, ${unchanged} unchanged.`;
}
