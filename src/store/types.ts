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

export interface LockRecord {
  clusterKey: string;
  /** The URL the holder connected through (information only). */
  clusterUrl: string;
  connector: string;
  runId: string;
  pid: number;
  hostname: string;
  acquiredAt: string;
  /** False when the holder's process is gone (same host only; another host's lock counts as alive). */
  alive: boolean;
}
