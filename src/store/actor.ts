// Who acts through a store: the face and version it was told, the OS user and host of this
// process, and (team store) the database login the server authenticated. Identities come from
// what authenticated them; a name a client merely sent is never one.
import { userInfo } from 'node:os';
import type { Actor, ActorSource, LockHolder } from './types.js';

/** The OS user running this process ("unknown" where the OS has no entry for the uid). */
export function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

export function actorOf(holder: LockHolder, source: ActorSource = {}, dbUser?: string): Actor {
  const os = osUser();
  return {
    user: source.user ?? dbUser ?? os,
    via: source.via ?? 'cli',
    ...(dbUser !== undefined ? { dbUser } : {}),
    osUser: os,
    host: holder.hostname,
    pid: holder.pid,
    version: source.version ?? 'unknown',
    ...(source.signIn ? { signIn: source.signIn } : {}),
  };
}

/** A run or lock written before actors were recorded: what is known is its process. */
export function legacyActor(pid: number, host: string): Actor {
  return { user: 'unknown', via: 'cli', osUser: 'unknown', host, pid, version: 'unknown' };
}

/** `alice@host-1` — how messages name an actor; a console's user: `alice@example.com (console on host-1)`. */
export function actorName(actor: Actor): string {
  return actor.signIn ? `${actor.user} (console on ${actor.host})` : `${actor.user}@${actor.host}`;
}

const SIGN_IN: Record<string, string> = { oidc: 'OpenID Connect', proxy: 'the trusted proxy', 'login-link': 'the one-time link' };

/**
 * `alice@host-1 (OS user alice, pid 4242, offsetctl 0.1.0 via cli)`; a console's user:
 * `alice@example.com (signed in with OpenID Connect, issuer …, subject …, groups team-a; console on host-1, OS user svc, pid 4242, offsetctl 0.1.0)`
 */
export function describeActor(actor: Actor): string {
  const db = actor.dbUser !== undefined && actor.dbUser !== actor.user ? `database login ${actor.dbUser}, ` : '';
  if (actor.signIn) {
    const s = actor.signIn;
    const how = [`signed in with ${SIGN_IN[s.kind] ?? s.kind}`, ...(s.issuer ? [`issuer ${s.issuer}`] : []), ...(s.subject ? [`subject ${s.subject}`] : []),
      ...(s.groups && s.groups.length > 0 ? [`groups ${s.groups.join(', ')}`] : [])].join(', ');
    return `${actor.user} (${how}; console on ${actor.host}, OS user ${actor.osUser}, ${db}pid ${actor.pid}, offsetctl ${actor.version})`;
  }
  const os = actor.dbUser !== undefined || actor.user !== actor.osUser ? `OS user ${actor.osUser}, ` : '';
  return `${actorName(actor)} (${os}pid ${actor.pid}, offsetctl ${actor.version} via ${actor.via})`;
}

export function parseActor(text: unknown, pid: number, host: string): Actor {
  if (typeof text !== 'string' || text === '') return legacyActor(pid, host);
  try {
    return JSON.parse(text) as Actor;
  } catch {
    return legacyActor(pid, host);
  }
}
