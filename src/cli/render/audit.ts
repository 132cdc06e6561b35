// One audit entry's detail column: the diff's counts for a change, else its message.
import type { AuditRecord } from '../../store/index.js';

export function auditDetail(e: AuditRecord): string {
  const parts: string[] = [];
  if (e.counts) {
    const c = e.counts;
    parts.push(['changed', 'added', 'removed', 'unchanged'].filter((k) => (c[k] ?? 0) > 0).map((k) => `${c[k]} ${k}`).join(', ') || 'no partitions');
  }
  if (e.snapshotId) parts.push(`snapshot ${e.snapshotId}`);
  if (e.message && e.outcome !== 'started') parts.push(e.message.length > 120 ? `${e.message.slice(0, 117)}...` : e.message);
  return parts.join('; ');
}
