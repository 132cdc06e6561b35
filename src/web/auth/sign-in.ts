// Who is at the other end of a request, in the three ways the console can run:
// - the login link (one person, loopback): `offsetctl ui` prints a URL with a one-time token;
// - OpenID Connect: /auth/login sends the browser to the provider, /auth/callback signs in;
// - behind an authenticating proxy: the configured header names the user, believed only on a
//   connection from a configured proxy address (the TCP peer, never a forwarded-for header).
// Each ends in a server-side session (auth.ts). Sign-in attempts are rate-limited per client
// address; sign-ins, refused sign-ins and sign-outs go into the audit trail.
import type { Context, Hono } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import { getConnInfo } from '@hono/node-server/conninfo';
import { html, raw, type Html } from '../html.js';
import { actorOf, SESSION_COOKIE, Sessions, type Identity, type Session } from './sessions.js';
import type { Store } from '../ops-bridge.js';
import { OidcSignIn, SignInError, localPath } from './oidc.js';
import { headerGroups, unmapped } from './proxy.js';
import { RateLimit } from './rate-limit.js';
import { Access } from './roles.js';
import type { ServiceConfig } from './service-config.js';

const FLOW_COOKIE = 'offsetctl_signin';

export interface SignInOptions {
  store: Store;
  /** Served over TLS (cookies get Secure). A signed-in service always sets Secure. */
  secure: boolean;
  /** The service config; absent: the login link for one person. */
  service?: ServiceConfig;
  /** The user who opens the login link (the one who started the console). */
  localIdentity?: Identity;
  /** `https://host:port` as browsers reach it (the OpenID redirect URI is built on it). */
  publicUrl: () => string;
}

type AnyContext = Context<{ Variables: { session: Session } }>;

export class SignIn {
  readonly sessions: Sessions;
  readonly #opts: SignInOptions;
  readonly #oidc: OidcSignIn | undefined;
  readonly #limit: RateLimit;

  constructor(opts: SignInOptions) {
    this.#opts = opts;
    const service = opts.service;
    this.sessions = service
      ? new Sessions({ limits: { maxAgeMs: service.session.maxAgeMs, idleMs: service.session.idleMs } })
      : new Sessions({ loginLinkFor: opts.localIdentity ?? { user: 'local', groups: [], via: 'login-link' } });
    this.#oidc = service?.signIn.kind === 'oidc' ? new OidcSignIn(service.signIn.oidc, () => `${opts.publicUrl()}/auth/callback`) : undefined;
    this.#limit = new RateLimit(service?.signInPerMinute ?? 10);
  }

  get mode(): 'link' | 'oidc' | 'proxy' {
    return this.#opts.service ? this.#opts.service.signIn.kind : 'link';
  }

