// What a connector profile is: per connector class, what its offsets mean and where the rest of
// its position lives (a replication slot, a table with keys, an Iceberg table). Planning asks the
// connector's profile before anything changes: it reads what it needs (pre-flight reads), adds
// facts and warnings the dry run shows, and refuses (OpsError, exit 2) a change that would lose
// or duplicate data in a way Kafka Connect cannot see. The lifecycle verbs ask it too (stop, resume).
import type { OffsetEntry } from '../offsets/index.js';
import type { KafkaSettings } from '../../kafka/connection.js';
import type { IcebergPlan, RecordedTable } from './iceberg-types.js';
import type { SourceDbSettings } from './source-db.js';

export type ProfileOperation = 'rewind' | 'reset' | 'rollback' | 'resume' | 'stop' | 'copy' | 'move';

/** What the face passes for the profiles: where to read the other half, and the risks accepted in writing. */
export interface ProfileOptions {
  /** Debezium PostgreSQL: a read-only login to the source database (the face read PGPASSWORD / .pgpass; never the connector's config). */
  sourceDb?: SourceDbSettings;
  /** Change a Debezium source without reading its slot (`--skip-source-check`): the risk is said in a warning. */
  skipSourceCheck?: boolean;
  /** Planning the rest of an interrupted run (`runs resume`): never refused for want of a source database (it must stay finishable), said in a warning. */
  finishingRun?: boolean;
  /** Targets beyond the current position (`--allow-forward`): Debezium loses the rows between, said in a warning. */
  allowForward?: boolean;
  /** The Kafka cluster: an Iceberg sink's control topic is read from it (src/ops/profiles/iceberg.ts). */
  kafka?: KafkaSettings | (() => Promise<KafkaSettings | undefined>);
}

/** Records a sink delivers again after the change. */
export interface Replayed {
  /** Counted from the plan (positions, or committed − target per partition). */
  records: number;
  /** Partitions whose offsets are removed: everything still in them is delivered again. */
  wholePartitions: number;
}

export interface ProfileCheck {
  operation: ProfileOperation;
  connector: { name: string; type: 'source' | 'sink'; config: Record<string, string>; state: string };
  current: OffsetEntry[];
  /** What the offsets become (a rewind's targets, a rollback's snapshot, [] for reset); undefined when the offsets are not changed. */
  target?: OffsetEntry[];
  /** A sink's records delivered again. */
  replayed?: Replayed;
  /** Rollback: the source identity recorded when the snapshot was taken. */
  recorded?: SourceIdentity;
  /** Rollback: an Iceberg sink's table heads recorded with the snapshot's run. */
  recordedTables?: RecordedTable[];
  /** Copy: the configuration the copy is created with. */
  copyConfig?: Record<string, string>;
  options: ProfileOptions;
}

/** Which replication slot a snapshot's offsets belong to (recorded with the run that took it). */
export interface SourceIdentity {
  database: string;
  /** pg_control_system().system_identifier (absent when the login could not read it). */
  systemId?: string;
  slotName: string;
  /** The slot's restart_lsn when the snapshot was taken (`0/196E9F8`). */
  restartLsn?: string;
}

export interface ProfileReport {
  /** `debezium-postgres`, `jdbc-sink`, `iceberg-sink`, `kafka` (Kafka's own plugins), `generic`. */
  profile: string;
  /** What was read and what the options are, one line each: shown with the plan. */
  facts: string[];
  warnings: string[];
  /** Recorded with the run, so a rollback to its snapshot is checked against the same slot. */
  source?: SourceIdentity;
  /** Running means its tasks run: RUNNING with no task is not running (Debezium always has one). */
  needsTasks?: boolean;
  /** An Iceberg sink: the tables the run sets back (or why it cannot), and their heads to record. */
  iceberg?: IcebergPlan;
  /**
   * A move: what only one task may hold at a time (a Debezium source's replication slot). The move
   * waits until the original's task has let go of it before it starts the new connector.
   */
  exclusive?: ExclusiveHold;
}

/** Something outside Connect one task holds at a time: the move reads it through the operator's login (options.sourceDb). */
export interface ExclusiveHold {
  kind: 'replication-slot';
  slotName: string;
  /** The source database as shown (no password). */
  database: string;
}

export interface ConnectorProfile {
  name: string;
  /** Full class names; a short name (the last segment) matches too, as Connect's aliases do. */
  classes: readonly string[];
  check(c: ProfileCheck): Promise<ProfileReport> | ProfileReport;
}

/** The operations that change offsets (and so may leave the other half behind). */
export function changesOffsets(op: ProfileOperation): boolean {
  return op === 'rewind' || op === 'reset' || op === 'rollback' || op === 'resume';
}
