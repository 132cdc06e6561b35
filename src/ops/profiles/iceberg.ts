// The table side of an Apache Iceberg sink's rewind, reset or rollback (docs/connectors.md). The
// sink appends every delivered record as a new row, so moving its consumer group alone writes
// rows twice. Planned here, before anything changes: for each table of `iceberg.tables`, the
// newest snapshot of its branch whose data lies wholly before the target offsets, found from the
// control topic's DATA_COMPLETE events (the data offsets each commit reached, by
// `kafka.connect.commit-id`); a rollback uses the table heads recorded with its snapshot. The run
// sets each branch back through the REST catalog (workflows/set-iceberg-table-snapshot.arazzo.yaml)
// between the offsets snapshot and the offsets write. Only the REST catalog protocol is spoken: a
// JDBC, Hive, Glue, Nessie or Hadoop catalog is refused for a real change (the dry run explains).
import { readIcebergCommits, type CommitOffsets } from '../../kafka/iceberg-control.js';
import type { OffsetEntry } from '../offsets/index.js';
import { ancestry, catalogBase, loadTable, namespacePath, type CatalogBase, type IcebergSnapshot, type IcebergTable } from './iceberg-catalog.js';
import type { IcebergPlan, IcebergTableStep, RecordedTable } from './iceberg-types.js';
import type { ProfileCheck } from './profile.js';

export type { IcebergPlan, IcebergTableStep, RecordedTable } from './iceberg-types.js';

export interface IcebergTables {
  plan: IcebergPlan | undefined;
  facts: string[];
  /** Sentences for the dry run: per table, where it goes back to and how many rows that removes. */
  lines: string[];
  refusal?: string;
}

function tableList(cfg: Record<string, string>): string[] {
  return (cfg['iceberg.tables'] ?? '').split(',').map((t) => t.trim()).filter((t) => t !== '');
}

/** Why the table side cannot be done from this config; undefined when it can (a REST catalog, named tables). */
export function catalogRefusal(name: string, cfg: Record<string, string>): string | undefined {
  const type = cfg['iceberg.catalog.type']?.trim().toLowerCase();
  const impl = cfg['iceberg.catalog.catalog-impl']?.trim();
  const rest = impl ? impl === 'org.apache.iceberg.rest.RESTCatalog' : type === 'rest';
  if (!rest) {
    const which = impl ? `catalog-impl ${impl}`
      : type ? `a ${type} catalog (iceberg.catalog.type=${type})` : 'a Hive catalog (no iceberg.catalog.type: Iceberg\'s default)';
    return `${name} writes through ${which}; offsetctl sets Iceberg tables back only through the REST catalog protocol ` +
      '(iceberg.catalog.type=rest: Polaris, Nessie\'s, Glue\'s, Unity\'s or any REST catalog in front of that store), ' +
      'so it cannot undo the rows this change appends again';
  }
  if (!cfg['iceberg.catalog.uri']?.trim()) return `${name} has no iceberg.catalog.uri: offsetctl cannot reach its REST catalog to set the tables back`;
  if (tableList(cfg).length === 0) return `${name} routes records to tables dynamically (no iceberg.tables): offsetctl cannot know which tables to set back`;
  return undefined;
}

/** The target offsets per `topic:partition` after the change (undefined: removed, replayed from the log start). */
function targets(c: ProfileCheck): Map<string, number | undefined> {
  const out = new Map<string, number | undefined>();
  const add = (entries: readonly OffsetEntry[]) => {
    for (const e of entries) {
      const p = e.partition as { kafka_topic?: string; kafka_partition?: number | string };
      const v = (e.offset as { kafka_offset?: number | string } | null)?.kafka_offset;
      out.set(`${p.kafka_topic}:${Number(p.kafka_partition)}`, v === undefined || v === null ? undefined : Number(v));
    }
  };
  if (c.operation === 'rewind') add(c.current); // a PATCH merges: partitions not named keep their offsets
  add(c.target ?? []);
  return out;
}

