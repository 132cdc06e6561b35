// The team store's tables, as numbered migrations applied in order. Applied under a
// transaction-scoped advisory lock, so operators whose offsetctl starts at the same moment never
// race: the second waits, then finds the work done. The version table records each one, who
// applied it and with which offsetctl. Never edit a shipped migration: add one.
//
// Ownership: tables belong to the database's owner role when the migrating login is a member of
// it (SET LOCAL ROLE), so every operator who is a member can use them, whoever migrated first
// (docs/team.md: one NOLOGIN owner role, one login per operator).

/** The advisory lock key of migrations: 'offsetct' as a 64-bit number, so other applications' keys are unlikely to collide. */
export const MIGRATION_LOCK_KEY = '7957132694452958324';

export const SCHEMA_TABLE = 'offsetctl_schema';

// Change requests (four-eyes approval, src/ops/changes): the saved plan, who asked (the database
// login among it), the history of who approved, rejected and applied it, its expiry. Declared
// before the list because the list uses it.
const CHANGE_REQUESTS = `
  CREATE TABLE change_requests (
    seq          bigserial UNIQUE,
    id           text PRIMARY KEY,
    status       text NOT NULL,
    cluster_url  text NOT NULL,
    cluster_key  text NOT NULL,
    operation    text NOT NULL,
    connectors   jsonb NOT NULL,
    context_name text,
    digest       text NOT NULL,
    plan         jsonb NOT NULL,
    requested_by jsonb NOT NULL,
    requested_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    history      jsonb NOT NULL,
    updated_at   timestamptz NOT NULL
  );
  CREATE INDEX change_requests_newest ON change_requests (requested_at DESC, seq DESC);
  `;

