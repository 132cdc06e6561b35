// What an Iceberg sink's plan carries for its run (plain JSON data): planned in iceberg.ts,
// recorded with the run (heads), run by ops/run/iceberg-tables.ts.

/** One table's branch moved by the run. */
export interface IcebergTableStep {
  table: string;
  /** Path segments for the workflow: the namespace joined by 0x1F, and the table's own name. */
  namespace: string;
  name: string;
  branch: string;
  /** The branch's snapshot when planned (the commit requires it still). */
  current: string;
  target: string;
  /** Rows the table loses (total-records of current − target; negative: a rollback brings rows back). */
  rowsRemoved: number;
}

/** What the run needs (plan data, JSON): the catalog, the tables to set back, and every table's head to record. */
export interface IcebergPlan {
  catalogUri: string;
  /** `<uri>/v1[/<prefix>]`: the server of openapi/iceberg-rest-catalog.yaml. */
  base: string;
  steps: IcebergTableStep[];
  /** Each table's branch head when planned: recorded with the run, so a rollback to its snapshot restores the tables too. */
  heads: RecordedTable[];
  /** Set when the table side cannot be done: a real change is refused with this reason (exit 2); the dry run shows it. */
  refusal?: string;
}

export interface RecordedTable {
  table: string;
  branch: string;
  /** Undefined: the branch had no snapshot. */
  snapshotId?: string;
}
