// The durable side of every offset operation: runs, their journal, snapshots and the
// per-connector lock, in one SQLite file. Writes are synchronous (better-sqlite3) in WAL mode:
// once a call returns, the row survives a kill -9 of this process (the WAL is written before
// the commit returns). The journal runs with synchronous=NORMAL; a snapshot is committed with
// synchronous=FULL, which fsyncs the WAL — that snapshot and everything journaled before it —
// so the snapshot that guards a PATCH/DELETE survives even a machine crash the instant after.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { redactValue } from '../http/redact.js';
import { StoreError } from './errors.js';
import { newId } from './ids.js';
import { isProcessAlive, thisHost } from './process.js';
import { migrate, urlKey } from './schema.js';
import type { EventRecord, LockRecord, NewRun, NewSnapshot, RunContext, RunRecord, RunStatus, SnapshotRecord, StepRecord } from './types.js';

export const STORE_FILE = 'offsetctl.db';

/** Opens (creating when needed) the store in `stateDir`. */
export function openStore(stateDir: string): Store {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  return new Store(join(stateDir, STORE_FILE));
}

type Row = Record<string, unknown>;

export class Store {
  readonly file: string;
  readonly #db: Database.Database;

  constructor(file: string) {
    this.file = file;
    try {
      this.#db = new Database(file);
      this.#db.pragma('journal_mode = WAL');
      this.#db.pragma('synchronous = NORMAL');
      this.#db.pragma('busy_timeout = 5000');
      this.#db.pragma('foreign_keys = ON');
      migrate(this.#db);
    } catch (err) {
      throw new StoreError('E_STORE', `cannot open the state store ${file}: ${(err as Error).message} (check --state-dir / OFFSETCTL_STATE_DIR and its permissions)`, { cause: err });
    }
  }

  close(): void {
    this.#db.close();
  }

  // ---- runs and the lock ------------------------------------------------------------

  /**
   * Takes the (cluster, connector) lock and records a new run, atomically. Refuses with
   * E_LOCKED when another run holds the lock, live or stale, unless `takeOverStale` lets a
   * caller (rollback) replace a dead holder; that holder's run is then marked `abandoned`.
   */
  beginRun(run: NewRun, options: { takeOverStale?: boolean; now?: Date } = {}): RunRecord {
    const now = options.now ?? new Date();
    const id = newId('run', now);
    const at = now.toISOString();
    const key = run.clusterKey ?? urlKey(run.clusterUrl);
    this.#db.transaction(() => {
      // A lock taken before the store knew cluster identities is keyed by its URL: it counts too.
      for (const lockKey of new Set([key, urlKey(run.clusterUrl)])) {
        const held = this.lockOf(lockKey, run.connector);
        if (!held) continue;
        if (held.alive || !options.takeOverStale) throw lockedError(held);
        this.#db.prepare(`UPDATE runs SET status = 'abandoned', finished_at = ?, message = ? WHERE id = ? AND status = 'running'`)
          .run(at, `interrupted (pid ${held.pid} died); superseded by run ${id}`, held.runId);
        this.#db.prepare('DELETE FROM locks WHERE cluster_key = ? AND connector = ?').run(lockKey, run.connector);
      }
      this.#db.prepare(`INSERT INTO runs (id, cluster_url, cluster_key, connector, operation, status, started_at, workflow_file, workflow_id, inputs, pid, hostname, context)
        VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)`)
        .run(id, run.clusterUrl, key, run.connector, run.operation, at, run.workflowFile, run.workflowId, JSON.stringify(redactValue(run.inputs)), process.pid, thisHost(), JSON.stringify(run.context ?? {}));
      this.#db.prepare('INSERT INTO locks (cluster_key, cluster_url, connector, run_id, pid, hostname, acquired_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(key, run.clusterUrl, run.connector, id, process.pid, thisHost(), at);
    }).immediate();
    return this.getRun(id);
  }

  /**
   * Lets this process continue an interrupted run (`runs resume`): the run must still be
   * `running` and its lock must be free or held by a dead process.
   */
  takeOverRun(runId: string): RunRecord {
    const run = this.getRun(runId);
    this.#db.transaction(() => {
      if (run.status !== 'running') {
        throw new StoreError('E_LOCKED', `run ${runId} is ${run.status}; only an interrupted run can be resumed`);
      }
      const held = this.lockOf(run.clusterKey, run.connector);
      if (held && held.alive && !(held.pid === process.pid && held.hostname === thisHost())) throw lockedError(held);
      if (held && held.runId !== runId) throw lockedError(held);
      this.#db.prepare('DELETE FROM locks WHERE cluster_key = ? AND connector = ?').run(run.clusterKey, run.connector);
      this.#db.prepare('INSERT INTO locks (cluster_key, cluster_url, connector, run_id, pid, hostname, acquired_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(run.clusterKey, run.clusterUrl, run.connector, runId, process.pid, thisHost(), new Date().toISOString());
      this.#db.prepare('UPDATE runs SET pid = ?, hostname = ? WHERE id = ?').run(process.pid, thisHost(), runId);
    }).immediate();
    return this.getRun(runId);
  }

  /** Records the outcome and releases the lock the run holds. */
  finishRun(runId: string, outcome: { status: Exclude<RunStatus, 'running'>; message?: string; connectorState?: string }): void {
    this.#db.transaction(() => {
      this.#db.prepare('UPDATE runs SET status = ?, finished_at = ?, message = ?, connector_state = ? WHERE id = ?')
        .run(outcome.status, new Date().toISOString(), outcome.message ?? null, outcome.connectorState ?? null, runId);
      this.#db.prepare('DELETE FROM locks WHERE run_id = ?').run(runId);
    })();
  }

  updateRunContext(runId: string, patch: RunContext): void {
    const run = this.getRun(runId);
    this.#db.prepare('UPDATE runs SET context = ? WHERE id = ?').run(JSON.stringify({ ...run.context, ...patch }), runId);
  }

  getRun(runId: string): RunRecord {
    const row = this.#db.prepare('SELECT * FROM runs WHERE id = ?').get(runId) as Row | undefined;
    if (!row) throw new StoreError('E_NOT_FOUND', `no run ${runId} in ${this.file} (list them with \`offsetctl runs\`)`);
    return toRun(row);
  }

