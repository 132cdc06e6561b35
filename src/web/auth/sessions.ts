// Sessions. A session belongs to one signed-in identity (from the OpenID provider's ID token,
// the trusted proxy's header, or — for one person on loopback — the one-time login link that
// `offsetctl ui` prints, like Jupyter). It lives on the server; the browser holds only its id in
// a cookie (HttpOnly, SameSite=Strict, Secure under TLS). It ends at logout, after the idle
// timeout, or at its maximum age, whichever comes first. Every POST also needs the session's
// CSRF token. Tokens are compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ActorSource, AuditActor, SharedConsoleState } from '../ops-bridge.js';
import { Access } from './roles.js';

export const SESSION_COOKIE = 'offsetctl_session';

/** Who is signed in, as something that authenticated them said. */
export interface Identity {
  /** The name the audit shows. */
  user: string;
  groups: string[];
  via: AuditActor['via'];
  issuer?: string;
  subject?: string;
}

export interface Session {
  id: string;
  csrf: string;
  /** The selected context ('' = the one the console was started with). */
  context: string;
  identity: Identity;
  access: Access;
  createdAt: number;
  lastSeen: number;
  /** OpenID Connect: the ID token, kept on the server, the hint for signing out at the provider too. */
  idToken?: string;
  /** OpenID Connect: the access token (server-side only), to read the person's groups again at the provider. */
  accessToken?: string;
  /** OpenID Connect: the provider's session id (the ID token's sid), which a back-channel logout may name. */
  providerSid?: string;
  /** When the groups were last read at the provider. */
  rolesCheckedAt?: number;
  /** The provider's userinfo accepted this session's access token once (a later refusal means revoked or expired). */
  rolesRecheckWorked?: boolean;
}

export interface SessionLimits {
  maxAgeMs: number;
  idleMs: number;
}

/** One person's console (the login link): a working day, idle for at most 8 hours. */
const LOCAL_LIMITS: SessionLimits = { maxAgeMs: 24 * 3600_000, idleMs: 8 * 3600_000 };

export class Sessions {
  #loginToken: string | undefined;
  readonly #sessions = new Map<string, Session>();
  readonly #limits: SessionLimits;
  readonly #now: () => number;
  /** Who opens the login link: the user who started the console. */
  readonly #local: Identity | undefined;
  /** A team store shared by console replicas: sessions live there (a session made on one works on the other). */
  #shared: { state: SharedConsoleState; accessOf: (identity: Identity) => Access } | undefined;

  constructor(options: { loginLinkFor?: Identity; limits?: SessionLimits; now?: () => number } = { loginLinkFor: { user: 'local', groups: [], via: 'login-link' } }) {
    this.#local = options.loginLinkFor;
    this.#loginToken = options.loginLinkFor ? token() : undefined;
    this.#limits = options.limits ?? LOCAL_LIMITS;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Keeps sessions in the team store too: every request reads its session there (so one ended on
   * another replica ends here); `accessOf` makes the roles again from the identity.
   */
  share(state: SharedConsoleState, accessOf: (identity: Identity) => Access): void {
    this.#shared = { state, accessOf };
  }

