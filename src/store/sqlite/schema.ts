// The store's tables. One migration list, applied in order and recorded in `user_version`,
// so an older state folder is upgraded in place and never silently reinterpreted.
/**
 * Who holds a connector's lock: the same columns in the first locks table and in the one keyed by
 * cluster identity that replaced it. Interpolated so both migrations stay byte for byte as shipped
 * (schema.test.ts pins each migration's hash).
 */
const LOCK_HOLDER_COLUMNS = `    cluster_url TEXT NOT NULL,
    connector   TEXT NOT NULL,
    run_id      TEXT NOT NULL,
    pid         INTEGER NOT NULL,
    hostname    TEXT NOT NULL,
    acquired_at TEXT NOT NULL,
`;

/** Applied in order by the SQLite backend (sqlite/store.ts); never edit one that has shipped. */
export const MIGRATIONS: string[] = [
  `
  CREATE TABLE runs (
    id            TEXT PRIMARY KEY,
    cluster_url   TEXT NOT NULL,
    connector     TEXT NOT NULL,
    operation     TEXT NOT NULL,
    status        TEXT NOT NULL,
    started_at    TEXT NOT NULL,
    finished_at   TEXT,
    workflow_file TEXT NOT NULL,
    workflow_id   TEXT NOT NULL,
    inputs        TEXT NOT NULL,
    last_step     TEXT,
    pid           INTEGER NOT NULL,
    hostname      TEXT NOT NULL,
    message       TEXT,
    connector_state TEXT,
    context       TEXT NOT NULL DEFAULT '{}'
  );
  CREATE INDEX runs_by_connector ON runs (cluster_url, connector, started_at);

  CREATE TABLE run_steps (
    run_id      TEXT NOT NULL REFERENCES runs(id),
    seq         INTEGER NOT NULL,
    workflow_id TEXT NOT NULL,
    step_id     TEXT NOT NULL,
    status      TEXT NOT NULL,
    outputs     TEXT NOT NULL,
    error       TEXT,
    finished_at TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
  );

  CREATE TABLE run_events (
    run_id  TEXT NOT NULL REFERENCES runs(id),
    seq     INTEGER NOT NULL,
    at      TEXT NOT NULL,
    type    TEXT NOT NULL,
    step_id TEXT,
    detail  TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
  );

  CREATE TABLE snapshots (
    id             TEXT PRIMARY KEY,
    run_id         TEXT REFERENCES runs(id),
    cluster_url    TEXT NOT NULL,
    connector      TEXT NOT NULL,
    connector_type TEXT NOT NULL,
    state_before   TEXT NOT NULL,
    offsets        TEXT NOT NULL,
    partitions     INTEGER NOT NULL,
    taken_at       TEXT NOT NULL
  );
  CREATE INDEX snapshots_by_connector ON snapshots (cluster_url, connector, taken_at);

  CREATE TABLE locks (
${LOCK_HOLDER_COLUMNS}    PRIMARY KEY (cluster_url, connector)
  );
  `,
  // 2: runs, snapshots and locks keyed by the cluster's identity (`kafka:<kafka_cluster_id>` from
  // Connect's GET /), so every worker URL of one cluster (and localhost vs 127.0.0.1) shares the
  // lock and finds the snapshots; the URL stays as information. Rows from before have no known
  // identity: they keep a `url:<url>` key, which lookups through that URL still match.
  `
  ALTER TABLE runs ADD COLUMN cluster_key TEXT NOT NULL DEFAULT '';
  UPDATE runs SET cluster_key = 'url:' || cluster_url;
  CREATE INDEX runs_by_cluster_key ON runs (cluster_key, connector, started_at);

  ALTER TABLE snapshots ADD COLUMN cluster_key TEXT NOT NULL DEFAULT '';
  UPDATE snapshots SET cluster_key = 'url:' || cluster_url;
  CREATE INDEX snapshots_by_cluster_key ON snapshots (cluster_key, connector, taken_at);

  CREATE TABLE locks_by_cluster_key (
    cluster_key TEXT NOT NULL,
${LOCK_HOLDER_COLUMNS}    PRIMARY KEY (cluster_key, connector)
  );
  INSERT INTO locks_by_cluster_key (cluster_key, cluster_url, connector, run_id, pid, hostname, acquired_at)
    SELECT 'url:' || cluster_url, cluster_url, connector, run_id, pid, hostname, acquired_at FROM locks;
  DROP TABLE locks;
  ALTER TABLE locks_by_cluster_key RENAME TO locks;
  `,
  // 3: who acted (src/store/actor.ts): the actor that started a run, the last one to take it over
  // and whose process held it then, and the lock's holder, as JSON. Rows from before have none: they read as the pid and host alone.
  `
  ALTER TABLE runs ADD COLUMN actor TEXT;
  ALTER TABLE runs ADD COLUMN resumed_by TEXT;
  ALTER TABLE runs ADD COLUMN taken_over_from TEXT;
  ALTER TABLE locks ADD COLUMN actor TEXT;
  `,
  // 4: a batch's members, recorded before its first connector starts (runs exist only for the
  // connectors that started).
  `
  CREATE TABLE batches (
    id          TEXT PRIMARY KEY,
    cluster_url TEXT NOT NULL,
    cluster_key TEXT NOT NULL,
    operation   TEXT NOT NULL,
    resume_after TEXT NOT NULL,
    members     TEXT NOT NULL,
    created_at  TEXT NOT NULL
  );
  `,
  // 5: the audit trail: who did what, when, on which connector, with the diff. Append-only; the
  // actor is kept whole (JSON) and its display name apart, for listing and filtering.
  `
  CREATE TABLE audit (
    id          TEXT PRIMARY KEY,
    at          TEXT NOT NULL,
    user        TEXT NOT NULL,
    actor       TEXT NOT NULL,
    action      TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    context     TEXT,
    cluster_url TEXT,
    cluster_key TEXT,
    connector   TEXT,
    run_id      TEXT,
    snapshot_id TEXT,
    message     TEXT,
    diff        TEXT,
    counts      TEXT
  );
  CREATE INDEX audit_by_time ON audit (at);
  CREATE INDEX audit_by_connector ON audit (connector, at);
  `,
  // 6: change requests (four-eyes approval, src/ops/changes): the saved plan, who asked, the
  // history of who approved, rejected and applied it (actors as JSON), and its expiry.
  `
  CREATE TABLE change_requests (
    id           TEXT PRIMARY KEY,
    status       TEXT NOT NULL,
    cluster_url  TEXT NOT NULL,
    cluster_key  TEXT NOT NULL,
    operation    TEXT NOT NULL,
    connectors   TEXT NOT NULL,
    context_name TEXT,
    digest       TEXT NOT NULL,
    plan         TEXT NOT NULL,
    requested_by TEXT NOT NULL,
    requested_at TEXT NOT NULL,
    expires_at   TEXT NOT NULL,
    history      TEXT NOT NULL,
    updated_at   TEXT NOT NULL
  );
  CREATE INDEX change_requests_newest ON change_requests (requested_at);
  `,
  // 7: the audit trail's hash chain (src/store/audit-chain.ts): each entry's digest over its
  // content and the digest of the entry before it. Entries written before stay unchained.
  `
  ALTER TABLE audit ADD COLUMN prev_digest TEXT;
  ALTER TABLE audit ADD COLUMN digest TEXT;
  `,
  // 8: policies (issue 32): per cluster, connector pattern and actions, whether changes need
  // approval. A local store keeps them only so the contract is one; they bind on a team store.
  `
  CREATE TABLE policies (
    id          TEXT PRIMARY KEY,
    cluster_key TEXT NOT NULL,
    scope       TEXT NOT NULL,
    context     TEXT,
    cluster_url TEXT,
    connectors  TEXT,
    actions     TEXT,
    require_approval INTEGER NOT NULL,
    set_by      TEXT NOT NULL,
    set_at      TEXT NOT NULL,
    UNIQUE (cluster_key, scope)
  );
  `,
];
