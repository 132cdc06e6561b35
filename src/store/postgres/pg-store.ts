// The team store: the Store on PostgreSQL, shared by every operator and host. Same contract as
// the SQLite backend (test/store/contract.ts), plus what only a shared store must get right
// (test/store/shared-contract.ts):
//
// - The lock is a row in `locks`, taken in the transaction that opens the run (the primary key
//   on (cluster key, connector) decides a race). It carries a lease whose times come from the
//   server's clock (`now()`), renewed by this process every third of its length while it holds
//   the run. A holder whose lease has passed counts as gone: its run reads `interrupted`, and
//   `runs resume`/`rollback` from any machine may take it over. A live lease is never taken over.
// - Fencing: the write made just before a run's change step (updateRunContext) and finishRun
//   succeed only while this process still holds the run's lock, so a process that was paused
//   past its lease (a laptop lid closed) and lost its run to a colleague cannot change offsets.
// - Durability: every write is a committed transaction. What guards a change (the run and its
//   lock, the snapshot, the context before the change step, the end) is flushed to the server's
//   WAL before the promise resolves; journal lines commit asynchronously (see recordStep).
// - Identity: the database login (session_user, authenticated by the server) goes into every
//   actor; the client never sends a name the server records as a user.
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreError } from '../errors.js';
import { newId } from '../ids.js';
import { stepFromRow } from '../rows.js';
import { importStore } from '../import.js';
import { actorOf, actorName } from '../actor.js';
import { isGroupKey } from '../lock-scope.js';
import { lockedError } from '../lock-text.js';
import { thisProcess } from '../process.js';
import { urlKey } from '../ids.js';
import type {
  SharedConsoleState,
  Actor, ActorSource, AuditChainRow, AuditFilter, AuditRecord, BatchRecord, ChangeRequestFilter, ChangeRequestMove, ChangeRequestRecord, EventRecord, ImportCounts, LockHolder,
  LockRecord, NewAuditEntry, NewBatch, NewPolicy, PolicyRecord,
  NewChangeRequest, NewRun, NewSnapshot, RunContext, RunFilter, RunOutcome, RunRecord, RunStatus,
  SnapshotFilter, SnapshotRecord, StepRecord, Store, StoreDescription, StoreOptions,
} from '../types.js';
import type { PgSettings } from './connection.js';
import { loadPg, type PgClient, type PgPass, type PgPool } from './driver.js';
import { CREATE_SCHEMA_TABLE, MIGRATION_LOCK_KEY, PG_MIGRATIONS, SCHEMA_TABLE } from './migrations.js';
import { PgAudit } from './audit.js';
import { PgBatches } from './batches.js';
import { PgChangeRequests } from './change-requests.js';
import { pgConsoleState } from './console-state.js';
import { PgPolicies } from './policies.js';
import { PgSnapshots } from './snapshots.js';
import { IdTaken, LOCK_SELECT, RUN_SELECT, iso, quoteIdent, type PgAccess, type Row } from './rows.js';


export interface PostgresStoreOptions extends StoreOptions {
  /** How long a lock's lease lasts without renewal (seconds; default 30). */
  leaseSeconds?: number;
  /** Apply pending migrations on open (default); false: refuse a store that is not current (`store status`). */
  migrate?: boolean;
}

/** What opening did to the schema (`offsetctl store migrate`). */
export interface MigrationReport {
  from: number;
  to: number;
}

const DEFAULT_LEASE_SECONDS = 30;

export class PostgresStore implements Store {
  readonly location: string;
  readonly #settings: PgSettings;
  readonly #pool: PgPool;
  readonly #owner: LockHolder;
  readonly #isAlive: (holder: LockHolder) => boolean;
  readonly #actorSource: ActorSource;
  readonly #leaseSeconds: number;
  readonly #ready: Promise<void>;
  /** Renewal timers of the runs this store holds, by run id. */
  readonly #leases = new Map<string, NodeJS.Timeout>();
  /** Runs whose lock this store found taken from it (a renewal matched no row). */
  readonly #lost = new Set<string>();
  /** Writes to one run go one after the other (their sequence numbers are MAX + 1). */
  readonly #runQueues = new Map<string, Promise<unknown>>();
  #dbUser = '';
  #serverVersion = '';
  #schemaVersion = 0;
  migration: MigrationReport = { from: 0, to: 0 };
  #closed = false;
  #unmigrated: StoreError | undefined;
  #tls = 'none';

