// What every figure module hands back to the runner: rows for the table and the raw samples for
// bench/results.json. A row that could not be measured says why instead of carrying a number.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Verdict = 'pass' | 'miss' | 'skipped' | 'error' | 'info';

export interface FigureRow {
  /** Stable key, e.g. `1.engine-overhead`. */
  id: string;
  figure: string;
  /** Median of the measured side, in `unit`; null when skipped. */
  measured: number | null;
  /** Median of the reference side, in `unit`; null when there is no reference. */
  reference: number | null;
  unit: string;
  /** What the reference is, e.g. `1,000 raw undici requests`. */
  referenceLabel: string;
  ratio: number | null;
  target: string;
  verdict: Verdict;
  /** One line: the spread, the reason for a skip, the cause of an error. */
  note?: string;
}

export interface FigureResult {
  rows: FigureRow[];
  /** Raw samples and anything else a reader needs to re-check the rows. */
  raw: Record<string, unknown>;
}

export interface BenchOptions {
  /** Start and stop the sandbox for the rewind figure when it is not running. */
  withSandbox: boolean;
  /** Fewer rounds: a smoke run of the harness, not for publishing. */
  quick: boolean;
  /** Write CPU profiles and an import-cost table even when targets are met. */
  profile: boolean;
  log: (line: string) => void;
}

/** The repository root: the bench always runs compiled, from dist/bench/. */
export const repoRoot: string = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const fixtures: string = resolve(repoRoot, 'bench', 'fixtures');
// OFFSETCTL_BENCH_CLI measures another build (e.g. an older checkout) with this same harness,
// so before/after figures come from one harness on one machine.
export const cli: string = process.env.OFFSETCTL_BENCH_CLI ? resolve(process.env.OFFSETCTL_BENCH_CLI) : resolve(repoRoot, 'bin', 'offsetctl');

export function skippedRow(id: string, figure: string, target: string, why: string): FigureRow {
  return { id, figure, measured: null, reference: null, unit: '', referenceLabel: '', ratio: null, target, verdict: 'skipped', note: `skipped: ${why}` };
}

export function errorRow(id: string, figure: string, target: string, err: unknown): FigureRow {
  const message = err instanceof Error ? err.message : String(err);
  return {
    id,
    figure,
    measured: null,
    reference: null,
    unit: '',
    referenceLabel: '',
    ratio: null,
    target,
    verdict: 'error',
    note: `error: ${message.split('\n')[0]}`,
  };
}
