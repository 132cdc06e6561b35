// `offsetctl snapshots prune`: which snapshots may go. Kept per (cluster, connector): the newest
// `keep`, and anything younger than `olderThan`; a snapshot a running (or interrupted) run still
// depends on is never pruned, whatever the flags say, since recovery and rollback read it.
import type { RunsStore, SnapshotRecord, SnapshotsStore } from './types.js';

export interface PruneRule {
  /** Keep this many newest snapshots per connector and cluster. */
  keep?: number;
  /** Prune only snapshots taken before this time. */
  olderThan?: Date;
  connector?: string;
}

/** The snapshots the rule selects, newest first; nothing is deleted (Store.deleteSnapshots does that). */
export async function snapshotsToPrune(store: RunsStore & SnapshotsStore, rule: PruneRule): Promise<SnapshotRecord[]> {
  const protectedIds = new Set((await store.listRuns({ limit: 1_000_000 })).filter((r) => r.status === 'running').map((r) => r.context.snapshotId).filter((id): id is string => typeof id === 'string'));
  const seen = new Map<string, number>();
  const out: SnapshotRecord[] = [];
  for (const s of await store.listSnapshots(rule.connector ? { connector: rule.connector } : {})) {
    const group = `${s.clusterKey}\u0000${s.connector}`;
    const rank = (seen.get(group) ?? 0) + 1;
    seen.set(group, rank);
    if (rule.keep !== undefined && rank <= rule.keep) continue;
    if (rule.olderThan && !(Date.parse(s.takenAt) < rule.olderThan.getTime())) continue;
    if (protectedIds.has(s.id)) continue;
    out.push(s);
  }
  return out;
}

/** `30d`, `12h`, `90m`, `2w` → milliseconds; undefined when it does not parse. */
export function parseAge(text: string): number | undefined {
  const m = /^(\d+)\s*([mhdw])$/.exec(text.trim());
  if (!m) return undefined;
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 }[m[2] as 'm' | 'h' | 'd' | 'w'];
  return Number(m[1]) * unit;
}
