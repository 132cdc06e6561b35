// Signing in with OpenID Connect: the authorization code flow with PKCE, through openid-client
// (discovery, the token request, ID token validation: issuer, audience, expiry, nonce, its
// signature against the provider's key set, and an issue time not in the future). The flow
// is bound to the browser that started it by a short-lived cookie (SameSite=Lax, since the
// provider's redirect back is a cross-site navigation) naming server-side state: the PKCE
// verifier, state, nonce and where to go afterwards. That place is a path on this console, chosen
// when the flow starts and checked to be local, never read from the callback: the callback
// cannot redirect anywhere else.
import type * as Jose from 'jose';
import type * as Oidc from 'openid-client';
import { redactText } from '../../http/redact.js';
import { sessionHash, token, type Identity } from './sessions.js';
import type { OidcConfig } from './service-config.js';
import type { SharedConsoleState } from '../ops-bridge.js';
import { isLoopbackHost } from './service-config.js';
import * as load from '../load.js';

const FLOW_TTL_MS = 10 * 60_000;
/** How far the provider's clock may be ahead of ours (openid-client's own tolerance for exp). */
const CLOCK_TOLERANCE_S = 30;
const MAX_FLOWS = 1000;
const LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

interface Flow {
  verifier: string;
  state: string;
  nonce: string;
  next: string;
  at: number;
  /** The session this browser had when it started signing in: the new one replaces it. */
  replaces?: string;
  /** The same as its hash, in a flow kept in the team store (which never holds a live session's id). */
  replacesHash?: string;
}

export class OidcSignIn {
  readonly #config: OidcConfig;
  readonly #redirectUri: () => string;
  readonly #flows = new Map<string, Flow>();
  #client: Promise<{ lib: typeof Oidc; config: Oidc.Configuration }> | undefined;
  /** A team store: sign-ins in progress are kept there (the provider's redirect back may reach another replica). */
  #shared: SharedConsoleState | undefined;
  /** The provider's key set for logout tokens (jose fetches it, and again for a key id it does not know). */
  #jwks: ReturnType<typeof Jose.createRemoteJWKSet> | undefined;

  /** `redirectUri`: `<public url>/auth/callback`, known once the server listens. */
  constructor(config: OidcConfig, redirectUri: () => string) {
    this.#config = config;
    this.#redirectUri = redirectUri;
  }

  share(state: SharedConsoleState): void {
    this.#shared = state;
  }

  get issuer(): string {
    return this.#config.issuer.href;
  }