  listRuns(filter: { connector?: string; clusterUrl?: string; limit?: number } = {}): RunRecord[] {
    const rows = this.#db.prepare(`SELECT * FROM runs WHERE (? IS NULL OR connector = ?) AND (? IS NULL OR cluster_url = ?)
      ORDER BY started_at DESC, rowid DESC LIMIT ?`)
      .all(filter.connector ?? null, filter.connector ?? null, filter.clusterUrl ?? null, filter.clusterUrl ?? null, filter.limit ?? 1000) as Row[];
    return rows.map(toRun);
  }

  /** The lock on (cluster key, connector); a key is `kafka:<id>` or, for rows of unknown identity, `url:<url>`. */
  lockOf(clusterKey: string, connector: string): LockRecord | undefined {
    const row = this.#db.prepare('SELECT * FROM locks WHERE cluster_key = ? AND connector = ?').get(clusterKey, connector) as Row | undefined;
    if (!row) return undefined;
    const pid = Number(row.pid);
    const host = String(row.hostname);
    return {
      clusterKey, clusterUrl: String(row.cluster_url), connector, runId: String(row.run_id), pid, hostname: host, acquiredAt: String(row.acquired_at),
      alive: host !== thisHost() || isProcessAlive(pid),
    };
  }

  // ---- the journal ------------------------------------------------------------------

  recordStep(runId: string, step: Omit<StepRecord, 'seq'>): void {
    this.#db.transaction(() => {
      const seq = this.#nextSeq('run_steps', runId);
      this.#db.prepare('INSERT INTO run_steps (run_id, seq, workflow_id, step_id, status, outputs, error, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(runId, seq, step.workflowId, step.stepId, step.status, JSON.stringify(redactValue(step.outputs) ?? {}), step.error ? JSON.stringify(step.error) : null, step.finishedAt);
      if (step.status === 'passed') this.#db.prepare('UPDATE runs SET last_step = ? WHERE id = ?').run(step.stepId, runId);
    })();
  }

  recordEvent(runId: string, event: Omit<EventRecord, 'seq'>): void {
    const seq = this.#nextSeq('run_events', runId);
    this.#db.prepare('INSERT INTO run_events (run_id, seq, at, type, step_id, detail) VALUES (?, ?, ?, ?, ?, ?)')
      .run(runId, seq, event.at, event.type, event.stepId ?? null, JSON.stringify(redactValue(event.detail)));
  }

  stepsOf(runId: string): StepRecord[] {
    const rows = this.#db.prepare('SELECT * FROM run_steps WHERE run_id = ? ORDER BY seq').all(runId) as Row[];
    return rows.map((r) => ({
      seq: Number(r.seq), workflowId: String(r.workflow_id), stepId: String(r.step_id),
      status: r.status === 'passed' ? 'passed' : 'failed',
      outputs: JSON.parse(String(r.outputs)) as Record<string, unknown>,
      ...(r.error ? { error: JSON.parse(String(r.error)) as StepRecord['error'] } : {}),
      finishedAt: String(r.finished_at),
    }));
  }

  eventsOf(runId: string): EventRecord[] {
    const rows = this.#db.prepare('SELECT * FROM run_events WHERE run_id = ? ORDER BY seq').all(runId) as Row[];
    return rows.map((r) => ({
      seq: Number(r.seq), at: String(r.at), type: String(r.type),
      ...(r.step_id ? { stepId: String(r.step_id) } : {}),
      detail: JSON.parse(String(r.detail)) as Record<string, unknown>,
    }));
  }

  // ---- snapshots --------------------------------------------------------------------

  saveSnapshot(snapshot: NewSnapshot, now: Date = new Date()): SnapshotRecord {
    const record: SnapshotRecord = { ...snapshot, clusterKey: snapshot.clusterKey ?? urlKey(snapshot.clusterUrl), id: newId('snap', now), partitions: snapshot.offsets.length, takenAt: now.toISOString() };
    this.#db.pragma('synchronous = FULL');
    try {
      this.#db.prepare(`INSERT INTO snapshots (id, run_id, cluster_url, cluster_key, connector, connector_type, state_before, offsets, partitions, taken_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(record.id, record.runId ?? null, record.clusterUrl, record.clusterKey, record.connector, record.connectorType, record.stateBefore, JSON.stringify(record.offsets), record.partitions, record.takenAt);
    } finally {
      this.#db.pragma('synchronous = NORMAL');
    }
    return record;
  }

