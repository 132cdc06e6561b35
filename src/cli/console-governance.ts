// The console's contexts (its service config, `offsetctl ui --config`) are matched by identity as
// the CLI's are (governing-context.ts): each context's URL is asked, through the context's own
// connection, which Connect cluster it reaches (`GET /` → the Kafka cluster; the members, to tell
// Connect clusters on one Kafka cluster apart). A context with a team store governs its cluster:
// every context reaching that cluster takes its store and its rules — the store must be the
// console's (the console writes to one store; the store's policies then bind every context), and
// its `approval: required` makes each of them turn changes into requests. Two contexts of one
// cluster naming different stores stop the console from starting, naming both. (A context that
// requires approval without a team store binds itself only, as written.) A context whose URL does not
// answer is named in a warning: its cluster's rules could not be checked.
import type { HttpSender } from '../http/client.js';
import { OpsError } from '../ops/errors.js';
import type { ConnectionContext } from './config-file.js';
import { storeWithoutSecrets } from './governance-check.js';
import type { IdentityCache } from './governing-context.js';
import { WorkerRoot, clusterIdentity, connectMembers, sameConnectCluster } from '../ops/cluster/index.js';

export interface ConsoleContext {
  name: string;
  url: string;
  http: HttpSender;
  context: ConnectionContext;
}

/** A context's team store as compared: the database (host, port, name), whichever login reaches it. */
const teamStore = (c: Pick<ConnectionContext, 'store'>): string | undefined => (c.store && c.store !== 'sqlite' ? storeWithoutSecrets(c.store) : undefined);

/**
 * The names of the contexts that must require approval (because a context reaching the same
 * cluster does). Throws E_CONFIG when contexts of one cluster name different team stores, or one
 * names a team store that is not `consoleStore`.
 */
export async function consoleRules(contexts: readonly ConsoleContext[], consoleStore: string | undefined, cache?: IdentityCache): Promise<{ approval: Set<string>; unreachable: string[] }> {
  const seen = await Promise.all(contexts.map(async (c) => {
    const cached = cache?.get(c.url);
    if (cached) return cached;
    try {
      const identity = await clusterIdentity(new WorkerRoot(c.http, c.url));
      if (!identity.kafkaClusterId) return undefined;
      const found = { key: identity.key, members: await connectMembers(c.http, c.url) };
      cache?.put(c.url, found);
      return found;
    } catch {
      return undefined;
    }
  }));
  const approval = new Set<string>();
  contexts.forEach((c, i) => {
    const mine = seen[i];
    const group = mine === undefined ? [c] : contexts.filter((_o, j) => seen[j] !== undefined && seen[j]!.key === mine.key && sameConnectCluster(seen[j]!.members, mine.members));
    const stores = group.filter((g) => teamStore(g.context) !== undefined);
    const other = stores.find((g) => teamStore(g.context) !== teamStore(stores[0]!.context));
    if (other) {
      throw new OpsError('E_CONFIG', `contexts ${stores[0]!.name} (store ${teamStore(stores[0]!.context)}) and ${other.name} (store ${teamStore(other.context)}) reach one Connect cluster (${mine?.key}): one cluster has one store; fix one of them in the console's config`, { field: 'contexts' });
    }
    const governing = stores[0];
    const ownStore = consoleStore && consoleStore !== 'sqlite' ? storeWithoutSecrets(consoleStore) : undefined;
    if (governing && teamStore(governing.context) !== ownStore) {
      throw new OpsError('E_CONFIG', `context ${c.name} reaches ${mine?.key ?? c.url}, which context ${governing.name} governs with store ${teamStore(governing.context)}; this console's store is ${ownStore ?? 'its state folder\'s SQLite file'}: its changes there would bypass that store's locks and rules; set the console's store: to it`, { field: 'store' });
    }
    // The governing contexts' rules: approval required by one with the team store (the store's policies bind the console anyway).
    if (stores.some((g) => g.context.approval === 'required')) approval.add(c.name);
  });
  return { approval, unreachable: contexts.filter((_c, i) => seen[i] === undefined).map((c) => c.name) };
}
