// The evidence of one run, for an auditor checking a change offline (`offsetctl runs show <id>
// --evidence`): what was planned and its digest, the offsets before (the snapshot) and after
// (the read-back) as digests, who approved it, whose process held the lock, and the run's audit
// entries with their place in the audit's hash chain, and whether that chain verifies. Digests
// are SHA-256 over canonical JSON (keys sorted), so they can be recomputed from `snapshots show`
// and `runs show -o json` with any tool.
import { createHash } from 'node:crypto';
import { canonicalJson, verifyStoreAudit, type Actor, type AuditChainRow, type AuditChainReport, type Store } from '../../store/index.js';

export interface RunEvidence {
  run: {
    id: string; operation: string; connector: string; clusterUrl: string; clusterKey: string; status: string;
    startedAt: string; finishedAt?: string; connectorState?: string; message?: string;
    startedBy: Actor; resumedBy?: Actor; takenOverFrom?: Actor;
  };
  /** What the run was asked to do: its inputs (targets) and their digest; a reviewed plan's own digest and request. */
  plan: { inputsDigest: string; planDigest?: string; requestId?: string; batchId?: string };
  /** The offsets before (the snapshot taken before the change) and after (read back by the run). */
  offsets: {
    before?: { snapshotId: string; takenAt: string; partitions: number; digest: string };
    after?: { step: string; partitions: number; digest: string };
  };
  /** The change request's history (requested, approved, applied…) with each actor, for a reviewed change. */
  approvals: Array<{ at: string; action: string; actor: Actor; reason?: string }>;
  /** The process that held the connector's lock for the run (the last to take it over). */
  lockHolder: { pid: number; hostname: string; actor: Actor };
  /** The run's audit entries in chain order, each with its digest and its predecessor's. */
  audit: Array<{ seq: number; id: string; at: string; action: string; outcome: string; actor: string; prev: string | null; digest: string | null }>;
  chain: AuditChainReport;
}

const digestOf = (value: unknown): string => createHash('sha256').update(canonicalJson(value)).digest('hex');

/** Gathers a run's evidence from the store (reads only). Rejects with the store's error for an unknown run. */
export async function runEvidence(store: Store, runId: string): Promise<RunEvidence> {
  const run = await store.getRun(runId);
  const steps = await store.stepsOf(runId);
  const snapshotId = typeof run.context.snapshotId === 'string' ? run.context.snapshotId : undefined;
  const snapshot = snapshotId ? await store.getSnapshot(snapshotId).catch(() => undefined) : undefined;
  // The read-back: the newest passed step that output offsets other than the ones captured before.
  const readBack = [...steps].reverse().find((s) => s.status === 'passed' && Object.keys(s.outputs).some((k) => /Offsets$/.test(k) && k !== 'previousOffsets'));
  const afterKey = readBack ? Object.keys(readBack.outputs).find((k) => /Offsets$/.test(k) && k !== 'previousOffsets') : undefined;
  const after = readBack && afterKey && Array.isArray(readBack.outputs[afterKey]) ? (readBack.outputs[afterKey] as unknown[]) : undefined;
  const requestId = typeof run.context.requestId === 'string' ? run.context.requestId : undefined;
  const request = requestId ? await store.getChangeRequest(requestId).catch(() => undefined) : undefined;
  const chainRows: AuditChainRow[] = [];
  const chain = await verifyStoreAudit({
    readAuditChain: async (afterSeq, limit) => {
      const page = await store.readAuditChain(afterSeq, limit);
      chainRows.push(...page.filter((r) => r.record.runId === runId));
      return page;
    },
  });
  return {
    run: {
      id: run.id, operation: run.operation, connector: run.connector, clusterUrl: run.clusterUrl, clusterKey: run.clusterKey, status: run.displayStatus,
      startedAt: run.startedAt, ...(run.finishedAt ? { finishedAt: run.finishedAt } : {}), ...(run.connectorState ? { connectorState: run.connectorState } : {}),
      ...(run.message ? { message: run.message } : {}), startedBy: run.actor, ...(run.resumedBy ? { resumedBy: run.resumedBy } : {}),
      ...(run.takenOverFrom ? { takenOverFrom: run.takenOverFrom } : {}),
    },
    plan: {
      inputsDigest: digestOf(run.inputs),
      ...(typeof run.context.planDigest === 'string' ? { planDigest: run.context.planDigest } : {}),
      ...(requestId ? { requestId } : {}),
      ...(typeof run.context.batchId === 'string' ? { batchId: run.context.batchId } : {}),
    },
    offsets: {
      ...(snapshot ? { before: { snapshotId: snapshot.id, takenAt: snapshot.takenAt, partitions: snapshot.partitions, digest: digestOf(snapshot.offsets) } } : {}),
      ...(readBack && after ? { after: { step: readBack.stepId, partitions: after.length, digest: digestOf(after) } } : {}),
    },
    approvals: (request?.history ?? []).map((h) => ({ at: h.at, action: h.action, actor: h.actor, ...(h.reason ? { reason: h.reason } : {}) })),
    lockHolder: { pid: run.pid, hostname: run.hostname, actor: run.resumedBy ?? run.actor },
    audit: chainRows.map((r) => ({ seq: r.seq, id: r.record.id, at: r.record.at, action: r.record.action, outcome: r.record.outcome, actor: r.record.actor.user, prev: r.prev, digest: r.digest })),
    chain,
  };
}

/** Whether the whole audit trail's chain verifies, as `offsetctl audit verify` says (the console's Audit page shows it). */
export function verifyAuditTrail(store: Pick<Store, 'readAuditChain'>): Promise<AuditChainReport> {
  return verifyStoreAudit(store);
}
