// One audit entry's detail column: the diff's counts for a change, else its message, on one line.
import type { AuditRecord } from '../../store/index.js';

export function auditDetail(e: AuditRecord): string {
  const parts: string[] = [];
  if (e.counts) {
    const c = e.counts;
    parts.push(['changed', 'added', 'removed', 'unchanged'].filter((k) => (c[k] ?? 0) > 0).map((k) => `${c[k]} ${k}`).join(', ') || 'no partitions');
  }
  if (e.snapshotId) parts.push(`snapshot ${e.snapshotId}`);
  if (e.message && e.outcome !== 'started') {
    // One line per entry: a message of many lines (a refusal listing reasons) would break the table.
    const line = e.message.replace(/\s*\n\s*/g, ' ').trim();
    parts.push(line.length > 120 ? `${line.slice(0, 117)}...` : line);
  }
  return parts.join('; ');
}