  /** Writes a session to the team store (after create, or when its context changed); nothing without one. */
  async save(session: Session): Promise<void> {
    if (!this.#shared) return;
    const data = {
      csrf: session.csrf, context: session.context, identity: session.identity, createdAt: session.createdAt,
      ...(session.providerSid ? { sid: session.providerSid } : {}),
    };
    await this.#shared.state.putSession(session.id, personKey(session.identity), data, new Date(session.createdAt + this.#limits.maxAgeMs));
  }

  /** The session of a cookie: this process's, or on a team store the store's (which decides whether it still lives). */
  async resolve(id: string | undefined): Promise<Session | undefined> {
    if (!this.#shared || !id) return this.find(id);
    const data = await this.#shared.state.getSession(id);
    if (!data) {
      this.#sessions.delete(id);
      return undefined;
    }
    const identity = data.identity as Identity;
    const known = this.find(id);
    if (known) {
      known.context = String(data.context ?? '');
      return known;
    }
    const now = this.#now();
    const session: Session = {
      id, csrf: String(data.csrf), context: String(data.context ?? ''), identity, access: this.#shared.accessOf(identity), createdAt: Number(data.createdAt), lastSeen: now,
      ...(typeof data.sid === 'string' ? { providerSid: data.sid } : {}),
    };
    this.#sessions.set(id, session);
    return session;
  }

  /** The token for the printed URL; undefined once it has been used (or in a signed-in service). */
  get loginToken(): string | undefined {
    return this.#loginToken;
  }

  /** A new session when `candidate` is the unused login token; the token is spent either way it matches. */
  login(candidate: string | undefined): Session | undefined {
    if (!this.#local || !this.#loginToken || !candidate || !same(candidate, this.#loginToken)) return undefined;
    this.#loginToken = undefined;
    return this.create(this.#local, Access.everything());
  }

  create(identity: Identity, access: Access): Session {
    this.#expire();
    const now = this.#now();
    const session: Session = { id: token(), csrf: token(), context: '', identity, access, createdAt: now, lastSeen: now };
    this.#sessions.set(session.id, session);
    return session;
  }

  /** The live session with this id (its idle clock restarts), else undefined. */
  find(id: string | undefined): Session | undefined {
    if (!id) return undefined;
    this.#expire();
    for (const [key, session] of this.#sessions) {
      if (!same(id, key)) continue;
      session.lastSeen = this.#now();
      return session;
    }
    return undefined;
  }

  async end(session: Session): Promise<void> {
    this.#sessions.delete(session.id);
    await this.#shared?.state.deleteSession(session.id);
  }

  /** Ends the session whose id has this hash (sessionHash), here and in the team store. */
  async endByHash(idHash: string): Promise<void> {
    for (const id of this.#sessions.keys()) if (sessionHash(id) === idHash) this.#sessions.delete(id);
    await this.#shared?.state.deleteSessionByHash(idHash);
  }

  /** Every live session (the admin's Sessions page). */
  live(): Session[] {
    this.#expire();
    return [...this.#sessions.values()];
  }

  /** Ends every session of this person (personKey); how many there were. */
  async endPerson(person: string): Promise<number> {
    let ended = 0;
    if (this.#shared) {
      for (const [id, s] of this.#sessions) if (personKey(s.identity) === person) this.#sessions.delete(id);
      return this.#shared.state.deleteSessionsOf(person);
    }
    for (const [id, s] of this.#sessions) {
      if (personKey(s.identity) !== person) continue;
      this.#sessions.delete(id);
      ended++;
    }
    return ended;
  }

  /** Ends every session opened in this session of the identity provider (back-channel logout by sid); how many there were. */
  async endProviderSession(sid: string): Promise<number> {
    let ended = 0;
    for (const [id, s] of this.#sessions) {
      if (s.providerSid !== sid) continue;
      this.#sessions.delete(id);
      ended++;
    }
    return this.#shared ? this.#shared.state.deleteSessionsWithSid(sid) : ended;
  }

  /** Seconds the cookie may live: the session's maximum age. */
  get cookieMaxAge(): number {
    return Math.floor(this.#limits.maxAgeMs / 1000);
  }

  checkCsrf(session: Session, candidate: unknown): boolean {
    return typeof candidate === 'string' && same(candidate, session.csrf);
  }

  #expire(): void {
    const now = this.#now();
    for (const [id, s] of this.#sessions) {
      if (now - s.createdAt >= this.#limits.maxAgeMs || now - s.lastSeen >= this.#limits.idleMs) this.#sessions.delete(id);
    }
  }
}

/**
 * The person a session belongs to: the provider's (issuer, subject) for OpenID Connect, the
 * proxy's user behind the proxy, the name for the login link. Not the name alone: it can change.
 */
export function personKey(identity: Identity): string {
  if (identity.via === 'oidc' && identity.issuer && identity.subject) return `oidc ${identity.issuer.replace(/\/$/, '')} ${identity.subject}`;
  return `${identity.via} ${identity.user}`;
}

/** The audit's actor for a session's user, with the role the act needed. */
export function actorOf(identity: Identity, role?: string): AuditActor {
  return {
    user: identity.user, via: identity.via,
    ...(identity.issuer ? { issuer: identity.issuer } : {}), ...(identity.subject ? { subject: identity.subject } : {}),
    ...(identity.groups.length > 0 ? { groups: identity.groups } : {}), ...(role ? { role } : {}),
  };
}

/**
 * The store's actor for a session's user (a change request's history, a run): the name, and how
 * they signed in — the issuer and subject that make the person, whatever the name says.
 */
export function storeActor(identity: Identity): ActorSource {
  return {
    via: 'console', user: identity.user,
    signIn: {
      kind: identity.via === 'cli' ? 'login-link' : identity.via,
      ...(identity.issuer ? { issuer: identity.issuer } : {}), ...(identity.subject ? { subject: identity.subject } : {}),
      ...(identity.groups.length > 0 ? { groups: [...identity.groups] } : {}),
    },
  };
}

/** A session id as the team store keys it (SHA-256, hex): what a reader of the store sees instead of the id. */
export function sessionHash(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

export function token(): string {
  return randomBytes(24).toString('base64url');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
