// The sign-in room: the service config (sign-in, sessions, roles), the three ways to sign in
// (the login link, OpenID Connect, an authenticating proxy), server-side sessions and the roles
// checked for every request. The rest of the console enters it only here.
export { actorOf, personKey, storeActor, Sessions, type Identity, type Session, type SessionLimits } from './sessions.js';
export { Access, type Grant, type Role } from './roles.js';
export { parseServiceConfig, type ServiceConfig, type OidcConfig, type ProxyConfig } from './service-config.js';
export { SignIn, type SignInOptions } from './sign-in.js';
