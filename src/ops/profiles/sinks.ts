// Sinks whose target keeps what they wrote: a replay (a rewind backwards, a reset, a copy writing
// the same records) is not harmless there. Debezium's JDBC sink fails on a duplicate key with
// insert.mode=insert or writes rows twice without a key; Apache Iceberg's sink appends every
// delivered record as a new row (no dedup, no upsert). Said in the dry run, before the change.
import { OpsError } from '../errors.js';
import type { ConnectorProfile, ProfileCheck, ProfileReport, Replayed } from './profile.js';

export const JDBC_SINK = 'io.debezium.connector.jdbc.JdbcSinkConnector';
export const ICEBERG_SINK = 'org.apache.iceberg.connect.IcebergSinkConnector';

/** How many records a change delivers again, in words; undefined when none. */
export function replayText(r: Replayed | undefined, operation: string): string | undefined {
  if (operation === 'reset') return 'every record still in its topics';
  if (!r || (r.records <= 0 && r.wholePartitions === 0)) return undefined;
  const parts = [
    ...(r.records > 0 ? [`${r.records.toLocaleString('en-US')} record(s)`] : []),
    ...(r.wholePartitions > 0 ? [`everything still in ${r.wholePartitions} partition(s) whose offsets are removed`] : []),
  ];
  return parts.join(' and ');
}

export const jdbcSink: ConnectorProfile = {
  name: 'jdbc-sink',
  classes: [JDBC_SINK],
  check(c: ProfileCheck): ProfileReport {
    const cfg = c.connector.config;
    const insertMode = (cfg['insert.mode']?.trim() || 'insert').toLowerCase();
    const keyMode = (cfg['primary.key.mode']?.trim() || 'none').toLowerCase();
    const report: ProfileReport = { profile: 'jdbc-sink', facts: [`Debezium JDBC sink: insert.mode ${insertMode}, primary.key.mode ` +
      `${keyMode}`], warnings: [] };
    const again = c.operation === 'copy' ? 'every record from the copied offsets on (the original writes them too)' : replayText(c.replayed, c.operation);
    if (!again || insertMode !== 'insert') return report;
    report.warnings.push(keyMode === 'none'
      ? `${c.connector.name} writes with insert.mode=insert and no primary key (primary.key.mode=none): ${again} will be inserted again as duplicate rows; ` +
        `insert.mode=upsert with a key makes a replay idempotent`
      : `${c.connector.name} writes with insert.mode=insert and a primary key (primary.key.mode=${keyMode}): the task will fail on a duplicate key at the ` +
        `first of ${again} already in the table (the batch rolls back and the task stays FAILED); insert.mode=upsert makes a replay idempotent`);
    return report;
  },
};

export const icebergSink: ConnectorProfile = {
  name: 'iceberg-sink',
  classes: [ICEBERG_SINK],
  check(c: ProfileCheck): ProfileReport {
    const cfg = c.connector.config;
    const tables = tablesOf(cfg);
    const branch = cfg['iceberg.tables.default-commit-branch'];
    const facts = [`Apache Iceberg sink: iceberg.tables ${tables || '(dynamic)'}${branch ? `, branch ${branch}` : ''}`];
    const report: ProfileReport = { profile: 'iceberg-sink', facts, warnings: [] };
    if (c.operation === 'copy') {
      const copy = c.copyConfig ?? cfg;
      const sameTables = tablesOf(copy) === tables && (copy['iceberg.tables.route-field'] ?? '') === (cfg['iceberg.tables.route-field'] ?? '');
      const sameBranch = (copy['iceberg.tables.default-commit-branch'] ?? '') === (cfg['iceberg.tables.default-commit-branch'] ?? '');
      if (sameTables && sameBranch) {
        throw new OpsError('E_PREFLIGHT', `${c.connector.name} is an Iceberg sink and the copy would append into the same tables ` +
          `(${tables || 'the dynamically routed ones'}): every record both consume would be written twice (Iceberg has no dedup). Give the copy other ` +
          `tables (--set iceberg.tables=<tables>) or its own branch (--set iceberg.tables.default-commit-branch=<branch>). Nothing was ` +
          `changed`, { field: 'set' });
      }
      return report;
    }
    const again = replayText(c.replayed, c.operation);
    if (again) {
      report.warnings.push(`${c.connector.name} appends to Iceberg tables (${tables || 'dynamic'}), which have no dedup or upsert: ${again} will be ` +
        `appended again as new rows (duplicates), and the tables are not set back. Commits show late (iceberg.control.commit.interval-ms, default 5 ` +
        `minutes)`);
    }
    return report;
  },
};

function tablesOf(cfg: Record<string, string>): string {
  return (cfg['iceberg.tables'] ?? '').split(',').map((t) => t.trim()).filter((t) => t !== '').sort().join(',');
}
