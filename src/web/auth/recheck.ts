// Roles that follow the provider: every `session.recheck-roles`, on the person's next request, an
// OpenID session's groups are read again at the provider (userinfo, with the access token the
// session keeps on the server). New groups bring their roles; none with a role, or an access token
// the provider accepted once and refuses now (revoked, expired), signs the person out. A provider
// that does not answer changes nothing (tried again on the next request); one whose userinfo
// never accepted the token (access tokens meant for other APIs) is not asked again for that session.
import type { ConsoleLog } from '../observe/index.js';
import type { OidcSignIn } from './oidc.js';
import { Access, type Grant } from './roles.js';
import type { Session } from './sessions.js';

export type RecheckOutcome = { kind: 'kept' } | { kind: 'changed'; before: string[] } | { kind: 'signed-out'; why: string };

export interface RecheckDeps {
  oidc: OidcSignIn;
  everyMs: number;
  grants: readonly Grant[];
  log: ConsoleLog;
}

export async function recheckRoles(session: Session, d: RecheckDeps): Promise<RecheckOutcome> {
  const kept = { kind: 'kept' } as const;
  if (d.everyMs === 0 || session.identity.via !== 'oidc' || !session.accessToken || !session.identity.subject) return kept;
  if (Date.now() - (session.rolesCheckedAt ?? 0) < d.everyMs) return kept;
  // Noted before asking: the requests that come meanwhile do not ask again.
  session.rolesCheckedAt = Date.now();
  let groups: string[] | undefined | 'invalid';
  try {
    groups = await d.oidc.groupsNow(session.accessToken, session.identity.subject);
  } catch (err) {
    const why = 'the provider did not answer the roles check; the session keeps its roles';
    d.log.warn({ event: 'roles-recheck-failed', user: session.identity.user, err: (err as Error).message }, why);
    return kept;
  }
  if (groups === undefined) return kept;
  if (groups === 'invalid') {
    if (session.rolesRecheckWorked) {
      return { kind: 'signed-out', why: 'the identity provider no longer accepts the session\'s access token (expired or revoked): sign in again' };
    }
    delete session.accessToken;
    const why = 'the provider\'s userinfo does not accept the access token; roles are read at sign-in only for this session';
    d.log.warn({ event: 'roles-recheck-failed', user: session.identity.user }, why);
    return kept;
  }
  session.rolesRecheckWorked = true;
  const before = session.identity.groups;
  if (groups.join('\n') === before.join('\n')) return kept;
  const access = Access.of(groups, d.grants);
  if (!access.highest()) {
    return { kind: 'signed-out', why: `the identity provider no longer puts you in a group with a role here (groups now: ${groups.join(', ') || 'none'})` };
  }
  session.identity = { ...session.identity, groups };
  session.access = access;
  return { kind: 'changed', before };
}