  getSnapshot(id: string): SnapshotRecord {
    const row = this.#db.prepare('SELECT * FROM snapshots WHERE id = ?').get(id) as Row | undefined;
    if (!row) throw new StoreError('E_NOT_FOUND', `no snapshot ${id} in ${this.file} (list them with \`offsetctl snapshots\`)`);
    return toSnapshot(row, true);
  }

  /** Newest first; offsets are left out (empty array) to keep listings cheap. */
  listSnapshots(filter: { connector?: string; clusterUrl?: string; clusterKeys?: string[] } = {}): SnapshotRecord[] {
    const keys = filter.clusterKeys ?? [];
    const rows = this.#db.prepare(`SELECT id, run_id, cluster_url, cluster_key, connector, connector_type, state_before, '[]' AS offsets, partitions, taken_at
      FROM snapshots WHERE (? IS NULL OR connector = ?) AND (? IS NULL OR cluster_url = ?)
      AND (? = 0 OR cluster_key IN (SELECT value FROM json_each(?))) ORDER BY taken_at DESC, rowid DESC`)
      .all(filter.connector ?? null, filter.connector ?? null, filter.clusterUrl ?? null, filter.clusterUrl ?? null, keys.length, JSON.stringify(keys)) as Row[];
    return rows.map((r) => toSnapshot(r, false));
  }

  latestSnapshot(clusterUrl: string, connector: string): SnapshotRecord | undefined {
    const row = this.#db.prepare('SELECT * FROM snapshots WHERE cluster_url = ? AND connector = ? ORDER BY taken_at DESC, rowid DESC LIMIT 1')
      .get(clusterUrl, connector) as Row | undefined;
    return row ? toSnapshot(row, true) : undefined;
  }

  /** Deletes these snapshots (see src/store/prune.ts for which); returns how many went. */
  deleteSnapshots(ids: string[]): number {
    const del = this.#db.prepare('DELETE FROM snapshots WHERE id = ?');
    return this.#db.transaction(() => ids.reduce((n, id) => n + del.run(id).changes, 0))();
  }

  #nextSeq(table: 'run_steps' | 'run_events', runId: string): number {
    const row = this.#db.prepare(`SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM ${table} WHERE run_id = ?`).get(runId) as { next: number };
    return row.next;
  }
}

function lockedError(held: LockRecord): StoreError {
  const who = `run ${held.runId} (pid ${held.pid} on ${held.hostname}, since ${held.acquiredAt})`;
  if (held.alive) {
    return new StoreError('E_LOCKED', `connector ${held.connector} on ${describeKey(held)} is busy: ${who} is working on it. Wait for it to finish, or inspect it with \`offsetctl runs show ${held.runId}\`.`);
  }
  return new StoreError('E_LOCKED', `connector ${held.connector} on ${describeKey(held)} has a stale lock: ${who} died before finishing. Inspect it with \`offsetctl runs show ${held.runId}\`, then finish it with \`offsetctl runs resume ${held.runId}\` or undo it with \`offsetctl rollback ${held.connector}\`.`);
}

