// A real OpenID Provider for the console's sign-in tests: `oidc-provider` (OpenID Certified)
// started in this process on a free loopback port, with one static confidential client and an
// account lookup that gives each test user an email and groups. Its own login and consent pages
// (the development interactions: any password is accepted for a known login) are driven by
// Chromium like a person would.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestUser {
  email: string;
  groups: string[];
}

export interface RunningProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

export async function startOidcProvider(redirectUri: string, users: Record<string, TestUser>): Promise<RunningProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'offsetctl-console';
  const clientSecret = `test-client-secret-${Math.random().toString(36).slice(2)}-0123456789`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri],
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic',
    }],
    claims: { openid: ['sub'], email: ['email'], groups: ['groups'] },
    scopes: ['openid', 'email', 'groups'],
    findAccount: async (_ctx, id) => {
      const user = users[id];
      if (!user) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, email: user.email, groups: user.groups }) };
    },
    cookies: { keys: [`test-cookie-key-${Math.random().toString(36).slice(2)}`] },
    features: { devInteractions: { enabled: true } },
  });
  // oidc-provider's own warnings about development settings are expected here.
  provider.on('server_error', (_ctx, err) => process.stderr.write(`oidc-provider: ${err.message}\n`));
  server.on('request', provider.callback());
  return {
    issuer, clientId, clientSecret,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
