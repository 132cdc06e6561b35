// The records the store hands out. Plain data: callers never see SQL rows.

/** The changes planned and applied one connector on one cluster at a time (src/ops/plan, run). */
export type ChangeOperation = 'rewind' | 'reset' | 'rollback';
/** `move`, `copy`, `import` and `export` are src/ops/move's (a consistent export stops each connector briefly); `replay` is src/ops/replay's (no offset changes). */
export type Operation = ChangeOperation | 'move' | 'copy' | 'import' | 'export' | 'replay';

/** `running` while a process works on it; a `running` run whose process died is shown as `interrupted`. */
export type RunStatus = 'running' | 'succeeded' | 'failed' | 'abandoned';

/** What ops needs to finish or undo a run later, kept beside it. */
export interface RunContext {
  connectorType?: 'source' | 'sink';
  /** The key of the run's lock when narrower than its cluster's (NewRun.lockKey). */
  lockKey?: string;
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
  /** A reviewed change (saved plan, approved request): the digest of the plan it applies. */
  planDigest?: string;
  /** An approved change request it applies (`offsetctl changes`). */
  requestId?: string;
  [key: string]: unknown;
}

/**
 * Who did something, from sources that authenticated them: the database login on a team store
 * (PostgreSQL's session_user, never a name the client sends), the OS user of the process, and
 * (issue 24) the user a console signed in. Recorded on every run and lock.
 */
export interface Actor {
  /** The person: a console's signed-in user, else the database login, else the OS user. */
  user: string;
  via: 'cli' | 'console';
  /** The database login (team store only). */
  dbUser?: string;
  osUser: string;
  host: string;
  pid: number;
  /** The offsetctl version that acted. */
  version: string;
  /** A console's user: how the console authenticated them. */
  signIn?: SignIn;
}

/** How a console's user was authenticated: the identity provider, or the trusted proxy's header, or the one-time link. */
export interface SignIn {
  kind: 'oidc' | 'proxy' | 'login-link';
  /** OpenID Connect: the issuer and subject the ID token named. */
  issuer?: string;
  subject?: string;
  /** The groups (or other claim values) the console's roles were derived from. */
  groups?: string[];
}

/** What a face knows of who is acting; the store adds what it authenticates itself (the database login). */
export interface ActorSource {
  via?: 'cli' | 'console';
  version?: string;
  /** A user the face authenticated itself (the console's sign-in); never a name a client merely sent. */
  user?: string;
  /** How the console authenticated `user`. */
  signIn?: SignIn;
}

export interface NewRun {
  clusterUrl: string;
  /** The cluster's identity (`kafka:<id>`); default `url:<clusterUrl>`. Locks and lookups use it. */
  clusterKey?: string;
  /**
   * Where the connector's offsets live (src/store/lock-scope.ts): the lock's key, `clusterKey`
   * itself (the wide key) or narrower (`<clusterKey>#group:<id>`, `#offsets-topic:<topic>`).
   * Recorded in the run's context as `lockKey`, so a take-over locks the same key. Default: `clusterKey`.
   */
  lockKey?: string;
  connector: string;
  operation: Operation;
  workflowFile: string;
  workflowId: string;
  inputs: Record<string, unknown>;
  context?: RunContext;
  /** Per run, for a face serving several users (the console, issue 24); the store's own otherwise. */
  actor?: ActorSource;
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
  /** The process working on it now (the one that started it, or the last to take it over). */
  pid: number;
  hostname: string;
  /** Who started the run. */
  actor: Actor;
  /** Who took it over last (`runs resume` from another process), when anyone did. */
  resumedBy?: Actor;
  /** Whose process held it when it was last taken over: "whose run it was". */
  takenOverFrom?: Actor;
  message?: string;
  connectorState?: string;
  context: RunContext;
}

/**
 * The connectors of a batch, recorded before the first one starts, so a batch killed half-way
 * still knows the ones that never ran (`runs --batch`, `runs resume --batch`).
 */
export interface BatchMember {
  connector: string;
  /** rewind: the target offsets fixed when the batch was planned (replayed by `runs resume --batch`). */
  offsets?: unknown[];
}

