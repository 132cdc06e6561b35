// A reviewed change as a person reads it, in both faces: who planned it and when (the line above a
// saved plan or a change request), and the table of starting offsets that moved since planning.
import type { CheckedConnector, SavedPlan } from '../ops/index.js';
import type { Align } from './positions.js';

/** `rewind of orders-sink, planned by alice@laptop at 2026-12-01T09:00:00Z (2 h ago); digest sha256:ab12…` */
export function plannedLine(saved: Pick<SavedPlan, 'operation' | 'plans' | 'plannedBy' | 'plannedAt' | 'digest'>, ageText: string): string {
  const what =
    saved.plans.length === 1
      ? `${saved.operation} of ${saved.plans[0]?.connector}`
      : `${saved.operation} of ${saved.plans.length} connectors (${saved.plans.map((p) => p.connector).join(', ')})`;
  const by = saved.plannedBy.dbUser ? `${saved.plannedBy.user} (database user ${saved.plannedBy.dbUser})` : saved.plannedBy.user;
  return `${what}, planned by ${by} at ${saved.plannedAt} (${ageText} ago); digest ${saved.digest}`;
}

/** Cells of the partitions whose starting offset moved since planning (empty rows: nothing moved). */
export function movementTable(connectors: readonly CheckedConnector[]): { header: string[]; rows: string[][]; align: Align[] } {
  const header = ['CONNECTOR', 'PARTITION', 'PLANNED FROM', 'NOW', 'TARGET', 'CHANGES THE PLAN', 'WHY'];
  const rows = connectors.flatMap((c) =>
    c.movement.partitions.map((m) => [
      c.saved.connector,
      partitionText(m.partition),
      offsetText(m.planned),
      offsetText(m.now),
      offsetText(m.target),
      m.changesMeaning ? 'YES' : 'no',
      m.reason,
    ]),
  );
  return { header, rows, align: ['left', 'left', 'right', 'right', 'right', 'left', 'left'] };
}

function partitionText(partition: Record<string, unknown>): string {
  if (typeof partition.kafka_topic === 'string' && partition.kafka_partition !== undefined)
    return `${partition.kafka_topic}:${String(partition.kafka_partition)}`;
  return JSON.stringify(partition);
}

function offsetText(offset: Record<string, unknown> | null): string {
  if (offset === null) return '(none)';
  const values = Object.values(offset);
  return values.length === 1 && (typeof values[0] === 'number' || typeof values[0] === 'string') ? String(values[0]) : JSON.stringify(offset);
}