  /** The routes that come before the session check: /login (link), /auth/login and /auth/callback (OpenID). */
  routes(app: Hono<{ Variables: { session: Session } }>): void {
    app.get('/login', async (c) => {
      if (this.mode !== 'link') return c.html(page('Sign in', html`<p>This console signs people in through ${this.mode === 'oidc' ? 'the identity provider' : 'the sign-in proxy'}.</p>${signInLink(this.mode)}`), 404);
      const wait = this.#limit.take(clientAddress(c));
      if (wait > 0) return tooMany(c, wait);
      const session = this.sessions.login(c.req.query('token'));
      if (!session) return c.html(page('Login refused', html`<p>This login link is not valid or was already used. Start <code>offsetctl ui</code> again and open the URL it prints.</p>`), 403);
      this.#setSessionCookie(c, session);
      await this.#audit(session.identity, 'sign-in', 'done');
      return c.redirect('/connectors', 303);
    });

    app.get('/auth/login', async (c) => {
      if (!this.#oidc) return c.notFound();
      const wait = this.#limit.take(clientAddress(c));
      if (wait > 0) return tooMany(c, wait);
      try {
        const { url, flowId } = await this.#oidc.start(localPath(c.req.query('next')));
        setCookie(c, FLOW_COOKIE, flowId, { httpOnly: true, secure: true, sameSite: 'Lax', path: '/auth/', maxAge: 600 });
        return c.redirect(url, 303);
      } catch (err) {
        return c.html(page('Sign-in unavailable', html`<p>${err instanceof SignInError ? err.message : 'the identity provider could not be reached'}</p>`), 502);
      }
    });

    app.get('/auth/callback', async (c) => {
      if (!this.#oidc) return c.notFound();
      const wait = this.#limit.take(clientAddress(c));
      if (wait > 0) return tooMany(c, wait);
      const flowId = getCookie(c, FLOW_COOKIE);
      deleteCookie(c, FLOW_COOKIE, { path: '/auth/', secure: true });
      let signedIn: { identity: Identity; next: string };
      try {
        signedIn = await this.#oidc.finish(flowId, new URL(c.req.url).search);
      } catch (err) {
        const why = err instanceof SignInError ? err.message : 'the sign-in could not be completed';
        return c.html(page('Sign-in refused', html`<p>${why}</p>${signInLink('oidc')}`), 403);
      }
      const session = await this.#open(c, signedIn.identity);
      if (!session) return noRole(c, signedIn.identity);
      // The provider's redirect was a cross-site navigation: a redirect from here would still be
      // one, and the browser would not send the SameSite=Strict cookie with it. A page of ours
      // that moves on by itself is a same-site navigation.
      return c.html(page('Signed in', html`<meta http-equiv="refresh" content="0;url=${signedIn.next}"><p>Signed in as ${signedIn.identity.user}. <a href="${signedIn.next}">Continue</a></p>`));
    });
  }

  /** The session of this request, or the answer to send instead (403 with how to sign in). */
  async authenticate(c: AnyContext): Promise<Session | Response> {
    if (this.mode === 'proxy') return this.#fromProxy(c);
    const session = this.sessions.find(getCookie(c, SESSION_COOKIE));
    if (session) return session;
    if (this.mode === 'oidc') {
      // A page asked for without a session: sign in first, then come back to it.
      const next = c.req.method === 'GET' ? localPath(new URL(c.req.url).pathname + new URL(c.req.url).search) : '/connectors';
      return c.html(page('Not signed in', html`<p>Sign in to use this console.</p>${signInLink('oidc', next)}`), 403);
    }
    return c.html(page('Not signed in', html`<p>Open the URL printed by <code>offsetctl ui</code> (it carries a one-time login token).</p>`), 403);
  }

  /** POST /auth/logout (after the session and CSRF checks). */
  async logout(c: AnyContext, session: Session): Promise<Response> {
    this.sessions.end(session);
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: this.#secure(), httpOnly: true, sameSite: 'Strict' });
    await this.#audit(session.identity, 'sign-out', 'done');
    const again = this.mode === 'oidc' ? signInLink('oidc') : this.mode === 'link' ? html`<p>Start <code>offsetctl ui</code> again to sign in.</p>` : html``;
    return c.html(page('Signed out', html`<p>You are signed out of this console.</p>${again}`));
  }

  async #fromProxy(c: AnyContext): Promise<Session | Response> {
    const proxy = this.#opts.service!.signIn.kind === 'proxy' ? (this.#opts.service!.signIn as { proxy: import('./service-config.js').ProxyConfig }).proxy : undefined;
    if (!proxy) throw new Error('not in proxy mode');
    const peer = clientAddress(c);
    if (!proxy.trusted.matches(peer)) {
      process.stderr.write(`offsetctl ui: refused a request from ${peer}: not a configured sign-in proxy (${proxy.trustedText.join(', ')})\n`);
      return c.html(page('Refused', html`<p>This console is reached through its sign-in proxy only.</p>`), 403);
    }
    const user = c.req.header(proxy.userHeader)?.trim();
    if (!user) return c.html(page('Not signed in', html`<p>The sign-in proxy sent no user (header ${proxy.userHeader}).</p>`), 403);
    const groups = proxy.groupsHeader ? headerGroups(c.req.header(proxy.groupsHeader)) : [];
    const existing = this.sessions.find(getCookie(c, SESSION_COOKIE));
    // The proxy says who it is on every request; a session whose user or groups differ is not this one.
    if (existing && existing.identity.user === user && existing.identity.groups.join('\n') === groups.join('\n')) return existing;
    if (existing) this.sessions.end(existing);
    const session = await this.#open(c, { user, groups, via: 'proxy' });
    return session ?? noRole(c, { user, groups, via: 'proxy' });
  }

  /** A session for a user with at least one role; undefined (and a refused sign-in in the audit) without one. */
  async #open(c: AnyContext, identity: Identity): Promise<Session | undefined> {
    const access = Access.of(identity.groups, this.#opts.service?.grants ?? []);
    if (!access.highest()) {
      await this.#audit(identity, 'sign-in', 'refused', `no role: none of the groups (${identity.groups.join(', ') || 'none'}) has a grant in the console's roles`);
      return undefined;
    }
    const session = this.sessions.create(identity, access);
    this.#setSessionCookie(c, session);
    await this.#audit(identity, 'sign-in', 'done', access.describe());
    return session;
  }

  #setSessionCookie(c: AnyContext, session: Session): void {
    setCookie(c, SESSION_COOKIE, session.id, {
      httpOnly: true, sameSite: 'Strict', secure: this.#secure(), path: '/',
      ...(this.mode === 'link' ? {} : { maxAge: this.sessions.cookieMaxAge }),
    });
  }

  #secure(): boolean {
    return this.#opts.secure || this.mode !== 'link';
  }

  async #audit(identity: Identity, action: string, outcome: 'done' | 'refused', message?: string): Promise<void> {
    await this.#opts.store.recordAudit({ actor: actorOf(identity), action, outcome, ...(message ? { message } : {}) }).catch((err: unknown) => {
      process.stderr.write(`offsetctl ui: could not write the audit entry for ${action} of ${identity.user}: ${(err as Error).message}\n`);
    });
  }
}

/** The TCP peer's address (never a header a client can write); 'unknown' outside a real server (tests through app.request). */
export function clientAddress(c: Context): string {
  try {
    return unmapped(getConnInfo(c).remote.address ?? 'unknown');
  } catch {
    return 'unknown';
  }
}

function tooMany(c: Context, wait: number): Response {
  return c.html(page('Too many sign-in attempts', html`<p>Too many sign-in attempts from this address; wait ${wait} s and try again.</p>`), 429, { 'Retry-After': String(wait) });
}

function noRole(c: Context, identity: Identity): Response {
  return c.html(page('No role', html`<p>You are signed in as ${identity.user}, but none of your groups (${identity.groups.join(', ') || 'none'}) has a role in this console. Ask its administrators for one.</p>`), 403);
}

function signInLink(mode: 'link' | 'oidc' | 'proxy', next?: string): Html {
  if (mode !== 'oidc') return html``;
  return html`<p><a class="button primary" href="/auth/login${next && next !== '/connectors' ? raw(`?next=${encodeURIComponent(next)}`) : ''}">Sign in</a></p>`;
}

/** A page outside the console's frame (no navigation, no stylesheet: nobody is signed in, and every asset needs a session). */
export function page(title: string, body: Html): Html {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · offsetctl</title></head><body><main id="main"><h1>${title}</h1>${body}</main></body></html>`;
}
