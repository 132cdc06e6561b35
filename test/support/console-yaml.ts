// The console.yaml blocks the console's integration tests write again and again: sign-in through
// a trusted proxy on loopback, and sign-in with the tests' OpenID provider. Each returns its lines
// ending with a newline, so a test's own lines (a `user-claim:` of the oidc block, `roles:`) follow.

/** `sign-in: proxy:` trusting 127.0.0.1, the person in X-Forwarded-Email and their groups in X-Forwarded-Groups. */
export const PROXY_SIGN_IN = `sign-in:
  proxy:
    user-header: X-Forwarded-Email
    groups-header: X-Forwarded-Groups
    trusted-proxies: [127.0.0.1]
`;

/** `sign-in: oidc:` with the provider's issuer and client, the secret from `secretEnv`, scopes openid, email and groups. */
export function oidcSignIn(provider: { issuer: string; clientId: string }, secretEnv: string): string {
  return `sign-in:
  oidc:
    issuer: ${provider.issuer}
    client-id: ${provider.clientId}
    client-secret-env: ${secretEnv}
    scopes: [openid, email, groups]
`;
}