const rows = (s: IcebergSnapshot | undefined): number => Number(s?.summary['total-records'] ?? 0) || 0;
const when = (s: IcebergSnapshot | undefined): string => s ? new Date(s.timestampMs).toISOString() : 'before any snapshot';
const list = (m: Map<string, number | undefined>): string => [...m].map(([k, v]) => `${k}=${v ?? 'removed'}`).join(', ');

/** The table side planned: reads the catalog and (rewind, reset) the control topic. Never throws for a read: a failure becomes the refusal. */
export async function planIcebergTables(c: ProfileCheck): Promise<IcebergTables> {
  const { name, config: cfg } = c.connector;
  const refused = catalogRefusal(name, cfg);
  if (refused) return { plan: undefined, facts: [], lines: [], refusal: refused };
  const branch = cfg['iceberg.tables.default-commit-branch']?.trim() || 'main';
  try {
    const base = await catalogBase(cfg['iceberg.catalog.uri']!, cfg['iceberg.catalog.warehouse']);
    const tables = await Promise.all(tableList(cfg).map((t) => loadTable(base, t, branch)));
    const heads = tables.map((t) => ({ table: t.name, branch, ...(t.head ? { snapshotId: t.head } : {}) }));
    if (c.operation === 'rollback') return rollbackTables(c, base, tables, branch, heads);
    const kafka = typeof c.options.kafka === 'function' ? await c.options.kafka() : c.options.kafka;
    const group = cfg['iceberg.connect.group-id']?.trim() || `connect-${name}`;
    const topic = cfg['iceberg.control.topic']?.trim() || 'control-iceberg';
    if (!kafka) {
      const refusal = 'offsetctl needs the Kafka cluster (--bootstrap, OFFSETCTL_BOOTSTRAP or the context\'s bootstrap) ' +
        `to read ${name}'s commits from its control topic ${topic} and find which table snapshots lie wholly before the target`;
      return { plan: undefined, facts: [], lines: [], refusal };
    }
    const commits = await readIcebergCommits(kafka, topic, group);
    const want = targets(c);
    const steps: IcebergTableStep[] = [];
    const facts: string[] = [
      `Iceberg control topic ${topic}: ${commits.size} commit(s) of ${group} read (DATA_COMPLETE events); target offsets ${list(want) || '(all removed)'}`,
    ];
    const lines: string[] = [];
    for (const t of tables) {
      const r = chooseSnapshot(t, commits, want, c.operation);
      if ('refusal' in r) return { plan: undefined, facts, lines, refusal: r.refusal };
      if (!r.target || r.target.id === t.head) {
        lines.push(`${t.name} (branch ${branch}) stays at snapshot ${t.head ?? '(none)'}: it holds nothing from the target on`);
        continue;
      }
      const head = t.snapshots.get(t.head!);
      const step = {
        table: t.name, namespace: namespacePath(t.namespace), name: t.table, branch,
        current: t.head!, target: r.target.id, rowsRemoved: rows(head) - rows(r.target),
      };
      steps.push(step);
      const others = r.foreign > 0 ? `, including ${r.foreign} snapshot(s) by other writers` : '';
      lines.push(`${t.name} (branch ${branch}) goes back from snapshot ${step.current} (${rows(head)} rows) ` +
        `to snapshot ${step.target} of ${when(r.target)} (${rows(r.target)} rows): ${step.rowsRemoved} row(s) removed${others}`);
    }
    return { plan: { catalogUri: base.uri, base: base.base, steps, heads }, facts, lines };
  } catch (err) {
    const why = (err as Error).message.replace(/; nothing was changed$/, '');
    return { plan: undefined, facts: [], lines: [], refusal: `offsetctl could not plan the table side of ${name}: ${why}` };
  }
}

/**
 * The newest snapshot of the branch whose commit's offsets are all at or before the targets; it
 * must end exactly at the targets (else the records between would be lost: they are in a newer
 * snapshot). A target before every commit of this connector goes back to the parent of its first.
 */