/** `cluster TKT… (run started through http://…)`, or the URL alone when the identity is unknown. */
function describeKey(held: LockRecord): string {
  return held.clusterKey.startsWith('kafka:') ? `Kafka cluster ${held.clusterKey.slice(6)} (locked through ${held.clusterUrl})` : held.clusterUrl;
}

function toRun(r: Row): RunRecord {
  const status = String(r.status) as RunStatus;
  const pid = Number(r.pid);
  const host = String(r.hostname);
  const interrupted = status === 'running' && host === thisHost() && !isProcessAlive(pid);
  return {
    id: String(r.id), clusterUrl: String(r.cluster_url), clusterKey: String(r.cluster_key || urlKey(String(r.cluster_url))), connector: String(r.connector),
    operation: String(r.operation) as RunRecord['operation'], status,
    displayStatus: interrupted ? 'interrupted' : status,
    startedAt: String(r.started_at),
    ...(r.finished_at ? { finishedAt: String(r.finished_at) } : {}),
    workflowFile: String(r.workflow_file), workflowId: String(r.workflow_id),
    inputs: JSON.parse(String(r.inputs)) as Record<string, unknown>,
    ...(r.last_step ? { lastStep: String(r.last_step) } : {}),
    pid, hostname: host,
    ...(r.message ? { message: String(r.message) } : {}),
    ...(r.connector_state ? { connectorState: String(r.connector_state) } : {}),
    context: JSON.parse(String(r.context)) as RunContext,
  };
}

function toSnapshot(r: Row, withOffsets: boolean): SnapshotRecord {
  return {
    id: String(r.id),
    ...(r.run_id ? { runId: String(r.run_id) } : {}),
    clusterUrl: String(r.cluster_url), clusterKey: String(r.cluster_key || urlKey(String(r.cluster_url))), connector: String(r.connector),
    connectorType: r.connector_type === 'sink' ? 'sink' : 'source',
    stateBefore: String(r.state_before),
    offsets: withOffsets ? (JSON.parse(String(r.offsets)) as unknown[]) : [],
    partitions: Number(r.partitions), takenAt: String(r.taken_at),
  };
}
