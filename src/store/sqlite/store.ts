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
import { actorOf, parseActor } from '../actor.js';
import { StoreError } from '../errors.js';
import { newId, urlKey } from '../ids.js';
import { stepFromRow } from '../rows.js';
import { importStore } from '../import.js';
import { isGroupKey } from '../lock-scope.js';
import { lockedError } from '../lock-text.js';
import { localHolderAlive, thisProcess } from '../process.js';
import { MIGRATIONS } from './schema.js';
import { openDatabase, type SqliteDatabase } from './driver.js';
import { SqliteAudit } from './audit.js';
import { SqliteBatches } from './batches.js';
import { SqliteChangeRequests } from './change-requests.js';
import { SqlitePolicies } from './policies.js';
import { SqliteSnapshots } from './snapshots.js';
import type { Row, SqliteAccess } from './rows.js';
import type {
  Actor, ActorSource, AuditChainRow, AuditFilter, AuditRecord, BatchRecord, ChangeRequestFilter, ChangeRequestMove, ChangeRequestRecord, EventRecord, ImportCounts, LockHolder, LockRecord,
  NewAuditEntry, NewBatch, NewChangeRequest, NewPolicy, PolicyRecord, NewRun, NewSnapshot, RunContext, RunFilter, RunOutcome, RunRecord, RunStatus, SnapshotFilter, SnapshotRecord, StepRecord, Store,
  StoreDescription, StoreOptions,
} from '../types.js';

export const STORE_FILE = 'offsetctl.db';

/** Opens (creating when needed) the SQLite store in `stateDir`. */
export function openSqliteStore(stateDir: string, options: StoreOptions = {}): SqliteStore {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  return new SqliteStore(join(stateDir, STORE_FILE), options);
}

type Db = SqliteDatabase;

export class SqliteStore implements Store {
  readonly location: string;
  readonly #db: Db;
  readonly #owner: LockHolder;
  readonly #isAlive: (holder: LockHolder) => boolean;
  readonly #actor: ActorSource;
  readonly #snapshots: SqliteSnapshots;
  readonly #batches: SqliteBatches;
  readonly #audit: SqliteAudit;
  readonly #policies: SqlitePolicies;
  readonly #changeRequests: SqliteChangeRequests;

