// Who is at the other end of a request, in the three ways the console can run:
// - the login link (one person, loopback): `offsetctl ui` prints a URL with a one-time token;
// - OpenID Connect: /auth/login sends the browser to the provider, /auth/callback signs in;
// - behind an authenticating proxy: the configured header names the user, believed only on a
//   connection from a configured proxy address (the TCP peer, never a forwarded-for header).
// Each ends in a server-side session (sessions.ts). Failed sign-ins are rate-limited per flow and
// client address; sign-ins, refused sign-ins (with the reason and the client's address) and
// sign-outs go into the audit trail, the log and the metrics. Behind the proxy one session serves
// all of a person's requests, and its sign-in is audited once, not per request.
import type { Context, Hono } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import { getConnInfo } from '@hono/node-server/conninfo';
import { bodyLimit } from 'hono/body-limit';
import { redactText } from '../../http/redact.js';
import { html, raw, type Html } from '../html.js';
import { actorOf, personKey, SESSION_COOKIE, Sessions, type Identity, type Session } from './sessions.js';
import type { SharedConsoleState, Store } from '../ops-bridge.js';
import { OidcSignIn, SignInError, localPath, type RefusalReason, type SignedIn } from './oidc.js';
import { forwardedClient, headerGroups, unmapped } from './proxy.js';
import { reqIdOf, type ConsoleLog, type ConsoleMetrics } from '../observe/index.js';
import { RateLimit, SignInFailures } from './rate-limit.js';
import { recheckRoles } from './recheck.js';
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
  metrics: ConsoleMetrics;
  log: ConsoleLog;
}

/** How many OpenID flows an address may start in a minute, per failure allowed (each holds server memory for 10 minutes). */
const STARTS_PER_FAILURE = 5;
/** How long a proxy identity without a role is refused without a new audit entry. */
const PROXY_REFUSAL_MEMORY_MS = 10 * 60_000;

type AnyContext = Context;

export class SignIn {
  readonly sessions: Sessions;
  readonly #opts: SignInOptions;
  readonly #oidc: OidcSignIn | undefined;
  /** Failed sign-ins per flow and address (on a team store, counted there for every replica). */
  readonly #failures: SignInFailures;
  /** OpenID flows started per address. */
  readonly #starts: RateLimit;
  /** Behind the proxy: the one session of each identity (user and groups as the proxy says them). */
  readonly #proxySessions = new Map<string, string>();
  /** Proxy identities refused for want of a role, and when (audited once in a while, not per request). */
  readonly #proxyRefused = new Map<string, number>();
  /** When a rate-limited address was last audited, per flow. */
  readonly #limitAudited = new Map<string, number>();

  constructor(opts: SignInOptions) {
    this.#opts = opts;
    const service = opts.service;
    this.sessions = service
      ? new Sessions({ limits: { maxAgeMs: service.session.maxAgeMs, idleMs: service.session.idleMs } })
      : new Sessions({ loginLinkFor: opts.localIdentity ?? { user: 'local', groups: [], via: 'login-link' } });
    this.#oidc = service?.signIn.kind === 'oidc' ? new OidcSignIn(service.signIn.oidc, () => `${opts.publicUrl()}/auth/callback`) : undefined;
    this.#failures = new SignInFailures(service?.signInPerMinute ?? 10);
    this.#starts = new RateLimit((service?.signInPerMinute ?? 10) * STARTS_PER_FAILURE);
  }

  /** On a team store: failed sign-ins are counted there, so the limit holds across console replicas. */
  share(state: SharedConsoleState): void {
    this.#failures.share(state);
    this.#oidc?.share(state);
  }

