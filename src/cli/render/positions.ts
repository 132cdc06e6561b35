// The text of a rewind to a position (plan.positions): the notes on how the offsets were looked
// up, then the table and summary line of src/present (the console shows the same cells). The
// same data reaches --output json as `positions`.
import type { PositionTargets } from '../../ops/index.js';
import { positionTable } from '../../present/index.js';
import { renderTable } from './table.js';

/** Notes, table and summary as printed above the diff. */
export function renderPositions(targets: PositionTargets): string {
  const lines = [...targets.notes];
  if (targets.plan.rows.length > 0) {
    const t = positionTable(targets.plan);
    lines.push(renderTable(t.header, t.rows, t.align), t.summary);
  }
  return lines.join('\n');
}