export function chooseSnapshot(t: IcebergTable, commits: Map<string, CommitOffsets>, want: Map<string, number | undefined>, operation: string):
  { target: IcebergSnapshot | undefined; foreign: number } | { refusal: string } {
  const line = ancestry(t);
  const own = line.filter((s) => commits.has(s.summary['kafka.connect.commit-id'] ?? ''));
  if (own.length === 0) return { target: t.head ? t.snapshots.get(t.head) : undefined, foreign: 0 };
  let foreign = 0;
  for (const s of line) {
    const commit = commits.get(s.summary['kafka.connect.commit-id'] ?? '');
    // Another writer's snapshot, or a commit whose events carried no offsets: not a boundary.
    if (!commit || commit.offsets.size === 0) {
      foreign++;
      continue;
    }
    const before = [...commit.offsets].every(([k, v]) => want.get(k) !== undefined && v <= want.get(k)!);
    if (!before) continue;
    const off = [...want].filter(([k, v]) => commit.offsets.get(k) !== v);
    if (off.length > 0) {
      const ends = [...commit.offsets].map(([k, v]) => `${k}=${v}`).join(', ');
      const wanted = off.map(([k, v]) => `${k}=${v ?? 'removed'}`).join(', ');
      return { refusal: `no snapshot of ${t.name} ends exactly at the target (${wanted}): the newest one wholly before it, ${s.id} of ${when(s)}, ` +
        `holds the records before ${ends}, and the records in between are in a newer snapshot, so setting the table back there and the group ` +
        `to the target would lose them. Rewind to where that commit ended instead (${ends}), or to another commit's end` };
    }
    return { target: s, foreign };
  }
  const first = own[own.length - 1]!;
  const parent = first.parentId ? t.snapshots.get(first.parentId) : undefined;
  if (operation !== 'reset') {
    return { refusal: `the target is before ${t.name}'s first commit by this connector (snapshot ${first.id} of ${when(first)}), ` +
      'and offsetctl cannot see where that commit began: rewind to where a commit ended, or reset the connector' };
  }
  if (!parent) {
    return { refusal: `${t.name} has no snapshot before this connector's first commit (${first.id}): setting it back would empty the table, ` +
      'which offsetctl does not do; empty it by hand if that is meant' };
  }
  return { target: parent, foreign: line.indexOf(parent) - own.length };
}

function rollbackTables(c: ProfileCheck, base: CatalogBase, tables: IcebergTable[], branch: string, heads: RecordedTable[]): IcebergTables {
  const recorded = c.recordedTables;
  if (!recorded) {
    const line = 'the snapshot recorded no Iceberg table heads (it was taken before offsetctl set tables back): the tables are not set back';
    return { plan: { catalogUri: base.uri, base: base.base, steps: [], heads }, facts: [], lines: [line] };
  }
  const steps: IcebergTableStep[] = [];
  const lines: string[] = [];
  for (const r of recorded) {
    const t = tables.find((x) => x.name === r.table);
    if (!t || !r.snapshotId) {
      lines.push(`${r.table} is not set back (${t ? 'its branch had no snapshot then' : 'no longer in iceberg.tables'})`);
      continue;
    }
    if (t.head === r.snapshotId) continue;
    const target = t.snapshots.get(r.snapshotId);
    if (!target) {
      const refusal = `snapshot ${r.snapshotId} of ${t.name}, recorded with this offsets snapshot, is no longer in the table (expired): ` +
        'the table cannot be restored with the group';
      return { plan: undefined, facts: [], lines, refusal };
    }
    if (!t.head) {
      return { plan: undefined, facts: [], lines, refusal: `${t.name}'s branch ${branch} has no snapshot now; offsetctl does not recreate a branch` };
    }
    const head = t.snapshots.get(t.head);
    const step = {
      table: t.name, namespace: namespacePath(t.namespace), name: t.table, branch: r.branch,
      current: t.head, target: r.snapshotId, rowsRemoved: rows(head) - rows(target),
    };
    steps.push(step);
    lines.push(`${t.name} (branch ${r.branch}) is restored from snapshot ${step.current} (${rows(head)} rows) ` +
      `to snapshot ${step.target} of ${when(target)} (${rows(target)} rows), as recorded with the offsets snapshot`);
  }
  return { plan: { catalogUri: base.uri, base: base.base, steps, heads }, facts: [], lines };
}