  /** Starts a flow: the provider's authorization URL, and the flow id for the binding cookie. */
  async start(next: string, replaces?: string): Promise<{ url: string; flowId: string }> {
    const { lib, config } = await this.#discover();
    this.#expire();
    const flow: Flow = {
      verifier: lib.randomPKCECodeVerifier(), state: lib.randomState(), nonce: lib.randomNonce(), next: localPath(next), at: Date.now(),
      ...(replaces ? (this.#shared ? { replacesHash: sessionHash(replaces) } : { replaces }) : {}),
    };
    const flowId = token();
    if (this.#shared) {
      await this.#shared.putSignInFlow(flowId, { ...flow }, new Date(flow.at + FLOW_TTL_MS));
    } else {
      this.#flows.set(flowId, flow);
      while (this.#flows.size > MAX_FLOWS) this.#flows.delete(this.#flows.keys().next().value as string);
    }
    const url = lib.buildAuthorizationUrl(config, {
      redirect_uri: this.#redirectUri(), scope: this.#config.scopes.join(' '),
      code_challenge: await lib.calculatePKCECodeChallenge(flow.verifier), code_challenge_method: 'S256',
      state: flow.state, nonce: flow.nonce,
    });
    return { url: url.href, flowId };
  }

  /**
   * Finishes the flow the cookie names with the provider's answer (the callback's query): the
   * identity and the local path to go to. The flow is spent whatever happens. Throws
   * SignInError with a message for people (no token, code or secret in it).
   */
  async finish(flowId: string | undefined, query: string): Promise<SignedIn> {
    const flow = await this.#takeFlow(flowId);
    if (!flow) throw new SignInError('this sign-in was not started in this browser, or took longer than 10 minutes; sign in again', 'flow');
    const params = new URLSearchParams(query);
    if (params.get('error')) {
      const detail = params.get('error_description') ? ` (${params.get('error_description')})` : '';
      throw new SignInError(`the identity provider refused the sign-in: ${params.get('error')}${detail}`, 'provider-refused');
    }
    const { lib, config } = await this.#discover();
    // The URL the provider redirected to, rebuilt from the configured redirect URI (never from
    // the Host header a client sent).
    const current = new URL(this.#redirectUri());
    current.search = params.toString();
    let tokens: Awaited<ReturnType<typeof lib.authorizationCodeGrant>>;
    try {
      tokens = await lib.authorizationCodeGrant(config, current, { pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce, idTokenExpected: true });
    } catch (err) {
      throw new SignInError(`the sign-in could not be completed: ${redactText(causes(err))}`, 'invalid-token');
    }
    const claims = tokens.claims();
    if (!claims) throw new SignInError('the identity provider sent no ID token', 'invalid-token');
    // openid-client checks that iat is a number, not when it is: a token from the future is refused.
    const ahead = claims.iat - Date.now() / 1000;
    if (ahead > CLOCK_TOLERANCE_S) {
      const why = `the ID token was issued ${Math.round(ahead)} s in the future (iat); check the clocks of the provider and this console`;
      throw new SignInError(`the sign-in could not be completed: ${why}`, 'invalid-token');
    }
    let all: Record<string, unknown> = { ...claims };
    // Many providers put groups (and the e-mail) only into the userinfo answer (the ID token stays small).
    let userinfoWorked = false;
    const nameClaim = this.#config.userClaim ?? 'email';
    const missing = all[this.#config.groupsClaim] === undefined || all[nameClaim] === undefined;
    if (missing && tokens.access_token && config.serverMetadata().userinfo_endpoint) {
      try {
        all = { ...(await lib.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims };
        userinfoWorked = true;
      } catch (err) {
        throw new SignInError(`the identity provider's userinfo could not be read: ${redactText((err as Error).message)}`, 'userinfo');
      }
    }
    let user: string;
    try {
      user = userName(all, this.#config);
    } catch (err) {
      if (err instanceof SignInError) err.who = { issuer: claims.iss, subject: claims.sub };
      throw err;
    }
    return {
      identity: { user, groups: groupsOf(all[this.#config.groupsClaim]), via: 'oidc', issuer: claims.iss, subject: claims.sub },
      next: flow.next,
      // The provider's session at sign-in: a back-channel logout may name it rather than the person.
      ...(typeof claims.sid === 'string' && claims.sid !== '' ? { sid: claims.sid } : {}),
      ...(flow.replaces ? { replaces: flow.replaces } : {}),
      ...(flow.replacesHash ? { replacesHash: flow.replacesHash } : {}),
      ...(tokens.id_token ? { idToken: tokens.id_token } : {}),
      ...(tokens.access_token ? { accessToken: tokens.access_token } : {}),
      userinfoWorked,
    };
  }

  /**
   * The person's groups as the provider says them now (userinfo with the session's access token):
   * undefined when its answer has no groups claim (nothing to compare), 'invalid' when the
   * provider no longer accepts the token (expired, revoked: the provider no longer vouches for
   * the session). Throws when the provider cannot be reached.
   */
  async groupsNow(accessToken: string, subject: string): Promise<string[] | undefined | 'invalid'> {
    const { lib, config } = await this.#discover();
    if (!config.serverMetadata().userinfo_endpoint) return undefined;
    try {
      const info = await lib.fetchUserInfo(config, accessToken, subject);
      const value = (info as Record<string, unknown>)[this.#config.groupsClaim];
      return value === undefined ? undefined : groupsOf(value);
    } catch (err) {
      if ([400, 401, 403].includes((err as { status?: number }).status ?? 0)) return 'invalid';
      throw err;
    }
  }

  /**
   * Where to end the person's session at the provider too (RP-initiated logout), when it has an
   * end_session_endpoint: its page, with the ID token as the hint of who signs out.
   */
  async endSessionUrl(idToken: string | undefined): Promise<string | undefined> {
    try {
      const { lib, config } = await this.#discover();
      if (!config.serverMetadata().end_session_endpoint) return undefined;
      return lib.buildEndSessionUrl(config, idToken ? { id_token_hint: idToken } : {}).href;
    } catch {
      return undefined;
    }
  }

  /**
   * A back-channel logout token (OpenID Connect Back-Channel Logout 1.0, 2.6), checked with jose:
   * its signature against the provider's key set (jwks_uri), iss, aud (this client), iat (present,
   * not ahead of our clock, not older than 10 minutes), the back-channel logout event, no nonce
   * (an ID token is not a logout token), and a sub or a sid. Throws SignInError saying which
   * check failed (never the token).
   */
  async verifyLogoutToken(logoutToken: string): Promise<{ issuer: string; subject?: string; sid?: string }> {
    const { config } = await this.#discover();
    const meta = config.serverMetadata();
    const refuse = (why: string): never => {
      throw new SignInError(`the logout token was refused: ${why}`, 'invalid-logout-token');
    };
    if (!meta.jwks_uri) refuse('the identity provider publishes no key set (jwks_uri)');
    const jose = await load.jose();
    this.#jwks ??= jose.createRemoteJWKSet(new URL(meta.jwks_uri!));
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jose.jwtVerify(logoutToken, this.#jwks, {
        issuer: meta.issuer, audience: this.#config.clientId, requiredClaims: ['iat'], maxTokenAge: '10m', clockTolerance: CLOCK_TOLERANCE_S,
        algorithms: meta.id_token_signing_alg_values_supported?.filter((alg) => alg !== 'none') ?? ['RS256'],
      }));
    } catch (err) {
      return refuse(redactText(causes(err)));
    }
    if ((claims.iat as number) - Date.now() / 1000 > CLOCK_TOLERANCE_S) refuse('it was issued in the future (iat)');
    const events = claims.events as Record<string, unknown> | undefined;
    const event = events?.[LOGOUT_EVENT];
    if (!event || typeof event !== 'object' || Array.isArray(event)) refuse(`its events claim has no ${LOGOUT_EVENT} member`);
    if (claims.nonce !== undefined) refuse('it has a nonce (an ID token is not a logout token)');
    const subject = typeof claims.sub === 'string' && claims.sub !== '' ? claims.sub : undefined;
    const sid = typeof claims.sid === 'string' && claims.sid !== '' ? claims.sid : undefined;
    if (!subject && !sid) refuse('it names neither a subject (sub) nor a session (sid)');
    return { issuer: String(claims.iss), ...(subject ? { subject } : {}), ...(sid ? { sid } : {}) };
  }

  /** Discovery once; a provider that did not answer is asked again on the next sign-in. */
  #discover(): Promise<{ lib: typeof Oidc; config: Oidc.Configuration }> {
    if (!this.#client) {
      this.#client = (async () => {
        const lib = await load.openidClient();
        const c = this.#config;
        const auth = c.clientSecret ? lib.ClientSecretBasic(c.clientSecret) : lib.None();
        // Plain http only for a provider on loopback (service-config.ts refuses it elsewhere).
        const insecure = c.issuer.protocol === 'http:' && isLoopbackHost(c.issuer.hostname);
        try {
          const config = await lib.discovery(c.issuer, c.clientId, c.clientSecret ? undefined : { token_endpoint_auth_method: 'none' }, auth, {
            // The ID token's signature is checked against the provider's key set (jwks_uri), not
            // only trusted for coming over TLS from the token endpoint.
            execute: [...(insecure ? [lib.allowInsecureRequests] : []), lib.enableNonRepudiationChecks], timeout: 10,
          });
          return { lib, config };
        } catch (err) {
          const why = `did not answer its discovery document (${redactText((err as Error).message)}); check sign-in.oidc.issuer and that the provider is up`;
          throw new SignInError(`the identity provider at ${c.issuer.href} ${why}`, 'provider-unavailable');
        }
      })();
      this.#client.catch(() => (this.#client = undefined));
    }
    return this.#client;
  }

  /** The flow this id names, taken out (spent whatever happens next): this process's, or the team store's. */
  async #takeFlow(flowId: string | undefined): Promise<Flow | undefined> {
    if (!flowId) return undefined;
    if (this.#shared) return (await this.#shared.takeSignInFlow(flowId)) as Flow | undefined;
    this.#expire();
    const flow = this.#flows.get(flowId);
    this.#flows.delete(flowId);
    return flow;
  }

  #expire(): void {
    const now = Date.now();
    for (const [id, f] of this.#flows) if (now - f.at > FLOW_TTL_MS) this.#flows.delete(id);
  }
}

/** Why a sign-in was refused: a short code for the audit, the log and the metrics. */
export type RefusalReason = 'flow' | 'provider-refused' | 'provider-unavailable' | 'invalid-token' | 'userinfo' | 'missing-claim' | 'unverified-email'
  | 'no-role' | 'rate-limited' | 'untrusted-proxy' | 'no-user' | 'invalid-logout-token';

/** A finished sign-in: who, where to go, and what the session keeps on the server. */
export interface SignedIn {
  identity: Identity;
  next: string;
  /** The session this browser had, which the new one replaces (or its hash, from the team store). */
  replaces?: string;
  replacesHash?: string;
  /** The provider's session id (the ID token's sid claim). */
  sid?: string;
  idToken?: string;
  accessToken?: string;
  /** The provider's userinfo answered this access token (so a later refusal means it was revoked or expired). */
  userinfoWorked: boolean;
}

export class SignInError extends Error {
  override name = 'SignInError';
  /** Who the provider said it was, when the refusal came after a valid ID token (for the audit). */
  who?: { issuer: string; subject: string };
  constructor(message: string, readonly reason: RefusalReason) {
    super(message);
  }
}

/**
 * The name the audit shows for these claims: only a label, the person being (issuer, sub). The
 * configured user-claim must be there (no silent fall-back to another claim: two people could
 * then share a name); without one, email, else preferred_username, else sub. An e-mail used as
 * the name must be verified by the provider (`email_verified: true`) unless the config allows
 * otherwise: an address a user can set at the provider is not theirs until verified.
 */
export function userName(claims: Record<string, unknown>, config: Pick<OidcConfig, 'userClaim' | 'allowUnverifiedEmail'>): string {
  let claim: string;
  let user: string | undefined;
  if (config.userClaim) {
    claim = config.userClaim;
    user = pick(claims, claim);
    if (user === undefined) {
      const fix = 'ask the provider\'s administrators to release it to this client';
      throw new SignInError(`the identity provider sent no ${claim} claim, which sign-in.oidc.user-claim names; ${fix}`, 'missing-claim');
    }
  } else {
    claim = ['email', 'preferred_username'].find((name) => pick(claims, name) !== undefined) ?? 'sub';
    user = pick(claims, claim) ?? String(claims.sub);
  }
  if (claim === 'email' && claims.email_verified !== true && !config.allowUnverifiedEmail) {
    const fix = 'verify it at the provider, or set sign-in.oidc.allow-unverified-email: true';
    throw new SignInError(`the identity provider does not say that the e-mail address ${user} is verified (email_verified); ${fix}`, 'unverified-email');
  }
  return user;
}

/**
 * A path on this console to go to after signing in, or /connectors: `//evil.example`,
 * `/\evil.example`, `https://evil.example` and anything with a scheme or a control character
 * are not local paths.
 */
export function localPath(next: string | undefined): string {
  if (!next || !/^\/(?![/\\])[\x21-\x7e]*$/.test(next) || next.startsWith('/auth/')) return '/connectors';
  return next;
}

/** `invalid response encountered: JWS signature verification failed`: openid-client's words and what caused them. */
function causes(err: unknown): string {
  const words: string[] = [];
  for (let e = err as { message?: string; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.message === 'string' && !words.includes(e.message)) words.push(e.message);
  }
  return words.join(': ') || String(err);
}

function pick(claims: Record<string, unknown>, name: string | undefined): string | undefined {
  if (!name) return undefined;
  const v = claims[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A groups claim: a list of names, or one name, or names separated by commas or spaces. */
function groupsOf(v: unknown): string[] {
  if (Array.isArray(v)) return v.filter((g): g is string => typeof g === 'string' && g !== '');
  if (typeof v === 'string') return v.split(/[,\s]+/).filter((g) => g !== '');
  return [];
}