  /** The client's address: the TCP peer, or what a trusted proxy says it was reached from. */
  client(c: Context): string {
    return forwardedClient(peerAddress(c), c.req.header('x-forwarded-for'), this.#opts.service?.trustedProxies);
  }

  get mode(): 'link' | 'oidc' | 'proxy' {
    return this.#opts.service ? this.#opts.service.signIn.kind : 'link';
  }

  /** The routes that come before the session check: /login (link), /auth/login and /auth/callback (OpenID). */
  routes(app: Hono<{ Variables: { session: Session; context: string } }>): void {
    app.get('/login', async (c) => {
      if (this.mode !== 'link') return c.html(page('Sign in', html`<p>This console signs people in through ${this.mode === 'oidc' ? 'the identity provider' : 'the sign-in proxy'}.</p>${signInLink(this.mode)}`), 404);
      const limited = await this.#limited(c, 'link');
      if (limited) return limited;
      const session = this.sessions.login(c.req.query('token'));
      if (!session) {
        await this.#refuse(c, 'link', { user: 'unknown', groups: [], via: 'login-link' }, 'flow', 'the login link is not valid or was already used');
        const again = html`Start <code>offsetctl ui</code> again and open the URL it prints.`;
        return c.html(page('Login refused', html`<p>This login link is not valid or was already used. ${again}</p>`), 403);
      }
      await this.sessions.save(session);
      this.#setSessionCookie(c, session);
      await this.#signedIn(c, session.identity);
      return c.redirect('/connectors', 303);
    });

    app.get('/auth/login', async (c) => {
      if (!this.#oidc) return c.notFound();
      const limited = await this.#limited(c, 'oidc');
      if (limited) return limited;
      const starts = this.#starts.take(`start ${this.client(c)}`);
      if (starts > 0) return tooMany(c, starts);
      try {
        // The provider's redirect back is cross-site: the SameSite=Strict session cookie does not
        // come with it. The session this browser has now is noted here, and ended when the new one opens.
        const current = await this.sessions.resolve(getCookie(c, SESSION_COOKIE));
        const { url, flowId } = await this.#oidc.start(localPath(c.req.query('next')), current?.id);
        setCookie(c, FLOW_COOKIE, flowId, { httpOnly: true, secure: true, sameSite: 'Lax', path: '/auth/', maxAge: 600 });
        return c.redirect(url, 303);
      } catch (err) {
        return c.html(page('Sign-in unavailable', html`<p>${err instanceof SignInError ? err.message : 'the identity provider could not be reached'}</p>`), 502);
      }
    });

    // The provider calls this itself (no browser, no cookie, no CSRF token): the logout token is the proof.
    app.post('/auth/backchannel-logout', bodyLimit({ maxSize: 64 * 1024 }), (c) => (this.#oidc ? this.#backchannelLogout(c) : c.notFound()));

    app.get('/auth/callback', async (c) => {
      if (!this.#oidc) return c.notFound();
      const limited = await this.#limited(c, 'oidc');
      if (limited) return limited;
      const flowId = getCookie(c, FLOW_COOKIE);
      deleteCookie(c, FLOW_COOKIE, { path: '/auth/', secure: true });
      let signedIn: SignedIn;
      try {
        signedIn = await this.#oidc.finish(flowId, new URL(c.req.url).search);
      } catch (err) {
        const why = err instanceof SignInError ? err.message : 'the sign-in could not be completed';
        const who = err instanceof SignInError && err.who ? { issuer: err.who.issuer, subject: err.who.subject } : { issuer: this.#oidc.issuer };
        await this.#refuse(c, 'oidc', { user: 'unknown', groups: [], via: 'oidc', ...who }, err instanceof SignInError ? err.reason : 'invalid-token', why);
        return c.html(page('Sign-in refused', html`<p>${why}</p>${signInLink('oidc')}`), 403);
      }
      // A new sign-in ends the session it replaces (in this browser), whoever signs in now.
      const replaced = this.sessions.find(signedIn.replaces);
      if (replaced) await this.sessions.end(replaced);
      if (signedIn.replacesHash) await this.sessions.endByHash(signedIn.replacesHash);
      const session = await this.#open(c, signedIn.identity, (s) => {
        if (signedIn.sid) s.providerSid = signedIn.sid;
      });
      if (!session) return noRole(c, signedIn.identity);
      if (signedIn.idToken) session.idToken = signedIn.idToken;
      if (signedIn.accessToken) session.accessToken = signedIn.accessToken;
      session.rolesCheckedAt = Date.now();
      if (signedIn.userinfoWorked) session.rolesRecheckWorked = true;
      // The provider's redirect was a cross-site navigation: a redirect from here would still be
      // one, and the browser would not send the SameSite=Strict cookie with it. A page of ours
      // that moves on by itself is a same-site navigation.
      return c.html(page('Signed in', html`<meta http-equiv="refresh" content="0;url=${signedIn.next}"><p>Signed in as ${signedIn.identity.user}. <a href="${signedIn.next}">Continue</a></p>`));
    });
  }

  /**
   * POST /auth/backchannel-logout (OpenID Connect Back-Channel Logout 1.0): the provider says a
   * person's session there ended. A logout token that passes every check (oidc.ts) ends the
   * console sessions of that provider session (sid) or else of that person (sub), on every replica
   * of a team store (sessions live there); either way the audit has it. Failures count toward the
   * address's limit like failed sign-ins.
   */
  async #backchannelLogout(c: AnyContext): Promise<Response> {
    const oidc = this.#oidc!;
    const limited = await this.#limited(c, 'backchannel');
    if (limited) return limited;
    const address = this.client(c);
    const form = await c.req.parseBody();
    let who: Awaited<ReturnType<OidcSignIn['verifyLogoutToken']>>;
    try {
      if (typeof form.logout_token !== 'string' || form.logout_token === '') throw new SignInError('the request has no logout_token', 'invalid-logout-token');
      who = await oidc.verifyLogoutToken(form.logout_token);
    } catch (err) {
      const why = err instanceof SignInError ? err.message : `the logout token could not be checked: ${redactText((err as Error).message)}`;
      await this.#failures.count(`backchannel ${address}`);
      this.#opts.log.warn({ event: 'backchannel-logout-refused', reqId: reqIdOf(c), ip: address }, `back-channel logout refused from ${address}: ${why}`);
      const unknown: Identity = { user: 'unknown', groups: [], via: 'oidc', issuer: oidc.issuer };
      await this.#audit(unknown, 'sign-out', 'refused', `[invalid-logout-token] back-channel logout: ${why} (client ${address})`);
      const unavailable = err instanceof SignInError && err.reason === 'provider-unavailable';
      return c.json({ error: unavailable ? 'temporarily_unavailable' : 'invalid_request', error_description: why }, unavailable ? 503 : 400);
    }
    const identity: Identity = {
      user: who.subject ?? 'unknown', groups: [], via: 'oidc', issuer: who.issuer, ...(who.subject ? { subject: who.subject } : {}),
    };
    const ended = who.sid ? await this.sessions.endProviderSession(who.sid) : await this.sessions.endPerson(personKey(identity));
    const what = `${ended} session${ended === 1 ? '' : 's'} ended`;
    const of = who.sid ? 'of its session' : `of subject ${who.subject}`;
    const line = { event: 'sign-out', reason: 'backchannel-logout', subject: who.subject, sessions: ended, ip: address };
    this.#opts.log.info(line, `back-channel logout ${of}: ${what}`);
    await this.#audit(identity, 'sign-out', 'done', `back-channel logout from the identity provider ${of}: ${what} (client ${address})`);
    return c.body(null, 200);
  }

  /** The session of this request, or the answer to send instead (403 with how to sign in). */
  async authenticate(c: AnyContext): Promise<Session | Response> {
    if (this.mode === 'proxy') return this.#fromProxy(c);
    const session = await this.sessions.resolve(getCookie(c, SESSION_COOKIE));
    if (session) return (await this.#recheck(c, session)) ?? session;
    if (this.mode === 'oidc') {
      // A page asked for without a session: sign in first, then come back to it.
      const next = c.req.method === 'GET' ? localPath(new URL(c.req.url).pathname + new URL(c.req.url).search) : '/connectors';
      return c.html(page('Not signed in', html`<p>Sign in to use this console.</p>${signInLink('oidc', next)}`), 403);
    }
    return c.html(page('Not signed in', html`<p>Open the URL printed by <code>offsetctl ui</code> (it carries a one-time login token).</p>`), 403);
  }

  /** The periodic roles check (recheck.ts): its outcome audited, logged and, for a person signed out, answered. */
  async #recheck(c: AnyContext, session: Session): Promise<Response | undefined> {
    if (!this.#oidc) return undefined;
    const outcome = await recheckRoles(session, {
      oidc: this.#oidc, everyMs: this.#opts.service?.session.recheckMs ?? 0, grants: this.#opts.service?.grants ?? [], log: this.#opts.log,
    });
    if (outcome.kind === 'kept') return undefined;
    if (outcome.kind === 'changed') {
      const { user, groups } = session.identity;
      this.#opts.log.info({ event: 'roles-changed', user, from: outcome.before, to: groups }, `${user}'s groups changed at the provider`);
      const change = `groups ${outcome.before.join(', ') || 'none'} -> ${groups.join(', ') || 'none'}`;
      await this.#audit(session.identity, 'sign-in', 'done', `roles re-checked at the provider: ${change}; ${session.access.describe()}`);
      return undefined;
    }
    await this.sessions.end(session);
    const user = session.identity.user;
    this.#opts.log.info({ event: 'sign-out', reason: 'roles-recheck', user, ip: this.client(c) }, `${user} signed out: ${outcome.why}`);
    await this.#audit(session.identity, 'sign-out', 'done', `roles re-checked at the provider: ${outcome.why}`);
    return c.html(page('Signed out', html`<p>You were signed out: ${outcome.why}.</p>${signInLink('oidc')}`), 403);
  }

  /** POST /auth/logout (after the session and CSRF checks); `everywhere`: every session of this person, in every browser. */
  async logout(c: AnyContext, session: Session, everywhere = false): Promise<Response> {
    let ended = 1;
    if (everywhere) ended = await this.sessions.endPerson(personKey(session.identity));
    else await this.sessions.end(session);
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: this.#secure(), httpOnly: true, sameSite: 'Strict' });
    const where = everywhere ? ` everywhere (${ended} session${ended === 1 ? '' : 's'})` : '';
    this.#opts.log.info({ event: 'sign-out', reqId: reqIdOf(c), user: session.identity.user, ip: this.client(c), sessions: ended },
      `${session.identity.user} signed out${where}`);
    await this.#audit(session.identity, 'sign-out', 'done', everywhere ? `signed out everywhere: ${ended} session${ended === 1 ? '' : 's'} ended` : undefined);
    const atProvider = this.#oidc ? await this.#oidc.endSessionUrl(session.idToken) : undefined;
    const again = this.mode === 'oidc'
      ? html`${atProvider ? html`<p>You are still signed in at the identity provider, which would sign you in here again without asking.
<a class="button" id="provider-sign-out" href="${atProvider}">Sign out at the identity provider too</a></p>` : ''}${signInLink('oidc')}`
      : this.mode === 'link' ? html`<p>Start <code>offsetctl ui</code> again to sign in.</p>` : html``;
    const all = everywhere ? html`, in every browser (${ended} session${ended === 1 ? '' : 's'} ended)` : '';
    return c.html(page('Signed out', html`<p>You are signed out of this console${all}.</p>${again}`));
  }

  async #fromProxy(c: AnyContext): Promise<Session | Response> {
    const proxy = this.#opts.service!.signIn.kind === 'proxy' ? (this.#opts.service!.signIn as { proxy: import('./service-config.js').ProxyConfig }).proxy : undefined;
    if (!proxy) throw new Error('not in proxy mode');
    const peer = peerAddress(c);
    if (!proxy.trusted.matches(peer)) {
      this.#opts.metrics.signIns.inc({ via: 'proxy', outcome: 'refused', reason: 'untrusted-proxy' });
      this.#opts.log.warn({ event: 'untrusted-proxy', reqId: reqIdOf(c), ip: peer },
        `refused a request from ${peer}: not a configured sign-in proxy (${proxy.trustedText.join(', ')})`);
      return c.html(page('Refused', html`<p>This console is reached through its sign-in proxy only.</p>`), 403);
    }
    const user = c.req.header(proxy.userHeader)?.trim();
    if (!user) return c.html(page('Not signed in', html`<p>The sign-in proxy sent no user (header ${proxy.userHeader}).</p>`), 403);
    const groups = proxy.groupsHeader ? headerGroups(c.req.header(proxy.groupsHeader)) : [];
    // The proxy says who it is on every request: one session per identity (user and groups), found
    // by that, whatever cookie came along; a change of groups is another identity, signed in anew.
    const key = JSON.stringify([user, groups]);
    const existing = this.sessions.find(this.#proxySessions.get(key));
    if (existing) return existing;
    this.#proxySessions.delete(key);
    // Someone without a role, refused a moment ago: refused again without another audit entry.
    const refusedAt = this.#proxyRefused.get(key);
    if (refusedAt !== undefined && refusedAt > Date.now() - PROXY_REFUSAL_MEMORY_MS) return noRole(c, { user, groups, via: 'proxy' });
    const session = await this.#open(c, { user, groups, via: 'proxy' });
    if (!session) {
      this.#proxyRefused.set(key, Date.now());
      const old = Date.now() - PROXY_REFUSAL_MEMORY_MS;
      if (this.#proxyRefused.size > 1000) for (const [k, at] of this.#proxyRefused) if (at <= old) this.#proxyRefused.delete(k);
      return noRole(c, { user, groups, via: 'proxy' });
    }
    this.#proxySessions.set(key, session.id);
    // Bounded like the sessions: entries of sessions that ended go.
    if (this.#proxySessions.size > 1000) for (const [k, id] of this.#proxySessions) if (!this.sessions.find(id)) this.#proxySessions.delete(k);
    return session;
  }

  /** 429 (and the attempt in the log, the metrics, and once a minute per address the audit) when this flow failed too often from the client's address. */
  async #limited(c: AnyContext, flow: 'link' | 'oidc' | 'backchannel'): Promise<Response | undefined> {
    const address = this.client(c);
    const wait = await this.#failures.wait(`${flow} ${address}`);
    if (wait === 0) return undefined;
    this.#opts.metrics.signIns.inc({ via: flow === 'link' ? 'login-link' : 'oidc', outcome: 'refused', reason: 'rate-limited' });
    const line = { event: 'sign-in-refused', reason: 'rate-limited', flow, reqId: reqIdOf(c), ip: address };
    this.#opts.log.warn(line, `sign-in attempt from ${address} rate-limited`);
    // One audit entry per address and minute, not one per attempt of a loop.
    const key = `${flow} ${address}`;
    const now = Date.now();
    if ((this.#limitAudited.get(key) ?? 0) <= now - 60_000) {
      this.#limitAudited.set(key, now);
      if (this.#limitAudited.size > 10_000) for (const [k, at] of this.#limitAudited) if (at <= now - 60_000) this.#limitAudited.delete(k);
      const what = flow === 'backchannel' ? 'back-channel logouts' : 'sign-ins';
      const who: Identity = { user: 'unknown', groups: [], via: flow === 'link' ? 'login-link' : 'oidc' };
      await this.#audit(who, flow === 'backchannel' ? 'sign-out' : 'sign-in', 'refused',
        `[rate-limited] too many failed ${what} from ${address} in a minute (sign-in.rate-limit ${this.#failures.perMinute}); refused for ${wait} s`);
    }
    return tooMany(c, wait);
  }

  /** A refused sign-in: counted against the address, logged, counted in the metrics and audited with its reason and the client's address. */
  async #refuse(c: AnyContext, flow: 'link' | 'oidc' | 'proxy', identity: Identity, reason: RefusalReason, why: string): Promise<void> {
    const address = this.client(c);
    await this.#failures.count(`${flow} ${address}`);
    this.#opts.metrics.signIns.inc({ via: identity.via, outcome: 'refused', reason });
    this.#opts.log.warn({
      event: 'sign-in-refused', reason, flow, reqId: reqIdOf(c), ip: address,
      ...(identity.subject ? { issuer: identity.issuer, subject: identity.subject } : {}),
    }, `sign-in refused (${reason}) from ${address}: ${why}`);
    await this.#audit(identity, 'sign-in', 'refused', `[${reason}] ${why} (client ${address})`);
  }

  async #signedIn(c: AnyContext, identity: Identity, roles?: string): Promise<void> {
    const address = this.client(c);
    this.#opts.metrics.signIns.inc({ via: identity.via, outcome: 'done', reason: '' });
    this.#opts.log.info({
      event: 'sign-in', via: identity.via, user: identity.user, reqId: reqIdOf(c), ip: address,
      ...(identity.subject ? { issuer: identity.issuer, subject: identity.subject } : {}), groups: identity.groups,
    }, `${identity.user} signed in (${identity.via})`);
    await this.#audit(identity, 'sign-in', 'done', `${roles ? `${roles}; ` : ''}client ${address}`);
  }

  /** A session for a user with at least one role; undefined (and a refused sign-in in the audit) without one. */
  async #open(c: AnyContext, identity: Identity, prepare?: (session: Session) => void): Promise<Session | undefined> {
    const access = Access.of(identity.groups, this.#opts.service?.grants ?? []);
    if (!access.highest()) {
      const why = `no role: none of the groups (${identity.groups.join(', ') || 'none'}) has a grant in the console's roles`;
      await this.#refuse(c, identity.via === 'proxy' ? 'proxy' : 'oidc', identity, 'no-role', why);
      return undefined;
    }
    const session = this.sessions.create(identity, access);
    prepare?.(session);
    // Proxy sessions stay in this process (the proxy says who it is on every request).
    if (identity.via !== 'proxy') await this.sessions.save(session);
    this.#setSessionCookie(c, session);
    await this.#signedIn(c, identity, access.describe());
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
      const line = { event: 'audit-failed', action, user: identity.user, err: (err as Error).message };
      this.#opts.log.error(line, `could not write the audit entry for ${action} of ${identity.user}`);
    });
  }
}

/** The TCP peer's address (never a header a client can write); 'unknown' outside a real server (tests through app.request). */
export function peerAddress(c: Context): string {
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

/** A page outside the console's frame (no navigation: nobody is signed in), with the stylesheet, the one public asset. */
export function page(title: string, body: Html): Html {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · offsetctl</title><link rel="stylesheet" href="/assets/app.css"></head><body><main id="main"><h1>${title}</h1>${body}</main></body></html>`;
}
