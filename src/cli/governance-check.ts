// An offsetctl with no team store learns from Kafka that a cluster is governed (issue 32). A team
// store's `policy set` writes a marker into the Kafka cluster (src/kafka/governance-marker.ts);
// a command about to change something, with a Kafka bootstrap known and only the state folder's
// SQLite file as its store, reads it and refuses (exit 2, before anything is sent) naming the
// store and how to use it. Only then is the Kafka client loaded: a command that changes nothing,
// or knows no bootstrap, or already uses a team store, pays nothing. Without a bootstrap it
// cannot know (docs/team.md).
import type { HttpSender } from '../http/client.js';
import type { KafkaSettings } from '../kafka/connection.js';
import type { GovernanceMarker } from '../kafka/governance-marker.js';
import { OpsError } from '../ops/errors.js';
import type { StoreChoice } from '../store/index.js';
import type { Connection } from './connection.js';
import type { KafkaFlags } from './kafka-settings.js';
import { currentIO } from './io.js';
import { resolveKafkaAccess } from './kafka-settings.js';
import { WorkerRoot, clusterIdentity, connectMembers, sameConnectCluster } from '../ops/cluster/index.js';
import * as load from './load.js';

/** The team store as a marker may show it: scheme, host, port and database; never the user, a password or parameters. */
export function storeWithoutSecrets(store: string): string {
  try {
    const u = new URL(store);
    return `${u.protocol}//${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return 'a team store (its URL could not be read)';
  }
}

/**
 * Refuses a change to a cluster a team store governs when this command would use no team store.
 * `flags` are the command's Kafka flags (--bootstrap, security), the context's apply otherwise.
 */
export async function refuseIfGovernedElsewhere(
  conn: Pick<Connection, 'url' | 'context' | 'store'> & { http: HttpSender }, flags: KafkaFlags, env: NodeJS.ProcessEnv = currentIO().env,
): Promise<void> {
  // A team store (the store module's isTeamStore, inlined: loading it would load SQLite's binding).
  if (conn.store.store !== undefined && conn.store.store !== '' && conn.store.store !== 'sqlite') return;
  const access = resolveKafkaAccess(flags, conn.context, env);
  if (!access.bootstrap) return;
  const identity = await clusterIdentity(new WorkerRoot(conn.http, conn.url));
  if (!identity.kafkaClusterId) return; // the worker did not say which cluster: the change itself will fail or go on as before
  let marker: GovernanceMarker | undefined;
  try {
    const settings: KafkaSettings = await access.settingsFor(access.bootstrap);
    const markers = await (await load.kafkaGovernanceMarker()).readGovernanceMarkers(settings);
    const mine = [...markers.values()].filter((m) => m.clusterKey === identity.key);
    if (mine.length > 0) {
      // Several Connect clusters share a Kafka cluster: the marker of the one whose members meet this URL's.
      const members = await connectMembers(conn.http, conn.url);
      marker = mine.find((m) => sameConnectCluster(m.members, members));
    }
  } catch (err) {
    currentIO().stderr.write(`warning: could not read whether a team store governs ${identity.key} (${(err as Error).message}): if one does, its rules were not checked\n`);
    return;
  }
  if (!marker) return;
  throw new OpsError('E_CONFIG', governedMessage(conn.url, identity.key, marker, conn.store), { field: 'store' });
}

function governedMessage(url: string, key: string, m: GovernanceMarker, own: StoreChoice): string {
  const rules = m.policies.length > 0 ? `; its policies: ${m.policies.join('; ')}` : '';
  const ctx = m.context ? ` (context ${m.context})` : '';
  return `${url} reaches ${key}, which the team store ${m.store}${ctx} governs (marked in Kafka by ${m.writtenBy} at ${m.writtenAt}${rules}); `
    + `this command would use ${own.store === undefined || own.store === 'sqlite' ? 'the state folder\'s SQLite file' : 'no team store'}, where that store's locks and rules do not reach: nothing was changed. `
    + `Use the team store: --store postgres://USER@${m.store.replace(/^postgres(?:ql)?:\/\//, '')}, or a context with it (offsetctl config set-context <name> --url ${url} --store …)`;
}
