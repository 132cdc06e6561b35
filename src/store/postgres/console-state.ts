// What console replicas share through the team store (a part of PostgresStore, pg-store.ts): sessions, jobs, previews,
// sign-ins in progress and failed sign-ins; ids kept as their SHA-256.
import type { SharedConsoleState } from '../types.js';
import { sha256, type PgAccess } from './rows.js';

/** Console replicas' shared sessions and jobs (migration 8), previews and failed sign-ins (migration 9). */
export function pgConsoleState(db: PgAccess): SharedConsoleState {
  return {
    putSession: async (id, person, data, expiresAt) => {
      await db.query(`INSERT INTO console_sessions (id_hash, person, data, expires_at) VALUES ($1, $2, $3, $4)
        ON CONFLICT (id_hash) DO UPDATE SET data = EXCLUDED.data, expires_at = EXCLUDED.expires_at`, [sha256(id), person, JSON.stringify(data), expiresAt.toISOString()]);
      await db.query('DELETE FROM console_sessions WHERE expires_at < now()');
    },
    getSession: async (id) => {
      const [row] = await db.query('SELECT data FROM console_sessions WHERE id_hash = $1 AND expires_at > now()', [sha256(id)]);
      return row ? (row.data as Record<string, unknown>) : undefined;
    },
    deleteSession: async (id) => {
      await db.query('DELETE FROM console_sessions WHERE id_hash = $1', [sha256(id)]);
    },
    deleteSessionByHash: async (idHash) => {
      await db.query('DELETE FROM console_sessions WHERE id_hash = $1', [idHash]);
    },
    deleteSessionsOf: async (person) => (await db.query('DELETE FROM console_sessions WHERE person = $1 AND expires_at > now() RETURNING id_hash', [person])).length,
    putJob: async (id, data) => {
      await db.query(`INSERT INTO console_jobs (id, data) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data, updated_at = now()`, [id, JSON.stringify(data)]);
    },
    getJob: async (id) => {
      const [row] = await db.query('SELECT data FROM console_jobs WHERE id = $1', [id]);
      return row ? (row.data as Record<string, unknown>) : undefined;
    },
    listJobs: async (limit) => (await db.query('SELECT data FROM console_jobs ORDER BY updated_at DESC LIMIT $1', [limit])).map((r) => r.data as Record<string, unknown>),
    // Migration 9: back-channel logout by the provider's session id, previews, failed sign-ins.
    deleteSessionsWithSid: async (sid) => (
      await db.query("DELETE FROM console_sessions WHERE data->>'sid' = $1 AND expires_at > now() RETURNING id_hash", [sid])
    ).length,
    putPreview: async (id, sessionId, context, plan, expiresAt) => {
      await db.query('INSERT INTO console_previews (id, session_hash, context, plan, expires_at) VALUES ($1, $2, $3, $4, $5)',
        [id, sha256(sessionId), context, JSON.stringify(plan), expiresAt.toISOString()]);
      await db.query('DELETE FROM console_previews WHERE expires_at < now()');
    },
    getPreview: async (id, sessionId) => {
      const [row] = await db.query('SELECT session_hash, context, plan FROM console_previews WHERE id = $1 AND expires_at > now()', [id]);
      return row ? { ownSession: row.session_hash === sha256(sessionId), context: String(row.context), plan: row.plan as Record<string, unknown> } : undefined;
    },
    takePreview: async (id) => (await db.query('DELETE FROM console_previews WHERE id = $1 AND expires_at > now() RETURNING id', [id])).length === 1,
    putSignInFlow: async (id, data, expiresAt) => {
      await db.query('INSERT INTO console_sign_in_flows (id_hash, data, expires_at) VALUES ($1, $2, $3)',
        [sha256(id), JSON.stringify(data), expiresAt.toISOString()]);
      await db.query('DELETE FROM console_sign_in_flows WHERE expires_at < now()');
    },
    takeSignInFlow: async (id) => {
      const [row] = await db.query('DELETE FROM console_sign_in_flows WHERE id_hash = $1 AND expires_at > now() RETURNING data', [sha256(id)]);
      return row ? (row.data as Record<string, unknown>) : undefined;
    },
    addSignInFailure: async (key, windowSeconds) => {
      await db.query('INSERT INTO console_sign_in_failures (key) VALUES ($1)', [key]);
      await db.query('DELETE FROM console_sign_in_failures WHERE at < clock_timestamp() - make_interval(secs => $1)', [windowSeconds]);
    },
    signInFailures: async (key, windowSeconds) => {
      const [row] = await db.query(`SELECT count(*)::int AS n,
          coalesce(ceil(extract(epoch FROM (min(at) + make_interval(secs => $2) - clock_timestamp())))::int, 0) AS wait
        FROM console_sign_in_failures WHERE key = $1 AND at > clock_timestamp() - make_interval(secs => $2)`, [key, windowSeconds]);
      return { count: Number(row?.n ?? 0), retryAfterSeconds: Math.max(1, Number(row?.wait ?? 0)) };
    },
  };
}