  constructor(file: string, options: StoreOptions = {}) {
    this.location = file;
    this.#owner = options.owner ?? thisProcess();
    this.#isAlive = options.isAlive ?? localHolderAlive;
    this.#actor = options.actor ?? {};
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
    // What the concern files (snapshots.ts, batches.ts, audit.ts, policies.ts, change-requests.ts) use of this store.
    const access: SqliteAccess = {
      db: this.#db,
      location: file,
      async: (body) => this.#async(body),
      immediate: (body) => this.#immediate(body),
      freshId: (kind, now) => this.#freshId(kind, now),
      actor: (source) => actorOf(this.#owner, { ...this.#actor, ...source }),
    };
    this.#snapshots = new SqliteSnapshots(access);
    this.#batches = new SqliteBatches(access);
    this.#audit = new SqliteAudit(access);
    this.#policies = new SqlitePolicies(access);
    this.#changeRequests = new SqliteChangeRequests(access);
  }

  close(): Promise<void> {
    this.#db.close();
    return Promise.resolve();
  }

  // ---- runs and the lock ------------------------------------------------------------

  beginRun(run: NewRun, options: { takeOverStale?: boolean; now?: Date } = {}): Promise<RunRecord> {
    return this.#async(() => {
      const now = options.now ?? new Date();
      let id = '';
      const at = now.toISOString();
      const owner = this.#owner;
      const key = run.clusterKey ?? urlKey(run.clusterUrl);
      const lockKey = run.lockKey ?? key;
      const actor = JSON.stringify(actorOf(owner, { ...this.#actor, ...run.actor }));
      const context = lockKey !== key ? { ...run.context, lockKey } : (run.context ?? {});
      this.#immediate(() => {
        id = this.#freshId('run', now);
        // Every lock on the same offsets (src/store/lock-scope.ts), and one taken before the store
        // knew cluster identities (keyed by its URL).
        for (const held of this.#conflicting(key, lockKey, urlKey(run.clusterUrl), run.connector)) {
          if (held.alive || !options.takeOverStale) throw lockedError(held);
          this.#db.prepare(`UPDATE runs SET status = 'abandoned', finished_at = ?, message = ? WHERE id = ? AND status = 'running'`)
            .run(at, `interrupted (pid ${held.pid} died); superseded by run ${id}`, held.runId);
          this.#db.prepare('DELETE FROM locks WHERE cluster_key = ? AND connector = ?').run(held.clusterKey, held.connector);
        }
        this.#db.prepare(`INSERT INTO runs (id, cluster_url, cluster_key, connector, operation, status, started_at, workflow_file, workflow_id, inputs, pid, hostname, context, actor)
          VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)`)
          .run(id, run.clusterUrl, key, run.connector, run.operation, at, run.workflowFile, run.workflowId, JSON.stringify(run.inputs), owner.pid, owner.hostname, JSON.stringify(context), actor);
        this.#db.prepare('INSERT INTO locks (cluster_key, cluster_url, connector, run_id, pid, hostname, acquired_at, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
          .run(lockKey, run.clusterUrl, run.connector, id, owner.pid, owner.hostname, at, actor);
      });
      return this.#getRun(id);
    });
  }

  takeOverRun(runId: string, options: { actor?: ActorSource } = {}): Promise<RunRecord> {
    return this.#async(() => {
      const owner = this.#owner;
      const actor = JSON.stringify(actorOf(owner, { ...this.#actor, ...options.actor }));
      this.#immediate(() => {
        const run = this.#getRun(runId);
        if (run.status !== 'running') {
          throw new StoreError('E_LOCKED', `run ${runId} is ${run.status}; only an interrupted run can be resumed`);
        }
        const lockKey = run.context.lockKey ?? run.clusterKey;
        const conflicting = this.#conflicting(run.clusterKey, lockKey, urlKey(run.clusterUrl), run.connector);
        const other = conflicting.find((l) => l.runId !== runId);
        if (other) throw lockedError(other);
        const held = conflicting[0];
        if (held?.alive && !(held.pid === owner.pid && held.hostname === owner.hostname)) throw lockedError(held);
        this.#db.prepare('DELETE FROM locks WHERE run_id = ?').run(runId);
        this.#db.prepare('INSERT INTO locks (cluster_key, cluster_url, connector, run_id, pid, hostname, acquired_at, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
          .run(lockKey, run.clusterUrl, run.connector, runId, owner.pid, owner.hostname, new Date().toISOString(), actor);
        const from = held ? held.actor : run.resumedBy ?? run.actor;
        this.#db.prepare('UPDATE runs SET pid = ?, hostname = ?, resumed_by = ?, taken_over_from = ? WHERE id = ?').run(owner.pid, owner.hostname, actor, JSON.stringify(from), runId);
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
      const keys = filter.clusterKeys;
      const rows = this.#db.prepare(`SELECT * FROM runs WHERE (? IS NULL OR connector = ?) AND (? IS NULL OR cluster_url = ?)
          AND (? IS NULL OR json_extract(context, '$.batchId') = ?) AND (? IS NULL OR cluster_key IN (SELECT value FROM json_each(?)))
        ORDER BY started_at DESC, rowid DESC LIMIT ?`)
        .all(filter.connector ?? null, filter.connector ?? null, filter.clusterUrl ?? null, filter.clusterUrl ?? null, filter.batchId ?? null, filter.batchId ?? null,
          keys ? 1 : null, JSON.stringify(keys ?? []), filter.limit ?? 1000) as Row[];
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
      return rows.map(stepFromRow);
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

  // ---- snapshots, batches, the audit trail, policies, change requests: in their own files ----

  saveSnapshot(snapshot: NewSnapshot, now?: Date): Promise<SnapshotRecord> {
    return this.#snapshots.saveSnapshot(snapshot, now);
  }
  getSnapshot(id: string): Promise<SnapshotRecord> {
    return this.#snapshots.getSnapshot(id);
  }
  listSnapshots(filter?: SnapshotFilter): Promise<SnapshotRecord[]> {
    return this.#snapshots.listSnapshots(filter);
  }
  latestSnapshot(clusterUrl: string, connector: string): Promise<SnapshotRecord | undefined> {
    return this.#snapshots.latestSnapshot(clusterUrl, connector);
  }
  deleteSnapshots(ids: string[]): Promise<number> {
    return this.#snapshots.deleteSnapshots(ids);
  }
  saveBatch(batch: NewBatch): Promise<BatchRecord> {
    return this.#batches.saveBatch(batch);
  }
  getBatch(id: string): Promise<BatchRecord | undefined> {
    return this.#batches.getBatch(id);
  }
  listBatches(): Promise<BatchRecord[]> {
    return this.#batches.listBatches();
  }
  recordAudit(entry: NewAuditEntry, now?: Date): Promise<AuditRecord> {
    return this.#audit.recordAudit(entry, now);
  }
  readAuditChain(afterSeq: number, limit: number): Promise<AuditChainRow[]> {
    return this.#audit.readAuditChain(afterSeq, limit);
  }
  listAudit(filter?: AuditFilter): Promise<AuditRecord[]> {
    return this.#audit.listAudit(filter);
  }
  setPolicy(policy: NewPolicy, now?: Date): Promise<PolicyRecord> {
    return this.#policies.setPolicy(policy, now);
  }
  listPolicies(filter?: { clusterKeys?: string[] }): Promise<PolicyRecord[]> {
    return this.#policies.listPolicies(filter);
  }
  createChangeRequest(request: NewChangeRequest, now?: Date): Promise<ChangeRequestRecord> {
    return this.#changeRequests.createChangeRequest(request, now);
  }
  getChangeRequest(id: string, now?: Date): Promise<ChangeRequestRecord> {
    return this.#changeRequests.getChangeRequest(id, now);
  }
  listChangeRequests(filter?: ChangeRequestFilter, now?: Date): Promise<ChangeRequestRecord[]> {
    return this.#changeRequests.listChangeRequests(filter, now);
  }
  moveChangeRequest(id: string, move: ChangeRequestMove, now?: Date): Promise<ChangeRequestRecord> {
    return this.#changeRequests.moveChangeRequest(id, move, now);
  }

  whoAmI(source: ActorSource = {}): Promise<Actor> {
    return Promise.resolve(actorOf(this.#owner, { ...this.#actor, ...source }));
  }

  listLocks(): Promise<LockRecord[]> {
    return this.#async(() => (this.#db.prepare('SELECT * FROM locks ORDER BY acquired_at').all() as Row[]).map((r) => this.#toLock(r)));
  }

  describe(): Promise<StoreDescription> {
    return this.#async(() => {
      const { user_version: version } = this.#db.prepare('PRAGMA user_version').get() as { user_version: number };
      return { backend: 'sqlite' as const, location: this.location, schemaVersion: Number(version), knownSchemaVersion: MIGRATIONS.length };
    });
  }

  importFrom(source: Store): Promise<ImportCounts> {
    return importStore(source, {
      importRun: (run, steps, events) => this.#async(() => {
        let added = false;
        this.#immediate(() => {
          if (this.#db.prepare('SELECT 1 FROM runs WHERE id = ?').get(run.id)) return;
          added = true;
          this.#db.prepare(`INSERT INTO runs (id, cluster_url, cluster_key, connector, operation, status, started_at, finished_at, workflow_file, workflow_id, inputs, last_step,
              pid, hostname, message, connector_state, context, actor, resumed_by, taken_over_from) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
            .run(run.id, run.clusterUrl, run.clusterKey, run.connector, run.operation, run.status, run.startedAt, run.finishedAt ?? null, run.workflowFile, run.workflowId,
              JSON.stringify(run.inputs), run.lastStep ?? null, run.pid, run.hostname, run.message ?? null, run.connectorState ?? null, JSON.stringify(run.context),
              JSON.stringify(run.actor), run.resumedBy ? JSON.stringify(run.resumedBy) : null, run.takenOverFrom ? JSON.stringify(run.takenOverFrom) : null);
          const step = this.#db.prepare('INSERT INTO run_steps (run_id, seq, workflow_id, step_id, status, outputs, error, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
          for (const s of steps) step.run(run.id, s.seq, s.workflowId, s.stepId, s.status, JSON.stringify(s.outputs), s.error ? JSON.stringify(s.error) : null, s.finishedAt);
          const event = this.#db.prepare('INSERT INTO run_events (run_id, seq, at, type, step_id, detail) VALUES (?, ?, ?, ?, ?, ?)');
          for (const e of events) event.run(run.id, e.seq, e.at, e.type, e.stepId ?? null, JSON.stringify(e.detail));
        });
        return added;
      }),
      importSnapshot: (snap) => this.#async(() => {
        if (this.#db.prepare('SELECT 1 FROM snapshots WHERE id = ?').get(snap.id)) return false;
        this.#db.prepare(`INSERT INTO snapshots (id, run_id, cluster_url, cluster_key, connector, connector_type, state_before, offsets, partitions, taken_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
          .run(snap.id, snap.runId && this.#db.prepare('SELECT 1 FROM runs WHERE id = ?').get(snap.runId) ? snap.runId : null, snap.clusterUrl, snap.clusterKey, snap.connector,
            snap.connectorType, snap.stateBefore, JSON.stringify(snap.offsets), snap.partitions, snap.takenAt);
        return true;
      }),
      importAudit: (entry) => this.#async(() => {
        if (this.#db.prepare('SELECT 1 FROM audit WHERE id = ?').get(entry.id)) return false;
        this.#immediate(() => this.#audit.insertAudit(entry));
        return true;
      }),
      importBatch: (batch) => this.#async(() => this.#db.prepare(`INSERT INTO batches (id, cluster_url, cluster_key, operation, resume_after, members, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`)
        .run(batch.id, batch.clusterUrl, batch.clusterKey, batch.operation, batch.resumeAfter, JSON.stringify(batch.members), batch.createdAt)
        .changes > 0),
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

  /** The connector's lock under `clusterKey` or a narrower key of it (the exact key first). */
  #lockOf(clusterKey: string, connector: string): LockRecord | undefined {
    const row = this.#db.prepare(`SELECT * FROM locks WHERE connector = ? AND (cluster_key = ? OR substr(cluster_key, 1, length(?) + 1) = ? || '#')
      ORDER BY cluster_key = ? DESC, acquired_at LIMIT 1`).get(connector, clusterKey, clusterKey, clusterKey, clusterKey) as Row | undefined;
    return row ? this.#toLock(row) : undefined;
  }

  /**
   * The locks a run on `lockKey` conflicts with (src/store/lock-scope.ts): the same connector under
   * the same key, the wide key or a URL key; under any narrower key when `lockKey` is wide; any
   * connector under a consumer group's key.
   */
  #conflicting(clusterKey: string, lockKey: string, urlLockKey: string, connector: string): LockRecord[] {
    const rows = this.#db.prepare(`SELECT * FROM locks WHERE (connector = @connector AND (cluster_key IN (@lockKey, @clusterKey, @urlLockKey)
        OR (@lockKey = @clusterKey AND substr(cluster_key, 1, length(@clusterKey) + 1) = @clusterKey || '#'))) OR (@group = 1 AND cluster_key = @lockKey)
      ORDER BY acquired_at`).all({ connector, lockKey, clusterKey, urlLockKey, group: isGroupKey(lockKey) ? 1 : 0 }) as Row[];
    return rows.map((r) => this.#toLock(r));
  }

  #toLock(row: Row): LockRecord {
    const holder = { pid: Number(row.pid), hostname: String(row.hostname) };
    return {
      clusterKey: String(row.cluster_key), clusterUrl: String(row.cluster_url), connector: String(row.connector), runId: String(row.run_id), ...holder,
      acquiredAt: String(row.acquired_at), actor: parseActor(row.actor, holder.pid, holder.hostname), alive: this.#isAlive(holder),
    };
  }

  /**
   * An id no row has yet: ids carry the second and 4 random hex digits, so runs opened many per
   * second (a batch, the benchmark's 10,000) can draw one twice (seen: UNIQUE constraint failed).
   */
  #freshId(kind: 'run' | 'snap' | 'chg', now: Date): string {
    const taken = this.#db.prepare(kind === 'run' ? 'SELECT 1 FROM runs WHERE id = ?' : kind === 'snap' ? 'SELECT 1 FROM snapshots WHERE id = ?' : 'SELECT 1 FROM change_requests WHERE id = ?');
    for (;;) {
      const id = newId(kind, now);
      if (!taken.get(id)) return id;
    }
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
      actor: parseActor(r.actor, holder.pid, holder.hostname),
      ...(r.resumed_by ? { resumedBy: parseActor(r.resumed_by, holder.pid, holder.hostname) } : {}),
      ...(r.taken_over_from ? { takenOverFrom: parseActor(r.taken_over_from, holder.pid, holder.hostname) } : {}),
      ...(r.message ? { message: String(r.message) } : {}),
      ...(r.connector_state ? { connectorState: String(r.connector_state) } : {}),
      context: JSON.parse(String(r.context)) as RunContext,
    };
  }
}
