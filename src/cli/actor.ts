// Who runs this CLI, for the audit trail: the OS user on this host (what the operating system
// authenticated), and the store's database user where the store has a login of its own. Never a
// name from a flag or a variable: the audit says who could act, not who claimed to.
import { hostname, userInfo } from 'node:os';
import type { AuditActor, Store } from '../store/index.js';

export function cliActor(dbUser?: string): AuditActor {
  let osUser: string;
  try {
    osUser = userInfo().username;
  } catch {
    // No passwd entry for this uid (a container): the uid is what the OS knows.
    osUser = `uid ${process.getuid?.() ?? '?'}`;
  }
  const host = hostname();
  return { user: dbUser ?? `${osUser}@${host}`, via: 'cli', osUser, host, ...(dbUser ? { dbUser } : {}) };
}

/**
 * The CLI's actor for changes through this store: on the team store the database login the
 * server authenticated (its session_user, as the store reports it) names the operator, beside
 * the OS user. A store that cannot say (it is down) leaves the OS user; its error comes with the
 * first operation.
 */
export async function cliActorFor(store: Pick<Store, 'describe'>): Promise<AuditActor> {
  const about = await store.describe().catch(() => undefined);
  return cliActor(about?.dbUser);
}
