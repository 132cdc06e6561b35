// Which connectors a batch works on: names given one by one, a regular expression over the
// cluster's connector names (`--selector`), or every connector (`--all`). Everything here is
// decided before the first request that could change anything, so a mistake is a refusal.
import { OpsError } from '../errors.js';

export interface BatchSelection {
  names?: string[];
  selector?: string;
  all?: boolean;
}

/** How many existing names a refusal quotes, so the operator sees what the regex could match. */
const SAMPLE = 8;

/**
 * The connectors selected, in the cluster's name order (names given explicitly keep their order).
 * Refused (E_USAGE / E_PREFLIGHT, exit 2): no way of selecting, more than one way, an invalid
 * regex, a regex that matches nothing, a name the cluster does not have.
 *
 * @example selectConnectors(['a-1', 'a-2', 'b'], { selector: '^a-' }) // ['a-1', 'a-2']
 */
export function selectConnectors(existing: readonly string[], sel: BatchSelection): string[] {
  const re = checkSelection(sel);
  const names = sel.names ?? [];
  const sorted = [...existing].sort();
  if (sel.all) {
    if (sorted.length === 0) throw new OpsError('E_PREFLIGHT', '--all: the cluster has no connectors; nothing was changed', { field: 'all' });
    return sorted;
  }
  if (re !== undefined && sel.selector !== undefined) {
    const matched = sorted.filter((n) => re.test(n));
    if (matched.length === 0) {
      throw new OpsError('E_PREFLIGHT', `--selector ${JSON.stringify(sel.selector)} matches no connector on this cluster; nothing was changed. ${existingText(sorted)}`, { field: 'selector' });
    }
    return matched;
  }
  const have = new Set(existing);
  const missing = names.filter((n) => !have.has(n));
  if (missing.length > 0) {
    throw new OpsError('E_CONNECTOR_NOT_FOUND', `no connector ${missing.join(', ')} on this cluster; nothing was changed. ${existingText(sorted)}`, { field: 'connector' });
  }
  return names;
}

/**
 * The checks that need no cluster: exactly one way of selecting, a valid regex, no name twice.
 * Returns the compiled selector, if any.
 */
export function checkSelection(sel: BatchSelection): RegExp | undefined {
  const names = sel.names ?? [];
  const ways = [names.length > 0, sel.selector !== undefined, sel.all === true].filter(Boolean).length;
  if (ways === 0) throw new OpsError('E_USAGE', 'no connector given: name one or more connectors, or pass --selector <regex> or --all', { field: 'connector' });
  if (ways > 1) throw new OpsError('E_USAGE', 'connector names, --selector and --all exclude each other: use exactly one of them', { field: 'selector' });
  const duplicates = names.filter((n, i) => names.indexOf(n) !== i);
  if (duplicates.length > 0) throw new OpsError('E_USAGE', `connector ${duplicates[0]} is named more than once; name each connector once`, { field: 'connector' });
  if (sel.selector === undefined) return undefined;
  try {
    return new RegExp(sel.selector);
  } catch (err) {
    throw new OpsError('E_USAGE', `--selector ${JSON.stringify(sel.selector)} is not a valid regular expression (${(err as Error).message}); fix it and run again`, { field: 'selector' });
  }
}

function existingText(sorted: readonly string[]): string {
  if (sorted.length === 0) return 'The cluster has no connectors.';
  const shown = sorted.slice(0, SAMPLE).join(', ');
  return `Existing connectors (${sorted.length}): ${shown}${sorted.length > SAMPLE ? ', …' : ''}`;
}
