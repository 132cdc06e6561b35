// The text of a rewind to a position (plan.positions): the notes on how the offsets were looked
// up, one table row per partition (committed, target, log start/end, replayed/skipped records,
// never committed), and a summary line. The same data reaches --output json as `positions`.
import type { PositionNote, PositionPlan, PositionTargets } from '../../ops/index.js';
import { renderTable, type Align } from './table.js';

const NOTE_TEXT: Record<PositionNote, string> = {
  'never-committed': 'never committed',
  'clamped-to-log-start': 'clamped to log start',
  'clamped-to-log-end': 'clamped to log end',
  'no-record-after-time': 'no record at or after the time: end',
  unchanged: 'unchanged',
};

/** Table cells of a position plan, one row per partition. */
export function positionTable(plan: PositionPlan): { header: string[]; rows: string[][]; align: Align[]; summary: string } {
  const header = ['TOPIC', 'PARTITION', 'COMMITTED', 'TARGET', 'LOG START', 'LOG END', 'REPLAY', 'SKIP', 'NOTE'];
  const rows = plan.rows.map((r) => [
    r.topic, String(r.partition), r.committed === null ? '(none)' : String(r.committed), r.target === null ? '(left as is)' : String(r.target),
    String(r.logStart), String(r.logEnd), String(r.replay), String(r.skip), r.notes.map((n) => NOTE_TEXT[n]).join(', '),
  ]);
  const t = plan.totals;
  const summary = `${plan.position}: ${t.toWrite} of ${t.partitions} partition(s) to write, ${t.replay} record(s) to replay, ${t.skip} to skip${t.neverCommitted ? `, ${t.neverCommitted} never committed` : ''}.`;
  return { header, rows, align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'], summary };
}

/** Notes, table and summary as printed above the diff. */
export function renderPositions(targets: PositionTargets): string {
  const lines = [...targets.notes];
  if (targets.plan.rows.length > 0) {
    const t = positionTable(targets.plan);
    lines.push(renderTable(t.header, t.rows, t.align), t.summary);
  }
  return lines.join('\n');
}