  constructor(settings: PgSettings, options: PostgresStoreOptions = {}) {
    this.#settings = settings;
    this.location = settings.display;
    this.#owner = options.owner ?? thisProcess();
    // The lease decides; a test's liveness check can declare a holder gone sooner.
    this.#isAlive = options.isAlive ?? (() => true);
    this.#actorSource = options.actor ?? {};
    this.#leaseSeconds = options.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
    const { Pool, pgpass } = loadPg();
    this.#pool = new Pool({
      host: settings.host, port: settings.port, user: settings.user, database: settings.database,
      // libpq's order: the given password (--store-password-env), else PGPASSWORD, else .pgpass.
      password: settings.password ?? (() => passwordFromEnvOrFile(settings, pgpass)),
      ssl: settings.ssl, application_name: settings.application_name,
      max: 4, idleTimeoutMillis: 10_000, connectionTimeoutMillis: 10_000, keepAlive: true,
      statement_timeout: settings.statementTimeoutMs,
      // A server that vanished without closing the connection never answers: the client gives up too.
      query_timeout: settings.statementTimeoutMs + 5_000,
      // A transaction left open by a process killed mid-way (or cut off) releases its row locks.
      // Sessions commit asynchronously (journal lines, lease renewals: see recordStep); every
      // transaction that guards a change turns synchronous commit on for itself (#tx).
      options: '-c synchronous_commit=off -c idle_in_transaction_session_timeout=60000',
    });
    // An idle connection the server dropped (a restart, a crash): the next query opens a new one.
    this.#pool.on('error', () => undefined);
    this.#ready = this.#open(options.migrate ?? true);
    // Opening errors are reported by the first call (or by ready()); never as an unhandled rejection.
    this.#ready.catch(() => undefined);
  }

  /** Resolves once connected and the schema is current; rejects with the reason it is not. */
  ready(): Promise<void> {
    return this.#ready;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const timer of this.#leases.values()) clearInterval(timer);
    this.#leases.clear();
    await this.#pool.end().catch(() => undefined);
  }

  // ---- opening and the schema ------------------------------------------------------------

  async #open(migrate: boolean): Promise<void> {
    const client = await this.#connect();
    try {
      const who = await client.query<{ u: string; v: string; t: string | null; tls: string | null }>(`SELECT session_user AS u, current_setting('server_version') AS v, to_regclass($1)::text AS t,
        (SELECT CASE WHEN ssl THEN version END FROM pg_stat_ssl WHERE pid = pg_backend_pid()) AS tls`, [SCHEMA_TABLE]);
      this.#dbUser = who.rows[0]!.u;
      this.#serverVersion = who.rows[0]!.v;
      this.#tls = who.rows[0]!.tls ?? 'none';
      const from = who.rows[0]!.t ? await this.#version(client) : 0;
      this.#refuseNewer(from);
      this.migration = { from, to: from };
      if (from === PG_MIGRATIONS.length) return void (this.#schemaVersion = from);
      if (!migrate) {
        // Opened to look (`store status`): it describes itself; anything else is refused until migrated.
        this.#schemaVersion = from;
        this.#unmigrated = new StoreError('E_STORE_SCHEMA', `the team store ${this.location} has schema version ${from}, this offsetctl needs ${PG_MIGRATIONS.length}: run \`offsetctl store migrate --store ${this.location}\``);
        return;
      }
      this.migration = { from, to: await this.#migrate(client) };
      this.#schemaVersion = this.migration.to;
    } catch (err) {
      throw this.#storeError(err, 'open');
    } finally {
      client.release();
    }
  }

  async #version(client: PgClient): Promise<number> {
    const r = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${SCHEMA_TABLE}`);
    return Number(r.rows[0]?.v ?? 0);
  }

  #refuseNewer(version: number): void {
    if (version > PG_MIGRATIONS.length) {
      throw new StoreError('E_STORE_SCHEMA', `the team store ${this.location} has schema version ${version}, written by a newer offsetctl; this one knows up to ${PG_MIGRATIONS.length}: upgrade offsetctl (npm install -g offsetctl@latest) before using this store`);
    }
  }

  /** Applies what is pending under the migration lock; another migrating process waits, then finds nothing to do. */
  async #migrate(client: PgClient): Promise<number> {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
      await this.#actAsDatabaseOwner(client);
      const exists = (await client.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [SCHEMA_TABLE])).rows[0]?.t;
      if (!exists) await client.query(CREATE_SCHEMA_TABLE);
      let version = exists ? await this.#version(client) : 0;
      this.#refuseNewer(version);
      for (; version < PG_MIGRATIONS.length; version += 1) {
        await client.query(PG_MIGRATIONS[version]!);
        await client.query(`INSERT INTO ${SCHEMA_TABLE} (version, offsetctl) VALUES ($1, $2)`, [version + 1, this.#actorSource.version ?? 'unknown']);
      }
      await client.query('COMMIT');
      return version;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      if ((err as { code?: string }).code === '42501') {
        throw new StoreError('E_STORE', `the team store ${this.location} needs migrating, and ${this.#dbUser} may not create tables there (${(err as Error).message}): have the database's owner run \`offsetctl store migrate\`, or make ${this.#dbUser} a member of the owner role (docs/team.md)`, { cause: err });
      }
      throw err;
    }
  }

  /** Tables belong to the database's owner when this login is a member of that role (see migrations.ts). */
  async #actAsDatabaseOwner(client: PgClient): Promise<void> {
    const r = await client.query<{ owner: string; member: boolean }>(`SELECT pg_get_userbyid(datdba) AS owner, pg_has_role(session_user, datdba, 'MEMBER') AS member
      FROM pg_database WHERE datname = current_database()`);
    const row = r.rows[0];
    if (row?.member && row.owner !== this.#dbUser) await client.query(`SET LOCAL ROLE ${quoteIdent(row.owner)}`);
  }

  // ---- runs and the lock --------------------------------------------------------------

  async beginRun(run: NewRun, options: { takeOverStale?: boolean; now?: Date } = {}): Promise<RunRecord> {
    const key = run.clusterKey ?? urlKey(run.clusterUrl);
    const lockKey = run.lockKey ?? key;
    const context = lockKey !== key ? { ...run.context, lockKey } : (run.context ?? {});
    await this.#ready;
    const actor = this.#actor(run.actor);
    for (let attempt = 0; ; attempt += 1) {
      const id = newId('run', options.now ?? new Date());
      try {
        await this.#tx(async (c) => {
          // Keys of one cluster that conflict differ (a wide and a narrow one): the primary key cannot
          // decide their race, so lock-taking on one cluster is serialised for this transaction.
          await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`offsetctl.lock:${key}`]);
          // Every lock on the same offsets (src/store/lock-scope.ts), and one taken before the store
          // knew cluster identities (keyed by its URL).
          for (const held of await this.#conflicting(c, key, lockKey, urlKey(run.clusterUrl), run.connector)) {
            if (held.alive || !options.takeOverStale) throw lockedError(held);
            await c.query(`UPDATE runs SET status = 'abandoned', finished_at = now(), message = $2 WHERE id = $1 AND status = 'running'`,
              [held.runId, `interrupted (${actorName(held.actor)}, pid ${held.pid} on ${held.hostname}, is gone${held.expiresAt ? `: lease expired at ${held.expiresAt}` : ''}); superseded by run ${id} of ${actorName(actor)}`]);
            await c.query('DELETE FROM locks WHERE cluster_key = $1 AND connector = $2', [held.clusterKey, held.connector]);
          }
          await c.query(`INSERT INTO runs (id, cluster_url, cluster_key, connector, operation, status, started_at, workflow_file, workflow_id, inputs, pid, hostname, context, actor)
            VALUES ($1, $2, $3, $4, $5, 'running', COALESCE($6::timestamptz, now()), $7, $8, $9, $10, $11, $12, $13)`,
          [id, run.clusterUrl, key, run.connector, run.operation, options.now?.toISOString() ?? null, run.workflowFile, run.workflowId, JSON.stringify(run.inputs),
            this.#owner.pid, this.#owner.hostname, JSON.stringify(context), JSON.stringify(actor)]);
          const taken = await c.query(`INSERT INTO locks (cluster_key, connector, cluster_url, run_id, pid, hostname, actor, acquired_at, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, now(), now() + make_interval(secs => $8)) ON CONFLICT DO NOTHING RETURNING run_id`,
          [lockKey, run.connector, run.clusterUrl, id, this.#owner.pid, this.#owner.hostname, JSON.stringify(actor), this.#leaseSeconds]);
          if (taken.rowCount === 0) {
            // Another operator's transaction took it between our look and our insert (we waited for it to commit).
            const winner = await this.#lockRow(c, 'l.cluster_key = $1 AND l.connector = $2', [lockKey, run.connector], false);
            throw winner ? lockedError(winner) : new StoreError('E_LOCKED', `connector ${run.connector} was locked by another run at the same moment; try again`);
          }
        });
      } catch (err) {
        // Two ids drawn in one second with the same 4 random digits: draw again.
        if (err instanceof IdTaken && attempt < 5) continue;
        throw err;
      }
      this.#holdLease(id);
      return this.getRun(id);
    }
  }

  async takeOverRun(runId: string, options: { actor?: ActorSource } = {}): Promise<RunRecord> {
    await this.#ready;
    const actor = this.#actor(options.actor);
    await this.#tx(async (c) => {
      const rows = (await c.query('SELECT * FROM runs WHERE id = $1 FOR UPDATE', [runId])).rows;
      if (rows.length === 0) throw this.#noRun(runId);
      const run = rows[0]!;
      if (run.status !== 'running') throw new StoreError('E_LOCKED', `run ${runId} is ${String(run.status)}; only an interrupted run can be resumed`);
      const clusterKey = String(run.cluster_key);
      const lockKey = (run.context as RunContext | null)?.lockKey ?? clusterKey;
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`offsetctl.lock:${clusterKey}`]);
      const conflicting = await this.#conflicting(c, clusterKey, lockKey, urlKey(String(run.cluster_url)), String(run.connector));
      const other = conflicting.find((l) => l.runId !== runId);
      if (other) throw lockedError(other);
      const held = conflicting[0];
      const mine = held !== undefined && held.pid === this.#owner.pid && held.hostname === this.#owner.hostname;
      if (held?.alive && !mine) throw lockedError(held);
      const from = held?.actor ?? (run.resumed_by as Actor | null) ?? (run.actor as Actor);
      await c.query('DELETE FROM locks WHERE run_id = $1', [runId]);
      await c.query(`INSERT INTO locks (cluster_key, connector, cluster_url, run_id, pid, hostname, actor, acquired_at, expires_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, now(), now() + make_interval(secs => $8))`,
      [lockKey, run.connector, run.cluster_url, runId, this.#owner.pid, this.#owner.hostname, JSON.stringify(actor), this.#leaseSeconds]);
      await c.query('UPDATE runs SET pid = $2, hostname = $3, resumed_by = $4, taken_over_from = $5 WHERE id = $1',
        [runId, this.#owner.pid, this.#owner.hostname, JSON.stringify(actor), JSON.stringify(from)]);
    });
    this.#lost.delete(runId);
    this.#holdLease(runId);
    return this.getRun(runId);
  }

  async finishRun(runId: string, outcome: RunOutcome): Promise<void> {
    const finish = (): Promise<void> => this.#forRun(runId, () => this.#tx(async (c) => {
      const updated = await c.query(`UPDATE runs SET status = $2, finished_at = now(), message = $3, connector_state = $4
        WHERE id = $1 AND (status <> 'running' OR (pid = $5 AND hostname = $6))`,
      [runId, outcome.status, outcome.message ?? null, outcome.connectorState ?? null, this.#owner.pid, this.#owner.hostname]);
      if (updated.rowCount === 0) await this.#refuseLostRun(c, runId);
      await c.query('DELETE FROM locks WHERE run_id = $1 AND pid = $2 AND hostname = $3', [runId, this.#owner.pid, this.#owner.hostname]);
    }));
    // The end of a run is what frees its lock: a server that is gone for a moment (restarted,
    // failed over) is waited for, up to one lease, before the run is left to read interrupted.
    const deadline = Date.now() + this.#leaseSeconds * 1000;
    for (;;) {
      try {
        await finish();
        break;
      } catch (err) {
        if (!serverLost(err)) throw err;
        if (Date.now() + FINISH_RETRY_MS > deadline) {
          throw new StoreError('E_STORE', `${(err as Error).message}; tried again for ${this.#leaseSeconds} s (one lease)`, { cause: err });
        }
        await sleep(FINISH_RETRY_MS);
      }
    }
    this.#releaseLease(runId);
  }

  async updateRunContext(runId: string, patch: RunContext): Promise<void> {
    await this.#forRun(runId, () => this.#tx(async (c) => {
      // The fence: a running run's context is written only by the holder of its lock, and each
      // such write renews the lease. ops writes `offsetsMayHaveChanged` here just before the change step.
      const r = await c.query<{ status: string; held: boolean }>(`SELECT r.status, (l.run_id IS NOT NULL) AS held FROM runs r
          LEFT JOIN locks l ON l.run_id = r.id AND l.pid = $2 AND l.hostname = $3 WHERE r.id = $1 FOR UPDATE OF r`,
      [runId, this.#owner.pid, this.#owner.hostname]);
      const row = r.rows[0];
      if (!row) throw this.#noRun(runId);
      if (row.status === 'running' && !row.held) await this.#refuseLostRun(c, runId);
      if (row.held) await c.query('UPDATE locks SET expires_at = now() + make_interval(secs => $2) WHERE run_id = $1', [runId, this.#leaseSeconds]);
      await c.query('UPDATE runs SET context = context || $2::jsonb WHERE id = $1', [runId, JSON.stringify(patch)]);
    }));
  }

  async getRun(runId: string): Promise<RunRecord> {
    const rows = await this.#query(`${RUN_SELECT} WHERE r.id = $1`, [runId]);
    if (rows.length === 0) throw this.#noRun(runId);
    return this.#toRun(rows[0]!);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRecord[]> {
    const rows = await this.#query(`${RUN_SELECT} WHERE ($1::text IS NULL OR r.connector = $1) AND ($2::text IS NULL OR r.cluster_url = $2)
        AND ($3::text IS NULL OR r.context->>'batchId' = $3) AND ($5::text[] IS NULL OR r.cluster_key = ANY($5::text[]))
        ORDER BY r.started_at DESC, r.seq DESC LIMIT $4`,
    [filter.connector ?? null, filter.clusterUrl ?? null, filter.batchId ?? null, filter.limit ?? 1000, filter.clusterKeys ?? null]);
    return rows.map((r) => this.#toRun(r));
  }

  /** The connector's lock under `clusterKey` or a narrower key of it (the exact key first). */
  async lockOf(clusterKey: string, connector: string): Promise<LockRecord | undefined> {
    const rows = await this.#query(`${LOCK_SELECT} WHERE l.connector = $2 AND (l.cluster_key = $1 OR substr(l.cluster_key, 1, length($1) + 1) = $1 || '#')
      ORDER BY l.cluster_key = $1 DESC, l.acquired_at LIMIT 1`, [clusterKey, connector]);
    return rows[0] ? this.#toLock(rows[0]) : undefined;
  }

  /** What the concern files (snapshots.ts, batches.ts, change-requests.ts, console-state.ts) use of this store. */
  readonly #db: PgAccess = {
    query: (text, values) => this.#query(text, values),
    tx: (body) => this.#tx(body),
    ready: () => this.#ready,
    actor: (source) => this.#actor(source),
    location: () => this.location,
    dbUser: () => this.#dbUser,
    actAsDatabaseOwner: (c) => this.#actAsDatabaseOwner(c),
  };
  readonly #snapshots = new PgSnapshots(this.#db);
  readonly #batches = new PgBatches(this.#db);
  readonly #changeRequests = new PgChangeRequests(this.#db);
  readonly #audit = new PgAudit(this.#db);
  readonly #policies = new PgPolicies(this.#db);
  /** Console replicas' shared sessions and jobs (migration 8), previews and failed sign-ins (migration 9). */
  readonly consoleState: SharedConsoleState = pgConsoleState(this.#db);

  async listLocks(): Promise<LockRecord[]> {
    return (await this.#query(`${LOCK_SELECT} ORDER BY l.acquired_at`)).map((r) => this.#toLock(r));
  }

  // ---- the journal --------------------------------------------------------------------

  /**
   * Journal lines commit asynchronously, as the SQLite backend's (synchronous=NORMAL): once the
   * promise resolves the server has them, so a kill -9 of offsetctl loses nothing; a crash of the
   * server itself may lose the last fraction of a second of them (a resume then repeats a step,
   * which the workflows allow). What guards a change is flushed: the run and its lock, the
   * snapshot, the context written before the change step (offsetsMayHaveChanged), the end.
   * Measured: about 4x cheaper per rewind-sized journal (BENCHMARKS.md, figure 11).
   */
  async recordStep(runId: string, step: Omit<StepRecord, 'seq'>): Promise<void> {
    // One statement (one round trip, atomic on its own): the step, and the run's last passed step.
    await this.#forRun(runId, () => this.#journal(`WITH step AS (
        INSERT INTO run_steps (run_id, seq, workflow_id, step_id, status, outputs, error, finished_at)
        SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4, $5, $6, $7 FROM run_steps WHERE run_id = $1 RETURNING seq)
      UPDATE runs SET last_step = $3 WHERE id = $1 AND $4 = 'passed' AND EXISTS (SELECT 1 FROM step)`,
    [runId, step.workflowId, step.stepId, step.status, JSON.stringify(step.outputs ?? {}), step.error ? JSON.stringify(step.error) : null, step.finishedAt]));
  }

  recordEvent(runId: string, event: Omit<EventRecord, 'seq'>): Promise<void> {
    return this.recordEvents(runId, [event]);
  }

  async recordEvents(runId: string, events: ReadonlyArray<Omit<EventRecord, 'seq'>>): Promise<void> {
    if (events.length === 0) return;
    // One statement for the batch: numbered after the run's last event, in the order given.
    await this.#forRun(runId, () => this.#journal(`INSERT INTO run_events (run_id, seq, at, type, step_id, detail)
        SELECT $1, base.n + e.ord, e.at, e.type, e.step_id, e.detail
        FROM (SELECT COALESCE(MAX(seq), 0) AS n FROM run_events WHERE run_id = $1) base,
             unnest($2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS e(at, type, step_id, detail, ord)`,
      [runId, events.map((e) => e.at), events.map((e) => e.type), events.map((e) => e.stepId ?? null), events.map((e) => JSON.stringify(e.detail))]));
  }

  async stepsOf(runId: string): Promise<StepRecord[]> {
    const rows = await this.#query('SELECT * FROM run_steps WHERE run_id = $1 ORDER BY seq', [runId]);
    return rows.map(stepFromRow);
  }

  async eventsOf(runId: string): Promise<EventRecord[]> {
    const rows = await this.#query('SELECT * FROM run_events WHERE run_id = $1 ORDER BY seq', [runId]);
    return rows.map((r) => ({
      seq: Number(r.seq), at: String(r.at), type: String(r.type),
      ...(r.step_id ? { stepId: String(r.step_id) } : {}),
      detail: JSON.parse(String(r.detail)) as Record<string, unknown>,
    }));
  }

  // ---- snapshots, batches, change requests, the audit trail, policies: in their own files --------

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

  // ---- the store itself -------------------------------------------------------------------

  async describe(): Promise<StoreDescription> {
    await this.#ready;
    return { backend: 'postgres', location: this.location, schemaVersion: this.#schemaVersion, knownSchemaVersion: PG_MIGRATIONS.length, dbUser: this.#dbUser, serverVersion: this.#serverVersion, tls: this.#tls };
  }

  importFrom(source: Store): Promise<ImportCounts> {
    return importStore(source, {
      importRun: (run, steps, events) => this.#tx(async (c) => {
        const inserted = await c.query(`INSERT INTO runs (id, cluster_url, cluster_key, connector, operation, status, started_at, finished_at, workflow_file, workflow_id, inputs,
            last_step, pid, hostname, message, connector_state, context, actor, resumed_by, taken_over_from)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20) ON CONFLICT (id) DO NOTHING RETURNING id`,
        [run.id, run.clusterUrl, run.clusterKey, run.connector, run.operation, run.status, run.startedAt, run.finishedAt ?? null, run.workflowFile, run.workflowId,
          JSON.stringify(run.inputs), run.lastStep ?? null, run.pid, run.hostname, run.message ?? null, run.connectorState ?? null, JSON.stringify(run.context),
          JSON.stringify(run.actor), run.resumedBy ? JSON.stringify(run.resumedBy) : null, run.takenOverFrom ? JSON.stringify(run.takenOverFrom) : null]);
        if (inserted.rowCount === 0) return false;
        if (steps.length > 0) {
          await c.query(`INSERT INTO run_steps (run_id, seq, workflow_id, step_id, status, outputs, error, finished_at)
            SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])`,
          [run.id, steps.map((s) => s.seq), steps.map((s) => s.workflowId), steps.map((s) => s.stepId), steps.map((s) => s.status),
            steps.map((s) => JSON.stringify(s.outputs)), steps.map((s) => (s.error ? JSON.stringify(s.error) : null)), steps.map((s) => s.finishedAt)]);
        }
        if (events.length > 0) {
          await c.query(`INSERT INTO run_events (run_id, seq, at, type, step_id, detail) SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[])`,
            [run.id, events.map((e) => e.seq), events.map((e) => e.at), events.map((e) => e.type), events.map((e) => e.stepId ?? null), events.map((e) => JSON.stringify(e.detail))]);
        }
        return true;
      }),
      importSnapshot: (snap) => this.#tx(async (c) => ((await c.query(`INSERT INTO snapshots (id, run_id, cluster_url, cluster_key, connector, connector_type, state_before, offsets, partitions, taken_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
      [snap.id, snap.runId ?? null, snap.clusterUrl, snap.clusterKey, snap.connector, snap.connectorType, snap.stateBefore, JSON.stringify(snap.offsets), snap.partitions, snap.takenAt])).rowCount ?? 0) > 0),
      // db_user is the importing login (the server fills it in): who brought the entry, not who acted.
      importAudit: (e) => this.#tx(async (c) => (await this.#audit.append(c, e, e.at, true)) !== undefined),
      importBatch: (b) => this.#tx(async (c) => ((await c.query(`INSERT INTO batches (id, cluster_url, cluster_key, operation, resume_after, members, created_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
      [b.id, b.clusterUrl, b.clusterKey, b.operation, b.resumeAfter, JSON.stringify(b.members), b.createdAt])).rowCount ?? 0) > 0),
    });
  }

  // ---- the lease ------------------------------------------------------------------------

  /** Renews the run's lease every third of its length while this store holds it. */
  #holdLease(runId: string): void {
    this.#releaseLease(runId);
    const timer = setInterval(() => void this.#renew(runId), Math.max(500, (this.#leaseSeconds * 1000) / 3));
    // The lease must not keep a finished CLI command alive; a running run keeps the process busy anyway.
    timer.unref();
    this.#leases.set(runId, timer);
  }

  #releaseLease(runId: string): void {
    const timer = this.#leases.get(runId);
    if (timer) clearInterval(timer);
    this.#leases.delete(runId);
  }

  async #renew(runId: string): Promise<void> {
    if (this.#closed) return;
    try {
      const r = await this.#pool.query('UPDATE locks SET expires_at = now() + make_interval(secs => $4) WHERE run_id = $1 AND pid = $2 AND hostname = $3',
        [runId, this.#owner.pid, this.#owner.hostname, this.#leaseSeconds]);
      if (r.rowCount === 0) {
        // Finished meanwhile, or taken over after our lease ran out: either way not ours to renew.
        this.#lost.add(runId);
        this.#releaseLease(runId);
      }
    } catch {
      // The server is unreachable for now: the next tick tries again. Should the lease run out
      // meanwhile, the fence (updateRunContext, finishRun) finds the run taken over, if it was.
    }
  }

  async #refuseLostRun(c: PgClient, runId: string): Promise<never> {
    const row = (await c.query('SELECT status, actor, resumed_by, pid, hostname FROM runs WHERE id = $1', [runId])).rows[0];
    if (!row) throw this.#noRun(runId);
    const by = (row.resumed_by ?? row.actor) as Actor;
    throw new StoreError('E_LOCKED', `run ${runId} is no longer this process's: its lease ran out and ${actorName(by)} (pid ${String(row.pid)} on ${String(row.hostname)}) took it over; nothing more is done by this process (see \`offsetctl runs show ${runId}\`)`);
  }

  async whoAmI(source: ActorSource = {}): Promise<Actor> {
    await this.#ready;
    return this.#actor(source);
  }

  // ---- internals ------------------------------------------------------------------------

  #actor(source?: ActorSource): Actor {
    return actorOf(this.#owner, { ...this.#actorSource, ...source }, this.#dbUser);
  }

  /**
   * A connection of our own for a transaction. While checked out, the pool no longer listens to
   * its 'error' event: a server that ends the session (a restart, pg_terminate_backend, a cut
   * network) would then crash the process with an unhandled 'error' — with the connector STOPPED
   * (found by the fault test "connection lost after the stop"). The query in flight fails with
   * the cause; the listener only keeps the process alive.
   */
  async #connect(): Promise<PgClient> {
    let client: PgClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw this.#storeError(err, 'connect');
    }
    const ignore = (): void => undefined;
    client.on('error', ignore);
    const release = client.release.bind(client);
    client.release = (err?: Error | boolean) => {
      client.off('error', ignore);
      release(err);
    };
    return client;
  }

  async #query(text: string, values: unknown[] = []): Promise<Row[]> {
    await this.#ready;
    if (this.#unmigrated) throw this.#unmigrated;
    try {
      return (await this.#pool.query(text, values)).rows;
    } catch (err) {
      throw this.#storeError(err, 'query');
    }
  }

  /** A journal line: one statement, committed on its own, asynchronously (see recordStep). */
  async #journal(text: string, values: unknown[]): Promise<void> {
    await this.#ready;
    if (this.#unmigrated) throw this.#unmigrated;
    try {
      await this.#pool.query(text, values);
    } catch (err) {
      throw this.#storeError(err, 'write');
    }
  }

  /** One transaction on one connection; a connection that failed is discarded, not reused. */
  async #tx<T>(body: (c: PgClient) => Promise<T>): Promise<T> {
    await this.#ready;
    if (this.#unmigrated) throw this.#unmigrated;
    const client = await this.#connect();
    let broken: Error | undefined;
    try {
      // One round trip: BEGIN, and COMMIT returns only once the WAL is flushed (the session's default is off).
      await client.query('BEGIN; SET LOCAL synchronous_commit = on');
      const result = await body(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackErr) {
        broken = rollbackErr as Error;
      }
      const constraint = (err as { code?: string; constraint?: string }).code === '23505' ? (err as { constraint?: string }).constraint : undefined;
      if (constraint === 'runs_pkey' || constraint === 'snapshots_pkey' || constraint === 'change_requests_pkey' || constraint === 'audit_pkey') throw new IdTaken();
      throw this.#storeError(err, 'write');
    } finally {
      client.release(broken ?? false);
    }
  }

  /** Runs one run's writes one after the other, in the order they were asked for. */
  #forRun<T>(runId: string, body: () => Promise<T>): Promise<T> {
    const previous = this.#runQueues.get(runId) ?? Promise.resolve();
    const next = previous.then(body, body);
    const settled = next.then(() => undefined, () => undefined);
    this.#runQueues.set(runId, settled);
    void settled.then(() => {
      if (this.#runQueues.get(runId) === settled) this.#runQueues.delete(runId);
    });
    return next;
  }

  /** The driver's errors as the store's: what failed, where (no password), and what to do. */
  #storeError(err: unknown, during: 'open' | 'connect' | 'query' | 'write'): Error {
    if (err instanceof StoreError) return err;
    const e = err as Error & { code?: string };
    const code = e.code ?? '';
    let hint: string;
    if (code === '57014') hint = `the server cancelled the statement after statement_timeout (${this.#settings.statementTimeoutMs} ms): the database is overloaded or something holds a lock; retry, or raise statement_timeout in the store URL`;
    else if (code === '28P01' || code === '28000') hint = 'the server refused the login: check the user, and the password in PGPASSWORD, the .pgpass file or the --store-password-env variable';
    else if (code === '3D000') hint = `the database does not exist: create it (createdb ${this.#settings.database}) or fix the store URL`;
    else if (/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|timeout expired/i.test(`${code} ${e.message}`)) hint = 'the server cannot be reached: is it running, and is the host and port right?';
    else if (/terminated|ECONNRESET|EPIPE|Connection terminated|shutting down|57P0[123]/i.test(`${code} ${e.message}`)) hint = 'the connection to the server was lost';
    else if (/self[- ]signed|certificate|SSL|TLS|altname/i.test(e.message)) hint = `TLS failed (sslmode=${this.#settings.sslmode}): check sslrootcert and that the server's certificate names ${this.#settings.host}`;
    else hint = 'the database refused the request';
    const what = during === 'open' || during === 'connect' ? 'cannot open the team store' : during === 'write' ? 'the team store did not take a write' : 'the team store did not answer';
    return new StoreError('E_STORE', `${what} ${this.location}: ${e.message} (${hint})`, { cause: err });
  }

  #noRun(runId: string): StoreError {
    return new StoreError('E_NOT_FOUND', `no run ${runId} in ${this.location} (list them with \`offsetctl runs\`)`);
  }

  /**
   * The locks a run on `lockKey` conflicts with (src/store/lock-scope.ts): the same connector under
   * the same key, the wide key or a URL key; under any narrower key when `lockKey` is wide; any
   * connector under a consumer group's key.
   */
  async #conflicting(c: PgClient, clusterKey: string, lockKey: string, urlLockKey: string, connector: string): Promise<LockRecord[]> {
    const rows = (await c.query(`${LOCK_SELECT} WHERE (l.connector = $1 AND (l.cluster_key IN ($2, $3, $4)
        OR ($2 = $3 AND substr(l.cluster_key, 1, length($3) + 1) = $3 || '#'))) OR ($5 AND l.cluster_key = $2)
      ORDER BY l.acquired_at FOR UPDATE OF l`, [connector, lockKey, clusterKey, urlLockKey, isGroupKey(lockKey)])).rows;
    return rows.map((r) => this.#toLock(r));
  }

  async #lockRow(c: PgClient, where: string, values: unknown[], forUpdate: boolean): Promise<LockRecord | undefined> {
    const rows = (await c.query(`${LOCK_SELECT} WHERE ${where}${forUpdate ? ' FOR UPDATE OF l' : ''}`, values)).rows;
    return rows[0] ? this.#toLock(rows[0]) : undefined;
  }

  #toLock(row: Row): LockRecord {
    const holder = { pid: Number(row.pid), hostname: String(row.hostname) };
    return {
      clusterKey: String(row.cluster_key), clusterUrl: String(row.cluster_url), connector: String(row.connector), runId: String(row.run_id), ...holder,
      acquiredAt: iso(row.acquired_at), actor: row.actor as Actor, expiresAt: iso(row.expires_at),
      alive: row.lease_live === true && this.#isAlive(holder),
    };
  }

  #toRun(r: Row): RunRecord {
    const status = String(r.status) as RunStatus;
    const holder = { pid: Number(r.pid), hostname: String(r.hostname) };
    const interrupted = status === 'running' && !(r.lease_live === true && this.#isAlive(holder));
    return {
      id: String(r.id), clusterUrl: String(r.cluster_url), clusterKey: String(r.cluster_key), connector: String(r.connector),
      operation: String(r.operation) as RunRecord['operation'], status, displayStatus: interrupted ? 'interrupted' : status,
      startedAt: iso(r.started_at), ...(r.finished_at ? { finishedAt: iso(r.finished_at) } : {}),
      workflowFile: String(r.workflow_file), workflowId: String(r.workflow_id),
      inputs: JSON.parse(String(r.inputs)) as Record<string, unknown>,
      ...(r.last_step ? { lastStep: String(r.last_step) } : {}),
      ...holder, actor: r.actor as Actor,
      ...(r.resumed_by ? { resumedBy: r.resumed_by as Actor } : {}),
      ...(r.taken_over_from ? { takenOverFrom: r.taken_over_from as Actor } : {}),
      ...(r.message ? { message: String(r.message) } : {}),
      ...(r.connector_state ? { connectorState: String(r.connector_state) } : {}),
      context: r.context as RunContext,
    };
  }
}

