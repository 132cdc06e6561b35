// A rewind to a position (plan.positions) as a person reads it: one table row per partition
// (committed, target, log start/end, replayed/skipped records, never committed) and a summary
// line. The CLI prints the cells as a text table, the console as an HTML table.
import type { PositionNote, PositionPlan } from '../ops/index.js';

/** How a column is aligned (numbers right). */
export type Align = 'left' | 'right';

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
    r.topic,
    String(r.partition),
    r.committed === null ? '(none)' : String(r.committed),
    r.target === null ? '(left as is)' : String(r.target),
    String(r.logStart),
    String(r.logEnd),
    String(r.replay),
    String(r.skip),
    r.notes.map((n) => NOTE_TEXT[n]).join(', '),
  ]);
  const t = plan.totals;
  // A partition already at its target is not one to write: `--to-latest` on a sink that has read
  // everything says "0 of 3", not "3 of 3" and then "nothing to change".
  const moving = plan.rows.filter((r) => r.target !== null && r.target !== r.committed).length;
  const summary = `${plan.position}: ${moving} of ${t.partitions} partition(s) to write, ${t.replay} record(s) to replay, ${t.skip} to skip${t.neverCommitted ? `, ${t.neverCommitted} never committed` : ''}.`;
  return { header, rows, align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'], summary };
}
