// Figure 5 placeholder (replaced below once the ops command exists).
import type { BenchOptions, FigureResult } from './figure.js';
import { skippedRow } from './figure.js';

export async function measureRewind(_options: BenchOptions): Promise<FigureResult> {
  return { rows: [skippedRow('5.rewind', 'rewind on the sandbox', 'own share < 5%', 'not written yet')], raw: {} };
}
