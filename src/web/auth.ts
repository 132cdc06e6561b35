// Login and sessions. `offsetctl ui` prints a URL with a one-time token (like Jupyter); opening
// it trades the token for a session cookie (HttpOnly, SameSite=Strict, Secure under TLS) and
// redirects to a URL without the token. Every other request needs that cookie; every POST also
// needs the session's CSRF token. Tokens are compared in constant time.
import { randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'offsetctl_session';

export interface Session {
  id: string;
  csrf: string;
  /** The selected context ('' = the one the console was started with). */
  context: string;
}

export class Sessions {
  #loginToken: string | undefined = token();
  readonly #sessions = new Map<string, Session>();

  /** The token for the printed URL; undefined once it has been used. */
  get loginToken(): string | undefined {
    return this.#loginToken;
  }

  /** A new session when `candidate` is the unused login token; the token is spent either way it matches. */
  login(candidate: string | undefined): Session | undefined {
    if (!this.#loginToken || !candidate || !same(candidate, this.#loginToken)) return undefined;
    this.#loginToken = undefined;
    const session: Session = { id: token(), csrf: token(), context: '' };
    this.#sessions.set(session.id, session);
    return session;
  }

  find(id: string | undefined): Session | undefined {
    if (!id) return undefined;
    for (const [key, session] of this.#sessions) if (same(id, key)) return session;
    return undefined;
  }

  checkCsrf(session: Session, candidate: unknown): boolean {
    return typeof candidate === 'string' && same(candidate, session.csrf);
  }
}

function token(): string {
  return randomBytes(24).toString('base64url');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
