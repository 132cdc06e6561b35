// A real OpenID Provider for the console's sign-in tests: `oidc-provider` (OpenID Certified)
// started in this process on a free loopback port, with one static confidential client and an
// account lookup that gives each test user an email (verified unless said otherwise) and groups;
// the users object is read at each sign-in, so a test can change someone's e-mail. Its own login
// and consent pages (the development interactions: any password is accepted for a known login) are driven by
// Chromium like a person would.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { Agent, fetch as undiciFetch } from 'undici';

export interface TestUser {
  /** Absent: the account has no e-mail (the claim is not released). */
  email?: string;
  /** What the provider says of the e-mail (default true). */
  emailVerified?: boolean;
  groups: string[];
}

export interface RunningProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

export interface ProviderOptions {
  /** The provider's signing keys (private JWKs); default: oidc-provider's development key. */
  jwks?: { keys: object[] };
  /**
   * A key set to publish at /jwks instead of the signing keys' public halves: a provider whose ID
   * tokens are signed by a key its key set does not have (what a forged token looks like).
   */
  publishJwks?: { keys: object[] };
  /**
   * Back-channel logout (its feature on, this client's backchannel_logout_uri, sid required): the
   * provider POSTs a logout token there when a session ends at it; `ca` is the console's
   * certificate, trusted for that call only (oidc-provider otherwise refuses loopback addresses).
   */
  backchannelLogout?: { uri: string; ca: string };
}

export async function startOidcProvider(redirectUri: string | string[], users: Record<string, TestUser>, options: ProviderOptions = {}): Promise<RunningProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'offsetctl-console';
  const clientSecret = `test-client-secret-${Math.random().toString(36).slice(2)}-0123456789`;
  const backchannel = options.backchannelLogout ? { fetch: undiciFetch, agent: new Agent({ connect: { ca: options.backchannelLogout.ca } }) } : undefined;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri].flat(),
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic',
      ...(options.backchannelLogout ? { backchannel_logout_uri: options.backchannelLogout.uri, backchannel_logout_session_required: true } : {}),
    }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], groups: ['groups'] },
    scopes: ['openid', 'email', 'groups'],
    findAccount: async (_ctx, id) => {
      const user = users[id];
      if (!user) return undefined;
      // Read at each sign-in: a test may change a user's e-mail between two sign-ins.
      return {
        accountId: id,
        claims: async () => ({ sub: id, ...(user.email !== undefined ? { email: user.email, email_verified: user.emailVerified ?? true } : {}), groups: user.groups }),
      };
    },
    cookies: { keys: [`test-cookie-key-${Math.random().toString(36).slice(2)}`] },
    features: { devInteractions: { enabled: true }, ...(options.backchannelLogout ? { backchannelLogout: { enabled: true } } : {}) },
    ...(backchannel ? { fetch: (url: string, init: object) => backchannel.fetch(url, { ...init, dispatcher: backchannel.agent } as never) } : {}),
    ...(options.jwks ? { jwks: options.jwks } : {}),
  });
  // oidc-provider's own warnings about development settings are expected here.
  provider.on('server_error', (_ctx, err) => process.stderr.write(`oidc-provider: ${err.message}\n`));
  const handle = provider.callback();
  server.on('request', (req, res) => {
    if (options.publishJwks && req.url === '/jwks') {
      res.writeHead(200, { 'content-type': 'application/jwk-set+json' });
      res.end(JSON.stringify(options.publishJwks));
      return;
    }
    void handle(req, res);
  });
  return {
    issuer, clientId, clientSecret,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
