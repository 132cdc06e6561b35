// The records the store hands out. Plain data: callers never see SQL rows.

export type Operation = 'rewind' | 'reset' | 'rollback';

/** `running` while a process works on it; a `running` run whose process died is shown as `interrupted`. */
export type RunStatus = 'running' | 'succeeded' | 'failed' | 'abandoned';

/** What ops needs to finish or undo a run later, kept beside it. */
export interface RunContext {
  connectorType?: 'source' | 'sink';
  /** The connector state read before anything changed. */
  stateBefore?: string;
  snapshotId?: string;
  /** Set once the step that alters offsets has started: from then on a restore must write offsets. */
  offsetsMayHaveChanged?: boolean;
  /** For rollback: the snapshot being restored. */
  restoringSnapshotId?: string;
  /** For a rollback that took over an interrupted run: that run's state before (its snapshot records it). */
  stateBeforeInterruption?: string;
  /** Set when the run is one connector of a batch (`offsetctl runs --batch <id>`). */
  batchId?: string;
  [key: string]: unknown;
}

export interface NewRun {
  clusterUrl: string;
  /** The cluster's identity (`kafka:<id>`); default `url:<clusterUrl>`. Locks and lookups use it. */
  clusterKey?: string;
  connector: string;
  operation: Operation;
  workflowFile: string;
  workflowId: string;
  inputs: Record<string, unknown>;
  context?: RunContext;
}

export interface RunRecord {
  id: string;
  clusterUrl: string;
  clusterKey: string;
  connector: string;
  operation: Operation;
  status: RunStatus;
  /** `status`, except a `running` run whose process is gone reads `interrupted`. */
  displayStatus: RunStatus | 'interrupted';
  startedAt: string;
  finishedAt?: string;
  workflowFile: string;
  workflowId: string;
  inputs: Record<string, unknown>;
  lastStep?: string;
  pid: number;
  hostname: string;
  message?: string;
  connectorState?: string;
  context: RunContext;
}

export interface StepRecord {
  seq: number;
  workflowId: string;
  stepId: string;
  status: 'passed' | 'failed';
  outputs: Record<string, unknown>;
  error?: { code?: string; message: string };
  finishedAt: string;
}

export interface EventRecord {
  seq: number;
  at: string;
  type: string;
  stepId?: string;
  detail: Record<string, unknown>;
}

export interface NewSnapshot {
  runId?: string;
  clusterUrl: string;
  /** As NewRun.clusterKey. */
  clusterKey?: string;
  connector: string;
  connectorType: 'source' | 'sink';
  stateBefore: string;
  offsets: unknown[];
}

export interface SnapshotRecord extends NewSnapshot {
  id: string;
  clusterKey: string;
  partitions: number;
  takenAt: string;
}

/** Who holds a lock: the process that works on the run. */
export interface LockHolder {
  pid: number;
  hostname: string;
}

export interface LockRecord extends LockHolder {
  clusterKey: string;
  /** The URL the holder connected through (information only). */
  clusterUrl: string;
  connector: string;
  runId: string;
  acquiredAt: string;
  /** False when the holder is gone (as the store's liveness check decides). */
  alive: boolean;
}

export interface RunFilter {
  connector?: string;
  clusterUrl?: string;
  /** Only the runs whose context names this batch (`context.batchId`). */
  batchId?: string;
  limit?: number;
}

export interface SnapshotFilter {
  connector?: string;
  clusterUrl?: string;
  /** Only snapshots under one of these cluster keys (see NewRun.clusterKey). */
  clusterKeys?: string[];
}

export interface RunOutcome {
  status: Exclude<RunStatus, 'running'>;
  message?: string;
  connectorState?: string;
}

/**
 * Where snapshots, the run journal and the per-(cluster, connector) lock live. Async, so that a
 * networked backend fits; every backend passes the contract suite (test/store/contract.ts).
 *
 * Durability: when a write's promise resolves, the record survives a kill -9 of this process;
 * `saveSnapshot` resolves only once the snapshot survives a machine crash too (the snapshot
 * guards the change that follows it).
 *
 * Cluster keys: runs, snapshots and locks are keyed by the cluster's identity (`kafka:<id>`), so
 * every worker URL of one cluster shares the lock; a row of unknown identity has `url:<url>`, and
 * `beginRun` honours a lock under either key.
 *
 * Locks: `beginRun` takes the lock and records the run atomically; `finishRun` releases it. A lock
 * whose holder is gone (the backend's liveness check) is stale: it still blocks new runs, except
 * that `takeOverStale` (rollback) supersedes it and `takeOverRun` (resume) continues its run.
 */
export interface Store {
  /** Where the data is, for messages (a file path, a URL). */
  readonly location: string;
  /** Refused with `E_LOCKED` while another run (live or stale) holds the connector. */
  beginRun(run: NewRun, options?: { takeOverStale?: boolean; now?: Date }): Promise<RunRecord>;
  /** This process continues an interrupted run; refused unless the run is `running` and its holder is gone. */
  takeOverRun(runId: string): Promise<RunRecord>;
  /** Records the outcome and releases the run's lock. */
  finishRun(runId: string, outcome: RunOutcome): Promise<void>;
  updateRunContext(runId: string, patch: RunContext): Promise<void>;
  /** `E_NOT_FOUND` for an unknown id. */
  getRun(runId: string): Promise<RunRecord>;
  /** Newest first. */
  listRuns(filter?: RunFilter): Promise<RunRecord[]>;
  /** The lock on (cluster key, connector): a key is `kafka:<id>`, or `url:<url>` for rows of unknown identity. */
  lockOf(clusterKey: string, connector: string): Promise<LockRecord | undefined>;
  recordStep(runId: string, step: Omit<StepRecord, 'seq'>): Promise<void>;
  recordEvent(runId: string, event: Omit<EventRecord, 'seq'>): Promise<void>;
  /** Several events in one transaction, in order (the journal batches a step's events). */
  recordEvents(runId: string, events: ReadonlyArray<Omit<EventRecord, 'seq'>>): Promise<void>;
  /** In the order recorded. */
  stepsOf(runId: string): Promise<StepRecord[]>;
  eventsOf(runId: string): Promise<EventRecord[]>;
  saveSnapshot(snapshot: NewSnapshot, now?: Date): Promise<SnapshotRecord>;
  /** `E_NOT_FOUND` for an unknown id. */
  getSnapshot(id: string): Promise<SnapshotRecord>;
  /** Newest first; offsets left out (empty) to keep listings cheap. */
  listSnapshots(filter?: SnapshotFilter): Promise<SnapshotRecord[]>;
  /** By the URL the snapshot was taken through. */
  latestSnapshot(clusterUrl: string, connector: string): Promise<SnapshotRecord | undefined>;
  /** Deletes these snapshots (`snapshots prune` decides which); resolves with how many went. */
  deleteSnapshots(ids: string[]): Promise<number>;
  close(): Promise<void>;
}

/** How a store names the current process as a lock holder and decides whether a holder is gone. */
export interface StoreOptions {
  owner?: LockHolder;
  isAlive?: (holder: LockHolder) => boolean;
}
