// The SQLite backend of the Store: runs, their journal, snapshots and the per-connector lock in
// one file. Every call into the SQLite driver is in this file, and only prepare(sql).run/get/all,
// exec and close are used; ./sqlite.ts picks the driver (node:sqlite on Node 22.13+, better-sqlite3
// otherwise) behind that small surface.
//
// Writes are synchronous in WAL mode: once a call returns, the row survives a kill -9 of this
// process (the WAL is written before the commit returns). The journal runs with
// synchronous=NORMAL; a snapshot is committed with synchronous=FULL, which fsyncs the WAL — that
// snapshot and everything journaled before it — so the snapshot that guards a PATCH/DELETE
// survives even a machine crash the instant after.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { StoreError } from './errors.js';
import { newId } from './ids.js';
import { localHolderAlive, thisProcess } from './process.js';
import { MIGRATIONS, urlKey } from './schema.js';
import { openDatabase, type SqliteDatabase } from './sqlite.js';
import type {
  EventRecord, LockHolder, LockRecord, NewRun, NewSnapshot, RunContext, RunFilter, RunOutcome, RunRecord, RunStatus,
  SnapshotFilter, SnapshotRecord, StepRecord, Store, StoreOptions,
} from './types.js';

export const STORE_FILE = 'offsetctl.db';

/** Opens (creating when needed) the SQLite store in `stateDir`. */
export function openSqliteStore(stateDir: string, options: StoreOptions = {}): SqliteStore {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  return new SqliteStore(join(stateDir, STORE_FILE), options);
}

type Row = Record<string, unknown>;
type Db = SqliteDatabase;

export class SqliteStore implements Store {
  readonly location: string;
  readonly #db: Db;
  readonly #owner: LockHolder;
  readonly #isAlive: (holder: LockHolder) => boolean;

  constructor(file: string, options: StoreOptions = {}) {
    this.location = file;
    this.#owner = options.owner ?? thisProcess();
    this.#isAlive = options.isAlive ?? localHolderAlive;
    try {
      this.#db = openDatabase(file);
      this.#db.exec('PRAGMA busy_timeout = 5000');
      this.#useWal();
      this.#db.exec('PRAGMA synchronous = NORMAL');
      this.#db.exec('PRAGMA foreign_keys = ON');
      this.#migrate();
    } catch (err) {
      throw new StoreError('E_STORE', `cannot open the state store ${file}: ${(err as Error).message} (check the state folder and its permissions)`, { cause: err });
    }
  }

  close(): Promise<void> {
    this.#db.close();
    return Promise.resolve();
  }

  // ---- runs and the lock ------------------------------------------------------------

