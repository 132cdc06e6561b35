// Which Connect group a URL's workers form, from Kafka (src/kafka/connect-groups.ts): the group
// whose members' advertised REST URLs meet the workers the URL reaches (members.ts). It is what
// keys a source's lock when its offsets are in its Connect cluster's own offsets topic: two
// Connect clusters on one Kafka cluster have two groups and two offsets topics, so same-named
// sources on them hold different locks. Without Kafka access, or when no single group matches,
// there is no answer and the lock stays on the wider key (never a guess).
import { lookup } from 'node:dns/promises';
import { connectGroups, type ConnectGroup } from '../../kafka/connect-groups.js';
import type { KafkaSettings } from '../../kafka/connection.js';
import type { ClusterIdentity } from './cluster-identity.js';

const KEEP_MS = 60_000;
/** How long a rebalancing group is waited for (its members name their URLs only once it is stable). */
const SETTLE_MS = 10_000;
type Found = { clusterId: string | undefined; groups: ConnectGroup[]; rebalancing: string[] };
const cache = new Map<string, { at: number; groups: Promise<Found | undefined> }>();

/** The Connect group of `identity` (its `members` must have been read), or undefined when it cannot be told. */
export async function connectGroupOf(kafka: KafkaSettings, identity: ClusterIdentity): Promise<string | undefined> {
  if (!identity.kafkaClusterId || !identity.members?.length) return undefined;
  const members = new Set(identity.members);
  const until = Date.now() + SETTLE_MS;
  for (let fresh = false; ; fresh = true) {
    const found = await groupsOf(kafka, fresh);
    // Kafka access to another Kafka cluster says nothing about this one.
    if (!found || found.clusterId !== identity.kafkaClusterId) return undefined;
    const matching: string[] = [];
    for (const g of found.groups) {
      const addresses = (await Promise.all(g.urls.map(addressesOf))).flat();
      if (addresses.some((a) => members.has(a))) matching.push(g.groupId);
    }
    // A worker is a member of one group, so one match is the answer whatever else rebalances; none
    // while some group rebalances (it names no URL then) may be this cluster's: ask again.
    if (matching.length === 1) return matching[0];
    if (matching.length > 1 || found.rebalancing.length === 0 || Date.now() > until) return undefined;
    await new Promise((r) => setTimeout(r, 500));
  }
}

function groupsOf(kafka: KafkaSettings, fresh: boolean): Promise<Found | undefined> {
  const key = kafka.bootstrap.join(',');
  let entry = cache.get(key);
  if (fresh || !entry || Date.now() - entry.at > KEEP_MS) {
    // An unreachable or refusing Kafka cluster: no answer (the wide key), not a failed plan.
    cache.set(key, (entry = { at: Date.now(), groups: connectGroups(kafka).catch(() => undefined) }));
  }
  return entry.groups;
}

/** `address:port` of a worker URL, its host name resolved (as members.ts writes members). */
async function addressesOf(url: string): Promise<string[]> {
  const u = new URL(url);
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const found = await lookup(host, { all: true }).catch(() => [{ address: host }]);
  return found.map((a) => `${a.address}:${port}`);
}