export const PG_MIGRATIONS: string[] = [
  `
  CREATE TABLE runs (
    seq             bigserial UNIQUE,
    id              text PRIMARY KEY,
    cluster_url     text NOT NULL,
    cluster_key     text NOT NULL,
    connector       text NOT NULL,
    operation       text NOT NULL,
    status          text NOT NULL,
    started_at      timestamptz NOT NULL,
    finished_at     timestamptz,
    workflow_file   text NOT NULL,
    workflow_id     text NOT NULL,
    inputs          text NOT NULL,
    last_step       text,
    pid             integer NOT NULL,
    hostname        text NOT NULL,
    message         text,
    connector_state text,
    context         jsonb NOT NULL DEFAULT '{}',
    actor           jsonb NOT NULL,
    resumed_by      jsonb,
    taken_over_from jsonb
  );
  CREATE INDEX runs_newest ON runs (started_at DESC, seq DESC);
  CREATE INDEX runs_by_connector ON runs (connector, started_at DESC);
  CREATE INDEX runs_by_batch ON runs ((context->>'batchId')) WHERE context ? 'batchId';

  CREATE TABLE run_steps (
    run_id      text NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq         integer NOT NULL,
    workflow_id text NOT NULL,
    step_id     text NOT NULL,
    status      text NOT NULL,
    outputs     text NOT NULL,
    error       text,
    finished_at text NOT NULL,
    PRIMARY KEY (run_id, seq)
  );

  CREATE TABLE run_events (
    run_id  text NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq     integer NOT NULL,
    at      text NOT NULL,
    type    text NOT NULL,
    step_id text,
    detail  text NOT NULL,
    PRIMARY KEY (run_id, seq)
  );

  CREATE TABLE snapshots (
    seq            bigserial UNIQUE,
    id             text PRIMARY KEY,
    run_id         text,
    cluster_url    text NOT NULL,
    cluster_key    text NOT NULL,
    connector      text NOT NULL,
    connector_type text NOT NULL,
    state_before   text NOT NULL,
    offsets        text NOT NULL,
    partitions     integer NOT NULL,
    taken_at       timestamptz NOT NULL
  );
  CREATE INDEX snapshots_by_connector ON snapshots (connector, taken_at DESC);
  CREATE INDEX snapshots_newest ON snapshots (taken_at DESC, seq DESC);

  -- One row per (cluster, connector) being worked on. The lease (expires_at, from the server's
  -- clock) is renewed by the holder; once it has passed, the holder counts as gone.
  CREATE TABLE locks (
    cluster_key text NOT NULL,
    connector   text NOT NULL,
    cluster_url text NOT NULL,
    run_id      text NOT NULL UNIQUE REFERENCES runs(id),
    pid         integer NOT NULL,
    hostname    text NOT NULL,
    actor       jsonb NOT NULL,
    acquired_at timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    PRIMARY KEY (cluster_key, connector)
  );
  `,
  // 2: a batch's members, recorded before its first connector starts (runs exist only for the
  // connectors that started), so `runs resume --batch` runs the ones a kill left unstarted.
  `
  CREATE TABLE batches (
    id           text PRIMARY KEY,
    cluster_url  text NOT NULL,
    cluster_key  text NOT NULL,
    operation    text NOT NULL,
    resume_after text NOT NULL,
    members      text NOT NULL,
    created_at   timestamptz NOT NULL
  );
  `,
  // 3: the audit trail (as the SQLite store's migration 5): who did what, when, on which
  // connector, with the diff. Append-only, kept so by the server and not only by this client: no
  // role but a superuser may update, delete or truncate it (the owner's own rights are revoked
  // too, and a trigger refuses it for anyone who grants them back). `db_user` is the login that
  // wrote the entry, filled in by the server (session_user), never sent by the client. The diff
  // is JSON text, as offsets are elsewhere: kept as written (jsonb would reorder a partition's
  // keys and refuse a \u0000 in one).
  `
  CREATE TABLE audit (
    seq         bigserial UNIQUE,
    id          text PRIMARY KEY,
    at          timestamptz NOT NULL,
    user_name   text NOT NULL,
    actor       jsonb NOT NULL,
    action      text NOT NULL,
    outcome     text NOT NULL,
    context     text,
    cluster_url text,
    cluster_key text,
    connector   text,
    run_id      text,
    snapshot_id text,
    message     text,
    diff        text,
    counts      jsonb,
    db_user     text NOT NULL DEFAULT session_user
  );
  CREATE INDEX audit_newest ON audit (at DESC, seq DESC);
  CREATE INDEX audit_by_connector ON audit (connector, at DESC);

  CREATE FUNCTION offsetctl_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'the offsetctl audit trail is append-only: % refused', TG_OP USING ERRCODE = '42501';
  END
  $$;
  CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit FOR EACH ROW EXECUTE FUNCTION offsetctl_audit_append_only();
  CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit FOR EACH STATEMENT EXECUTE FUNCTION offsetctl_audit_append_only();
  REVOKE UPDATE, DELETE, TRUNCATE ON audit FROM PUBLIC, CURRENT_USER;
  `,
  // 4: change requests (CHANGE_REQUESTS above). Kept whole in one constant so that a migration
  // merged before it (the audit trail) moves it one place down with nothing else to edit.
  CHANGE_REQUESTS,
  // 5: the audit trail's hash chain (src/store/audit-chain.ts): each entry's digest over its
  // content (db_user included) and the digest of the entry before it, written under
  // AUDIT_CHAIN_LOCK_KEY so the chain's order is seq's. Entries written before stay unchained.
  `
  ALTER TABLE audit ADD COLUMN prev_digest text;
  ALTER TABLE audit ADD COLUMN digest text;
  `,
  // 6: no role but the owner's keeps UPDATE, DELETE or TRUNCATE on the audit trail, whatever
  // granted them: the operators' role gets its rights on the tables from the owner's default
  // privileges (docs/team.md, the role setup), which grant those too when migration 3 creates
  // the table. The owner's own were revoked by migration 3; only a superuser can edit entries.
  `
  DO $$
  DECLARE grantee text;
  BEGIN
    FOR grantee IN SELECT DISTINCT g.grantee FROM information_schema.role_table_grants g
        WHERE g.table_schema = current_schema() AND g.table_name = 'audit' AND g.privilege_type IN ('UPDATE', 'DELETE', 'TRUNCATE') AND g.grantee <> 'PUBLIC'
    LOOP
      EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON audit FROM %I', grantee);
    END LOOP;
  END
  $$;
  `,
  // 7: policies (issue 32): per cluster, connector pattern and actions, whether changes need
  // approval; binding every operator and console on this store. Only the owner role writes them
  // (the admin login, acting as the owner): every other role's rights to write are taken back,
  // as migration 6 does for the audit, so an operator's login can read a policy, not change it.
  `
  CREATE TABLE policies (
    id          text PRIMARY KEY,
    cluster_key text NOT NULL,
    scope       text NOT NULL,
    context     text,
    cluster_url text,
    connectors  text,
    actions     jsonb,
    require_approval boolean NOT NULL,
    set_by      jsonb NOT NULL,
    set_at      timestamptz NOT NULL DEFAULT now(),
    db_user     text NOT NULL DEFAULT session_user,
    UNIQUE (cluster_key, scope)
  );
  DO $$
  DECLARE grantee text;
  BEGIN
    FOR grantee IN SELECT DISTINCT g.grantee FROM information_schema.role_table_grants g
        WHERE g.table_schema = current_schema() AND g.table_name = 'policies' AND g.privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE')
          AND g.grantee <> 'PUBLIC' AND g.grantee <> current_user
    LOOP
      EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON policies FROM %I', grantee);
    END LOOP;
  END
  $$;
  `,
  // 8: what several console replicas on one store share (docs/ui.md, two replicas): sessions,
  // by the SHA-256 of their id (a reader of the table cannot use one), and jobs' state, so a job
  // started on one replica is seen on the other. Rows past `expires_at` are ignored and swept.
  `
  CREATE TABLE console_sessions (
    id_hash    text PRIMARY KEY,
    person     text NOT NULL,
    data       jsonb NOT NULL,
    expires_at timestamptz NOT NULL
  );
  CREATE INDEX console_sessions_person ON console_sessions (person);
  CREATE TABLE console_jobs (
    id         text PRIMARY KEY,
    data       jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
  );
  `,
  // 9: the rest of what console replicas share: previews waiting for their typed confirmation (a
  // plan previewed through one replica is applied through the other; taken once, by a DELETE),
  // the failed sign-ins of the last minute per flow and client address (the rate limit counts
  // them on every replica), OpenID sign-ins in progress (by the SHA-256 of the flow cookie: the
  // provider's redirect back may reach another replica), and the provider's session id (sid) of a
  // session, in its data, for OpenID Connect back-channel logout. Rows past their time are ignored
  // and swept.
  `
  CREATE TABLE console_previews (
    id           text PRIMARY KEY,
    session_hash text NOT NULL,
    context      text NOT NULL,
    plan         jsonb NOT NULL,
    expires_at   timestamptz NOT NULL
  );
  CREATE TABLE console_sign_in_failures (
    key text NOT NULL,
    at  timestamptz NOT NULL DEFAULT clock_timestamp()
  );
  CREATE INDEX console_sign_in_failures_key ON console_sign_in_failures (key, at);
  CREATE TABLE console_sign_in_flows (
    id_hash    text PRIMARY KEY,
    data       jsonb NOT NULL,
    expires_at timestamptz NOT NULL
  );
  CREATE INDEX console_sessions_sid ON console_sessions ((data->>'sid'));
  `,
];

/** The transaction-level advisory lock every audit insert takes, so entries chain in seq order. */
export const AUDIT_CHAIN_LOCK_KEY = 0x0ff5e7a0;

/** Creates the version table; run under the migration lock, only when it is missing. */
export const CREATE_SCHEMA_TABLE = `
  CREATE TABLE ${SCHEMA_TABLE} (
    version     integer PRIMARY KEY,
    applied_at  timestamptz NOT NULL DEFAULT now(),
    applied_by  text NOT NULL DEFAULT session_user,
    offsetctl   text NOT NULL
  )`;