export interface NewBatch {
  id: string;
  clusterUrl: string;
  clusterKey: string;
  /** Batches of moves and imports are not recorded (their runs carry the batch id): only changes resume by batch. */
  operation: ChangeOperation;
  /** What happens to each connector afterwards (`auto`, `always`, `never`), as the batch was asked. */
  resumeAfter: string;
  members: BatchMember[];
}

export interface BatchRecord extends NewBatch {
  createdAt: string;
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
  /** The lock's key: the cluster's, or narrower (where the offsets live: src/store/lock-scope.ts). */
  clusterKey: string;
  /** The URL the holder connected through (information only). */
  clusterUrl: string;
  connector: string;
  runId: string;
  acquiredAt: string;
  /** Who holds it. */
  actor: Actor;
  /** A team store's lease (the database's clock): the holder renews it while it works; once past, the holder counts as gone. */
  expiresAt?: string;
  /** False when the holder is gone (as the store's liveness check decides). */
  alive: boolean;
}

export interface RunFilter {
  connector?: string;
  clusterUrl?: string;
  /** Only runs under one of these cluster keys (every worker URL of one cluster; see NewRun.clusterKey). */
  clusterKeys?: string[];
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
 * A change request (four-eyes approval): a saved plan waiting for someone else's yes, then
 * applied. `pending` → `approved` | `rejected`; `approved` → `applying` → `applied` | `failed`.
 * A pending or approved request past `expiresAt` reads `expired` and can no longer move on.
 */
export type ChangeRequestStatus = 'pending' | 'approved' | 'rejected' | 'applying' | 'applied' | 'failed';

/** One step of a request's history, with the actor the store authenticated (never a name sent). */
export interface ChangeRequestEvent {
  at: string;
  action: 'requested' | Exclude<ChangeRequestStatus, 'pending'>;
  actor: Actor;
  reason?: string;
  runIds?: string[];
  batchId?: string;
  message?: string;
}

export interface NewChangeRequest {
  clusterUrl: string;
  clusterKey: string;
  operation: string;
  connectors: string[];
  /** The context that required approval, when there is one. */
  contextName?: string;
  /** The saved plan (src/ops/changes/saved-plan.ts), kept as data; its digest beside it. */
  plan: unknown;
  digest: string;
  expiresAt: string;
  /** Who asks, as the face authenticated it (the console's signed-in user); the store adds the rest. */
  actor?: ActorSource;
}

export interface ChangeRequestRecord extends Omit<NewChangeRequest, 'actor'> {
  id: string;
  status: ChangeRequestStatus;
  /** `status`, except a pending or approved request past its expiry reads `expired`. */
  displayStatus: ChangeRequestStatus | 'expired';
  requestedAt: string;
  requestedBy: Actor;
  history: ChangeRequestEvent[];
  updatedAt: string;
}

export interface ChangeRequestFilter {
  status?: ChangeRequestStatus;
  connector?: string;
  limit?: number;
}

/** A move of a request from one status to the next: refused (E_CHANGED) unless it is in one of `from` (and, with `notExpired`, not past its expiry). */
export interface ChangeRequestMove {
  from: ChangeRequestStatus[];
  to: Exclude<ChangeRequestStatus, 'pending'>;
  notExpired?: boolean;
  reason?: string;
  runIds?: string[];
  batchId?: string;
  message?: string;
  /** Who acts, as the face authenticated it (the console's signed-in user); the store adds the rest. */
  actor?: ActorSource;
}

/**
 * Who did something, as the face that served them authenticated them: the console's signed-in
 * user (from the ID token or the trusted proxy's header), or for the CLI the OS user (and the
 * store's database user where the store has one). Never a name a client sent.
 */
export interface AuditActor {
  /** The name shown in the audit: `alice@example.com`, `ops@laptop-7`. */
  user: string;
  /** How that name was established. */
  via: 'oidc' | 'proxy' | 'login-link' | 'cli';
  /** OpenID Connect: the issuer and subject the ID token named. */
  issuer?: string;
  subject?: string;
  /** The groups (or other claim values) the roles were derived from. */
  groups?: string[];
  /** The console's role for the act (viewer, operator, admin). */
  role?: string;
  osUser?: string;
  dbUser?: string;
  host?: string;
}

/** What an audit entry is about: a change (rewind, reset, rollback, resume), a sign-in, a refusal. */
export type AuditAction = 'rewind' | 'reset' | 'rollback' | 'resume' | 'sign-in' | 'sign-out' | (string & {});

export type AuditOutcome = 'started' | 'succeeded' | 'failed' | 'unchanged' | 'refused' | 'done' | 'requested' | 'approved' | 'rejected';

/** One line of the diff as the audit keeps it (for people: registered secrets masked). */
export interface AuditDiffEntry {
  change: 'changed' | 'added' | 'removed' | 'unchanged';
  partition: unknown;
  from?: unknown;
  to?: unknown;
}

export interface NewAuditEntry {
  actor: AuditActor;
  action: AuditAction;
  outcome: AuditOutcome;
  /** The console's context name, when there is one. */
  context?: string;
  clusterUrl?: string;
  clusterKey?: string;
  connector?: string;
  runId?: string;
  snapshotId?: string;
  /** What happened, in the words the face showed (masked). */
  message?: string;
  /** The change's diff (changed, added and removed partitions; unchanged ones are counted only). */
  diff?: AuditDiffEntry[];
  counts?: Record<string, number>;
}

/**
 * A team's rule for a Connect cluster, kept in the team store so it binds every operator and
 * console on it whatever their local config says: changes of the named actions (all offset
 * changes when none are named) to connectors matching the pattern (all when none) need approval.
 */
export interface NewPolicy {
  /** The cluster's key (as runs and locks), learned from the cluster through the context named. */
  clusterKey: string;
  /** The context it was set through, for people reading `policy show`. */
  context?: string;
  clusterUrl?: string;
  /** A regular expression over connector names (whole name); none: every connector. */
  connectors?: string;
  /** The actions it governs (rewind, reset, rollback, apply, move, copy, import, stop, …); none: every offset change. */
  actions?: string[];
  requireApproval: boolean;
  actor?: ActorSource;
}

export interface PolicyRecord extends Omit<NewPolicy, 'actor'> {
  id: string;
  setBy: Actor;
  setAt: string;
}

/** One entry as the audit's hash chain holds it (src/store/audit-chain.ts). */
export interface AuditChainRow {
  /** Position in insertion order (rowid or seq). */
  seq: number;
  record: AuditRecord;
  /** The database login that wrote it, where the store records one (PostgreSQL). */
  dbUser?: string;
  /** The digest of the entry before it ('' for the first entry of the chain); null before the chain began. */
  prev: string | null;
  digest: string | null;
}

export interface AuditRecord extends NewAuditEntry {
  id: string;
  at: string;
}

export interface AuditFilter {
  connector?: string;
  /** Entries at or after this time. */
  since?: Date;
  /** Only these cluster keys (an empty list: none). */
  clusterKeys?: string[];
  /** With clusterKeys: also the entries about no cluster (a sign-in), before the limit is applied. */
  withoutCluster?: boolean;
  limit?: number;
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
/**
 * What console replicas on one team store share (sessions and jobs' state); SQLite has none (its
 * console is one process). Session ids are kept only as their SHA-256.
 */
export interface SharedConsoleState {
  putSession(id: string, person: string, data: Record<string, unknown>, expiresAt: Date): Promise<void>;
  getSession(id: string): Promise<Record<string, unknown> | undefined>;
  deleteSession(id: string): Promise<void>;
  /** Ends the session whose id has this SHA-256 (hex): the one a sign-in replaces, known to a sign-in in progress only so. */
  deleteSessionByHash(idHash: string): Promise<void>;
  /** Ends every session of one person; how many there were. */
  deleteSessionsOf(person: string): Promise<number>;
  putJob(id: string, data: Record<string, unknown>): Promise<void>;
  getJob(id: string): Promise<Record<string, unknown> | undefined>;
  /** Newest first. */
  listJobs(limit: number): Promise<Array<Record<string, unknown>>>;
  /** Ends every live session whose data has this provider session id (`sid`, back-channel logout); how many. */
  deleteSessionsWithSid(sid: string): Promise<number>;
  /** A previewed plan waiting for its confirmation, made in session `sessionId` (kept as its SHA-256). */
  putPreview(id: string, sessionId: string, context: string, plan: Record<string, unknown>, expiresAt: Date): Promise<void>;
  /** A live preview: whether `sessionId` made it, its context and plan. */
  getPreview(id: string, sessionId: string): Promise<{ ownSession: boolean; context: string; plan: Record<string, unknown> } | undefined>;
  /** Takes a preview out (a plan runs once, whichever replica applies it): false when it was gone already. */
  takePreview(id: string): Promise<boolean>;
  /** An OpenID sign-in in progress (kept by the SHA-256 of its flow id), until `expiresAt`. */
  putSignInFlow(id: string, data: Record<string, unknown>, expiresAt: Date): Promise<void>;
  /** Takes a sign-in in progress out (it is finished once, on whichever replica): undefined when unknown, taken or expired. */
  takeSignInFlow(id: string): Promise<Record<string, unknown> | undefined>;
  /** Counts a failed sign-in under `key` (flow and client address); rows older than `windowSeconds` are swept. */
  addSignInFailure(key: string, windowSeconds: number): Promise<void>;
  /** The failed sign-ins under `key` in the last `windowSeconds`, and the seconds until the oldest leaves the window (the store's clock). */
  signInFailures(key: string, windowSeconds: number): Promise<{ count: number; retryAfterSeconds: number }>;
}

/**
 * A store by concern: each caller can ask for the part it needs (`RunsStore` for the journal,
 * `AuditStore` for the trail...). `Store`, every part at once, is what both backends implement.
 */
export interface RunsStore {
  /** Refused with `E_LOCKED` while another run (live or stale) holds the connector. */
  beginRun(run: NewRun, options?: { takeOverStale?: boolean; now?: Date }): Promise<RunRecord>;
  /**
   * This process continues an interrupted run; refused unless the run is `running` and its holder
   * is gone. `actor`: who resumes it, when a face serves several users (as NewRun.actor).
   */
  takeOverRun(runId: string, options?: { actor?: ActorSource }): Promise<RunRecord>;
  /** Records the outcome and releases the run's lock. */
  finishRun(runId: string, outcome: RunOutcome): Promise<void>;
  updateRunContext(runId: string, patch: RunContext): Promise<void>;
  /** `E_NOT_FOUND` for an unknown id. */
  getRun(runId: string): Promise<RunRecord>;
  /** Newest first. */
  listRuns(filter?: RunFilter): Promise<RunRecord[]>;
  /** The journal of a run: its steps and events. */
  recordStep(runId: string, step: Omit<StepRecord, 'seq'>): Promise<void>;
  recordEvent(runId: string, event: Omit<EventRecord, 'seq'>): Promise<void>;
  /** Several events in one transaction, in order (the journal batches a step's events). */
  recordEvents(runId: string, events: ReadonlyArray<Omit<EventRecord, 'seq'>>): Promise<void>;
  /** In the order recorded. */
  stepsOf(runId: string): Promise<StepRecord[]>;
  eventsOf(runId: string): Promise<EventRecord[]>;
}

/** The connector locks runs hold (taken by `beginRun`, released by `finishRun`). */
export interface LocksStore {
  /** The lock on (cluster key, connector): a key is `kafka:<id>`, or `url:<url>` for rows of unknown identity. */
  lockOf(clusterKey: string, connector: string): Promise<LockRecord | undefined>;
  /** Every lock held now, live or stale (`offsetctl store status`). */
  listLocks(): Promise<LockRecord[]>;
}

export interface SnapshotsStore {
  saveSnapshot(snapshot: NewSnapshot, now?: Date): Promise<SnapshotRecord>;
  /** `E_NOT_FOUND` for an unknown id. */
  getSnapshot(id: string): Promise<SnapshotRecord>;
  /** Newest first; offsets left out (empty) to keep listings cheap. */
  listSnapshots(filter?: SnapshotFilter): Promise<SnapshotRecord[]>;
  /** By the URL the snapshot was taken through. */
  latestSnapshot(clusterUrl: string, connector: string): Promise<SnapshotRecord | undefined>;
  /** Deletes these snapshots (`snapshots prune` decides which); resolves with how many went. */
  deleteSnapshots(ids: string[]): Promise<number>;
}

export interface AuditStore {
  /** Appends an entry to the audit trail (append-only: entries are never changed or deleted). */
  recordAudit(entry: NewAuditEntry, now?: Date): Promise<AuditRecord>;
  /** Newest first. */
  listAudit(filter?: AuditFilter): Promise<AuditRecord[]>;
  /** Up to `limit` entries after position `afterSeq`, in insertion order, with their chain digests (`audit verify`). */
  readAuditChain(afterSeq: number, limit: number): Promise<AuditChainRow[]>;
}

export interface PoliciesStore {
  /**
   * Sets the policy of one scope (cluster, connector pattern, actions), replacing the one there.
   * On a team store only the owner role's members may (the database refuses the others: E_STORE).
   */
  setPolicy(policy: NewPolicy, now?: Date): Promise<PolicyRecord>;
  /** Every policy, or those of one cluster key. */
  listPolicies(filter?: { clusterKeys?: string[] }): Promise<PolicyRecord[]>;
}

export interface ChangeRequestsStore {
  /** Records a change request, with the store's own actor as who asked. */
  createChangeRequest(request: NewChangeRequest, now?: Date): Promise<ChangeRequestRecord>;
  /** `E_NOT_FOUND` for an unknown id. */
  getChangeRequest(id: string, now?: Date): Promise<ChangeRequestRecord>;
  /** Newest first. */
  listChangeRequests(filter?: ChangeRequestFilter, now?: Date): Promise<ChangeRequestRecord[]>;
  /** Moves a request on atomically, appending who did it (the store's actor) to its history; `E_CHANGED` when it is no longer in one of `move.from`. */
  moveChangeRequest(id: string, move: ChangeRequestMove, now?: Date): Promise<ChangeRequestRecord>;
}

export interface BatchesStore {
  /** Records a batch and its members (once per id: a second save of one id is refused with `E_STORE`). */
  saveBatch(batch: NewBatch): Promise<BatchRecord>;
  /** undefined for a batch this store never recorded (one started by an older version). */
  getBatch(id: string): Promise<BatchRecord | undefined>;
  /** Every recorded batch, oldest first (`store import` copies them with their members). */
  listBatches(): Promise<BatchRecord[]>;
}

/** The store as a whole: where it is, who acts through it, what it is, copying in, closing. */
export interface StoreAdmin {
  /** Where the data is, for messages (a file path, a URL). */
  readonly location: string;
  /** A team store: what console replicas share. */
  readonly consoleState?: SharedConsoleState;
  /** Who acts through this store now: its face, the OS user and (team store) the database login. */
  whoAmI(source?: ActorSource): Promise<Actor>;
  /** What the store is: backend, where, schema version (`offsetctl store status`). */
  describe(): Promise<StoreDescription>;
  /**
   * Copies runs (with their journal) and snapshots from another store, keeping their ids; rows
   * already present are left alone, so a second import adds nothing (`offsetctl store import`).
   */
  importFrom(source: Store): Promise<ImportCounts>;
  close(): Promise<void>;
}

/** Every concern at once: what `openStore` gives and both backends implement. */
export interface Store
  extends RunsStore,
    LocksStore,
    SnapshotsStore,
    AuditStore,
    PoliciesStore,
    ChangeRequestsStore,
    BatchesStore,
    StoreAdmin {}

export interface StoreDescription {
  backend: 'sqlite' | 'postgres';
  /** A file path, or the URL without any password. */
  location: string;
  schemaVersion: number;
  /** The newest schema version this offsetctl knows. */
  knownSchemaVersion: number;
  /** The database login this store acts as (team store). */
  dbUser?: string;
  /** The server's version (team store). */
  serverVersion?: string;
  /** How this connection is encrypted (`TLSv1.3`), or `none` (team store). */
  tls?: string;
}

export interface ImportCounts {
  runs: number;
  snapshots: number;
  /** Audit entries copied. */
  audit: number;
  /** Batches copied with their members (a member that never started has no run: only its batch knows it). */
  batches: number;
  /** Already in this store: left as they were. */
  skippedRuns: number;
  skippedSnapshots: number;
  skippedAudit: number;
  skippedBatches: number;
}

/** How a store names the current process as a lock holder and decides whether a holder is gone. */
export interface StoreOptions {
  owner?: LockHolder;
  isAlive?: (holder: LockHolder) => boolean;
  /** Who acts through this store (the face, the version); the store adds the OS user and the database login. */
  actor?: ActorSource;
}
