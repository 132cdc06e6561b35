// Rows of the audit, batch and run-step tables into records, the same for both backends. Each backend
// decodes only what its driver hands back differently: SQLite gives JSON columns as text and times
// as ISO text; node-postgres gives jsonb already parsed and timestamptz as a Date.
import type { Actor, AuditRecord, BatchRecord, NewAuditEntry, NewPolicy, PolicyRecord, StepRecord } from './types.js';

type Row = Record<string, unknown>;

/** An audit row; `decoded` holds the columns whose type differs between the backends. */
export function auditFromRow(r: Row, decoded: { at: string; actor: unknown; counts: unknown }): AuditRecord {
  const optional = (column: string, field: keyof NewAuditEntry): Record<string, string> => (r[column] != null ? { [field]: String(r[column]) } : {});
  return {
    id: String(r.id), at: decoded.at, actor: decoded.actor as AuditRecord['actor'],
    action: String(r.action), outcome: String(r.outcome) as AuditRecord['outcome'],
    ...optional('context', 'context'), ...optional('cluster_url', 'clusterUrl'), ...optional('cluster_key', 'clusterKey'),
    ...optional('connector', 'connector'), ...optional('run_id', 'runId'), ...optional('snapshot_id', 'snapshotId'), ...optional('message', 'message'),
    ...(r.diff != null ? { diff: JSON.parse(String(r.diff)) as AuditRecord['diff'] } : {}),
    ...(decoded.counts != null ? { counts: decoded.counts as AuditRecord['counts'] } : {}),
  };
}

/** A batch row (its members are JSON text in both backends). */
export function batchFromRow(r: Row, createdAt: string): BatchRecord {
  return {
    id: String(r.id), clusterUrl: String(r.cluster_url), clusterKey: String(r.cluster_key), operation: String(r.operation) as BatchRecord['operation'],
    resumeAfter: String(r.resume_after), members: JSON.parse(String(r.members)) as BatchRecord['members'], createdAt,
  };
}

/** A run_steps row (outputs and error are JSON text, finished_at ISO text, in both backends). */
export function stepFromRow(r: Row): StepRecord {
  return {
    seq: Number(r.seq), workflowId: String(r.workflow_id), stepId: String(r.step_id),
    status: r.status === 'passed' ? 'passed' : 'failed',
    outputs: JSON.parse(String(r.outputs)) as Record<string, unknown>,
    ...(r.error ? { error: JSON.parse(String(r.error)) as StepRecord['error'] } : {}),
    finishedAt: String(r.finished_at),
  };
}

/** A policy's scope within its cluster: the connector pattern and the actions, as one unique text. */
export function policyScope(p: Pick<NewPolicy, 'connectors' | 'actions'>): string {
  return `${p.connectors ?? ''}\u0001${[...(p.actions ?? [])].sort().join(',')}`;
}

/** A policies row; `decoded` holds the columns whose type differs between the backends. */
export function policyFromRow(r: Row, decoded: { setAt: string; setBy: unknown; actions: unknown }): PolicyRecord {
  return {
    id: String(r.id), clusterKey: String(r.cluster_key), requireApproval: r.require_approval === true || r.require_approval === 1,
    ...(r.context != null ? { context: String(r.context) } : {}), ...(r.cluster_url != null ? { clusterUrl: String(r.cluster_url) } : {}),
    ...(r.connectors != null ? { connectors: String(r.connectors) } : {}), ...(decoded.actions != null ? { actions: decoded.actions as string[] } : {}),
    setBy: decoded.setBy as Actor, setAt: decoded.setAt,
  };
}