  beginRun(run: NewRun, options: { takeOverStale?: boolean; now?: Date } = {}): Promise<RunRecord> {
    return this.#async(() => {
      const now = options.now ?? new Date();
      const id = newId('run', now);
      const at = now.toISOString();
      const owner = this.#owner;
      const key = run.clusterKey ?? urlKey(run.clusterUrl);
      this.#immediate(() => {
        // A lock taken before the store knew cluster identities is keyed by its URL: it counts too.
        for (const lockKey of new Set([key, urlKey(run.clusterUrl)])) {
          const held = this.#lockOf(lockKey, run.connector);
          if (!held) continue;
          if (held.alive || !options.takeOverStale) throw lockedError(held);
          this.#db.prepare(`UPDATE runs SET status = 'abandoned', finished_at = ?, message = ? WHERE id = ? AND status = 'running'`)
            .run(at, `interrupted (pid ${held.pid} died); superseded by run ${id}`, held.runId);
          this.#db.prepare('DELETE FROM locks WHERE cluster_key = ? AND connector = ?').run(lockKey, run.connector);
        }
        this.#db.prepare(`INSERT INTO runs (id, cluster_url, cluster_key, connector, operation, status, started_at, workflow_file, workflow_id, inputs, pid, hostname, context)
          VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)`)
          .run(id, run.clusterUrl, key, run.connector, run.operation, at, run.workflowFile, run.workflowId, JSON.stringify(run.inputs), owner.pid, owner.hostname, JSON.stringify(run.context ?? {}));
        this.#db.prepare('INSERT INTO locks (cluster_key, cluster_url, connector, run_id, pid, hostname, acquired_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
          .run(key, run.clusterUrl, run.connector, id, owner.pid, owner.hostname, at);
      });
      return this.#getRun(id);
    });
  }

  takeOverRun(runId: string): Promise<RunRecord> {
    return this.#async(() => {
      const owner = this.#owner;
      this.#immediate(() => {
        const run = this.#getRun(runId);
        if (run.status !== 'running') {
          throw new StoreError('E_LOCKED', `run ${runId} is ${run.status}; only an interrupted run can be resumed`);
        }
        const held = this.#lockOf(run.clusterKey, run.connector);
        if (held && held.alive && !(held.pid === owner.pid && held.hostname === owner.hostname)) throw lockedError(held);
        if (held && held.runId !== runId) throw lockedError(held);
        this.#db.prepare('DELETE FROM locks WHERE cluster_key = ? AND connector = ?').run(run.clusterKey, run.connector);
        this.#db.prepare('INSERT INTO locks (cluster_key, cluster_url, connector, run_id, pid, hostname, acquired_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
          .run(run.clusterKey, run.clusterUrl, run.connector, runId, owner.pid, owner.hostname, new Date().toISOString());
        this.#db.prepare('UPDATE runs SET pid = ?, hostname = ? WHERE id = ?').run(owner.pid, owner.hostname, runId);
      });
      return this.#getRun(runId);
    });
  }

  finishRun(runId: string, outcome: RunOutcome): Promise<void> {
    return this.#async(() => {
      this.#immediate(() => {
        this.#db.prepare('UPDATE runs SET status = ?, finished_at = ?, message = ?, connector_state = ? WHERE id = ?')
          .run(outcome.status, new Date().toISOString(), outcome.message ?? null, outcome.connectorState ?? null, runId);
        this.#db.prepare('DELETE FROM locks WHERE run_id = ?').run(runId);
      });
    });
  }

  updateRunContext(runId: string, patch: RunContext): Promise<void> {
    return this.#async(() => {
      this.#immediate(() => {
        const run = this.#getRun(runId);
        this.#db.prepare('UPDATE runs SET context = ? WHERE id = ?').run(JSON.stringify({ ...run.context, ...patch }), runId);
      });
    });
  }

  getRun(runId: string): Promise<RunRecord> {
    return this.#async(() => this.#getRun(runId));
  }

  listRuns(filter: RunFilter = {}): Promise<RunRecord[]> {
    return this.#async(() => {
      const rows = this.#db.prepare(`SELECT * FROM runs WHERE (? IS NULL OR connector = ?) AND (? IS NULL OR cluster_url = ?)
          AND (? IS NULL OR json_extract(context, '$.batchId') = ?)
        ORDER BY started_at DESC, rowid DESC LIMIT ?`)
        .all(filter.connector ?? null, filter.connector ?? null, filter.clusterUrl ?? null, filter.clusterUrl ?? null, filter.batchId ?? null, filter.batchId ?? null, filter.limit ?? 1000) as Row[];
      return rows.map((r) => this.#toRun(r));
    });
  }

  lockOf(clusterKey: string, connector: string): Promise<LockRecord | undefined> {
    return this.#async(() => this.#lockOf(clusterKey, connector));
  }

  // ---- the journal ------------------------------------------------------------------

  recordStep(runId: string, step: Omit<StepRecord, 'seq'>): Promise<void> {
    return this.#async(() => {
      this.#immediate(() => {
        const seq = this.#nextSeq('run_steps', runId);
        this.#db.prepare('INSERT INTO run_steps (run_id, seq, workflow_id, step_id, status, outputs, error, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
          .run(runId, seq, step.workflowId, step.stepId, step.status, JSON.stringify(step.outputs ?? {}), step.error ? JSON.stringify(step.error) : null, step.finishedAt);
        if (step.status === 'passed') this.#db.prepare('UPDATE runs SET last_step = ? WHERE id = ?').run(step.stepId, runId);
      });
    });
  }

  recordEvent(runId: string, event: Omit<EventRecord, 'seq'>): Promise<void> {
    return this.recordEvents(runId, [event]);
  }

  recordEvents(runId: string, events: ReadonlyArray<Omit<EventRecord, 'seq'>>): Promise<void> {
    return this.#async(() => {
      if (events.length === 0) return;
      this.#immediate(() => {
        let seq = this.#nextSeq('run_events', runId);
        const insert = this.#db.prepare('INSERT INTO run_events (run_id, seq, at, type, step_id, detail) VALUES (?, ?, ?, ?, ?, ?)');
        for (const event of events) insert.run(runId, seq++, event.at, event.type, event.stepId ?? null, JSON.stringify(event.detail));
      });
    });
  }

  stepsOf(runId: string): Promise<StepRecord[]> {
    return this.#async(() => {
      const rows = this.#db.prepare('SELECT * FROM run_steps WHERE run_id = ? ORDER BY seq').all(runId) as Row[];
      return rows.map((r) => ({
        seq: Number(r.seq), workflowId: String(r.workflow_id), stepId: String(r.step_id),
        status: r.status === 'passed' ? 'passed' as const : 'failed' as const,
        outputs: JSON.parse(String(r.outputs)) as Record<string, unknown>,
        ...(r.error ? { error: JSON.parse(String(r.error)) as StepRecord['error'] } : {}),
        finishedAt: String(r.finished_at),
      }));
    });
  }

  eventsOf(runId: string): Promise<EventRecord[]> {
    return this.#async(() => {
      const rows = this.#db.prepare('SELECT * FROM run_events WHERE run_id = ? ORDER BY seq').all(runId) as Row[];
      return rows.map((r) => ({
        seq: Number(r.seq), at: String(r.at), type: String(r.type),
        ...(r.step_id ? { stepId: String(r.step_id) } : {}),
        detail: JSON.parse(String(r.detail)) as Record<string, unknown>,
      }));
    });
  }

  // ---- snapshots --------------------------------------------------------------------

  saveSnapshot(snapshot: NewSnapshot, now: Date = new Date()): Promise<SnapshotRecord> {
    return this.#async(() => {
      const record: SnapshotRecord = { ...snapshot, clusterKey: snapshot.clusterKey ?? urlKey(snapshot.clusterUrl), id: newId('snap', now), partitions: snapshot.offsets.length, takenAt: now.toISOString() };
      this.#db.exec('PRAGMA synchronous = FULL');
      try {
        this.#db.prepare(`INSERT INTO snapshots (id, run_id, cluster_url, cluster_key, connector, connector_type, state_before, offsets, partitions, taken_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
          .run(record.id, record.runId ?? null, record.clusterUrl, record.clusterKey, record.connector, record.connectorType, record.stateBefore, JSON.stringify(record.offsets), record.partitions, record.takenAt);
      } finally {
        this.#db.exec('PRAGMA synchronous = NORMAL');
      }
      return record;
    });
  }

  getSnapshot(id: string): Promise<SnapshotRecord> {
    return this.#async(() => {
      const row = this.#db.prepare('SELECT * FROM snapshots WHERE id = ?').get(id) as Row | undefined;
      if (!row) throw new StoreError('E_NOT_FOUND', `no snapshot ${id} in ${this.location} (list them with \`offsetctl snapshots\`)`);
      return toSnapshot(row, true);
    });
  }

  listSnapshots(filter: SnapshotFilter = {}): Promise<SnapshotRecord[]> {
    return this.#async(() => {
      const keys = filter.clusterKeys;
      const rows = this.#db.prepare(`SELECT id, run_id, cluster_url, cluster_key, connector, connector_type, state_before, '[]' AS offsets, partitions, taken_at
        FROM snapshots WHERE (? IS NULL OR connector = ?) AND (? IS NULL OR cluster_url = ?)
        AND (? IS NULL OR cluster_key IN (SELECT value FROM json_each(?))) ORDER BY taken_at DESC, rowid DESC`)
        .all(filter.connector ?? null, filter.connector ?? null, filter.clusterUrl ?? null, filter.clusterUrl ?? null,
          keys ? 1 : null, JSON.stringify(keys ?? [])) as Row[];
      return rows.map((r) => toSnapshot(r, false));
    });
  }

  latestSnapshot(clusterUrl: string, connector: string): Promise<SnapshotRecord | undefined> {
    return this.#async(() => {
      const row = this.#db.prepare('SELECT * FROM snapshots WHERE cluster_url = ? AND connector = ? ORDER BY taken_at DESC, rowid DESC LIMIT 1')
        .get(clusterUrl, connector) as Row | undefined;
      return row ? toSnapshot(row, true) : undefined;
    });
  }

  deleteSnapshots(ids: string[]): Promise<number> {
    return this.#async(() => {
      const del = this.#db.prepare('DELETE FROM snapshots WHERE id = ?');
      let deleted = 0;
      this.#immediate(() => {
        for (const id of ids) deleted += Number(del.run(id).changes);
      });
      return deleted;
    });
  }

  // ---- internals ----------------------------------------------------------------------

  /** Runs a synchronous body and hands its result (or error) over as a promise. */
  #async<T>(body: () => T): Promise<T> {
    try {
      return Promise.resolve(body());
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  /**
   * A write transaction that takes the write lock up front (BEGIN IMMEDIATE), so a concurrent
   * writer waits for busy_timeout instead of failing when a read would upgrade to a write.
   */
  #immediate(body: () => void): void {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      body();
      this.#db.exec('COMMIT');
    } catch (err) {
      // SQLite rolls back on its own after some errors (SQLITE_FULL, SQLITE_IOERR): a ROLLBACK
      // then throws "no transaction is active" and would hide the real cause ("disk is full").
      try {
        this.#db.exec('ROLLBACK');
      } catch {
        // Already rolled back by SQLite itself: the original error is the one to report.
      }
      throw err;
    }
  }

  /**
   * WAL mode (readers never wait for the writer). Switching a new file to it needs the file to
   * itself for a moment, and SQLite answers "database is locked" at once, busy timeout or not,
   * while another process opening the same new state folder does the same: retried until 5 s
   * after the first try. A lock another program holds is waited for by the busy timeout (5 s)
   * inside the first try, so that case still fails after 5 s, as documented.
   */
  #useWal(): void {
    const deadline = Date.now() + 5_000;
    for (;;) {
      try {
        this.#db.exec('PRAGMA journal_mode = WAL');
        return;
      } catch (err) {
        if (!/database is locked/i.test((err as Error).message) || Date.now() >= deadline) throw err;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20); // a synchronous 20 ms pause
      }
    }
  }

  #migrate(): void {
    const schemaVersion = (): number => {
      const { user_version: version } = this.#db.prepare('PRAGMA user_version').get() as { user_version: number };
      // A newer offsetctl changed the tables: writing with the old layout would fail half-way or,
      // worse, write rows the newer version misreads.
      if (version > MIGRATIONS.length) {
        throw new Error(`it was written by a newer offsetctl (store schema ${version}, this version knows up to ${MIGRATIONS.length}); use that version, or another state folder`);
      }
      return version;
    };
    if (schemaVersion() === MIGRATIONS.length) return;
    for (let pending = true; pending;) {
      this.#immediate(() => {
        // Read again under the write lock: another process opening the same new state folder
        // (a `runs` beside a rewind, a fleet) may have applied this migration meanwhile.
        const version = schemaVersion();
        pending = version < MIGRATIONS.length;
        if (!pending) return;
        this.#db.exec(MIGRATIONS[version]!);
        this.#db.exec(`PRAGMA user_version = ${version + 1}`);
      });
    }
  }

  #getRun(runId: string): RunRecord {
    const row = this.#db.prepare('SELECT * FROM runs WHERE id = ?').get(runId) as Row | undefined;
    if (!row) throw new StoreError('E_NOT_FOUND', `no run ${runId} in ${this.location} (list them with \`offsetctl runs\`)`);
    return this.#toRun(row);
  }

  #lockOf(clusterKey: string, connector: string): LockRecord | undefined {
    const row = this.#db.prepare('SELECT * FROM locks WHERE cluster_key = ? AND connector = ?').get(clusterKey, connector) as Row | undefined;
    if (!row) return undefined;
    const holder = { pid: Number(row.pid), hostname: String(row.hostname) };
    return { clusterKey, clusterUrl: String(row.cluster_url), connector, runId: String(row.run_id), ...holder, acquiredAt: String(row.acquired_at), alive: this.#isAlive(holder) };
  }

  #nextSeq(table: 'run_steps' | 'run_events', runId: string): number {
    const row = this.#db.prepare(`SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM ${table} WHERE run_id = ?`).get(runId) as { next: number };
    return row.next;
  }

  #toRun(r: Row): RunRecord {
    const status = String(r.status) as RunStatus;
    const holder = { pid: Number(r.pid), hostname: String(r.hostname) };
    const interrupted = status === 'running' && !this.#isAlive(holder);
    return {
      id: String(r.id), clusterUrl: String(r.cluster_url), clusterKey: String(r.cluster_key || urlKey(String(r.cluster_url))), connector: String(r.connector),
      operation: String(r.operation) as RunRecord['operation'], status,
      displayStatus: interrupted ? 'interrupted' : status,
      startedAt: String(r.started_at),
      ...(r.finished_at ? { finishedAt: String(r.finished_at) } : {}),
      workflowFile: String(r.workflow_file), workflowId: String(r.workflow_id),
      inputs: JSON.parse(String(r.inputs)) as Record<string, unknown>,
      ...(r.last_step ? { lastStep: String(r.last_step) } : {}),
      ...holder,
      ...(r.message ? { message: String(r.message) } : {}),
      ...(r.connector_state ? { connectorState: String(r.connector_state) } : {}),
      context: JSON.parse(String(r.context)) as RunContext,
    };
  }
}

function lockedError(held: LockRecord): StoreError {
  const who = `run ${held.runId} (pid ${held.pid} on ${held.hostname}, since ${held.acquiredAt})`;
  if (held.alive) {
    return new StoreError('E_LOCKED', `connector ${held.connector} on ${describeKey(held)} is busy: ${who} is working on it. Wait for it to finish, or inspect it with \`offsetctl runs show ${held.runId}\`.`);
  }
  return new StoreError('E_LOCKED', `connector ${held.connector} on ${describeKey(held)} has a stale lock: ${who} died before finishing. Inspect it with \`offsetctl runs show ${held.runId}\`, then finish it with \`offsetctl runs resume ${held.runId}\` or undo it with \`offsetctl rollback ${held.connector}\`.`);
}

/** `Kafka cluster <id> (locked through http://…)`, or the URL alone when the identity is unknown. */
function describeKey(held: LockRecord): string {
  return held.clusterKey.startsWith('kafka:') ? `Kafka cluster ${held.clusterKey.slice(6)} (locked through ${held.clusterUrl})` : held.clusterUrl;
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