function passwordFromEnvOrFile(settings: PgSettings, pgpass: PgPass): Promise<string> {
  if (process.env.PGPASSWORD !== undefined && process.env.PGPASSWORD !== '') return Promise.resolve(process.env.PGPASSWORD);
  return new Promise<string>((resolve) => {
    pgpass({ host: settings.host, port: settings.port, database: settings.database, user: settings.user }, (password) => resolve(password ?? ''));
  }).then((password) => {
    // Asked only when the server wants one (a trust login never gets here).
    if (password === '') throw new StoreError('E_STORE_USAGE', `the server asks ${settings.user} for a password and none was given: set PGPASSWORD, add a line for ${settings.host}:${settings.port}:${settings.database}:${settings.user} to the .pgpass file (PGPASSFILE, else ~/.pgpass, mode 0600), or name a variable that holds it with --store-password-env`);
    return password;
  });
}

/** Between two tries to record a run's end while the server does not answer. */
const FINISH_RETRY_MS = 1000;

/** The server could not be reached or the connection dropped (not a refusal, a timeout or a fence). */
function serverLost(err: unknown): boolean {
  if (!(err instanceof StoreError) || err.code !== 'E_STORE') return false;
  const cause = err.cause as { code?: string; message?: string } | undefined;
  return /ECONNREFUSED|ECONNRESET|EPIPE|EHOSTUNREACH|ENOTFOUND|terminated|shutting down|57P0[123]|the database system is (starting up|in recovery mode)|57P03/i
    .test(`${cause?.code ?? ''} ${cause?.message ?? ''}`);
}
