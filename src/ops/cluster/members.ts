// The members of the Connect cluster a URL reaches, as `address:port`: the worker reached (host
// names resolved) and every worker Connect names as running a connector or task (`GET
// /connectors?expand=status` → worker_id). Kafka Connect's REST API names the Kafka cluster but
// not the Connect group, so two Connect clusters on one Kafka cluster share `kafka:<id>`; their
// members tell them apart: two URLs reach one Connect cluster when their members meet (a
// connector being changed is assigned to a worker that both see). Read once per sender and URL
// for a minute: a batch of many plans asks once, a long-lived console sees workers come and go.
import { lookup } from 'node:dns/promises';
import type { HttpSender } from '../../http/client.js';

const cache = new WeakMap<HttpSender, Map<string, { at: number; members: Promise<string[]> }>>();
const KEEP_MS = 60_000;

/** The members of the Connect cluster at `url`, sorted; only the worker reached when the statuses cannot be read. */
export function connectMembers(http: HttpSender, url: string): Promise<string[]> {
  let byUrl = cache.get(http);
  if (!byUrl) cache.set(http, (byUrl = new Map()));
  const base = url.replace(/\/+$/, '');
  let found = byUrl.get(base);
  if (!found || Date.now() - found.at > KEEP_MS) byUrl.set(base, (found = { at: Date.now(), members: readMembers(http, base) }));
  return found.members;
}

async function readMembers(http: HttpSender, base: string): Promise<string[]> {
  const out = new Set<string>();
  const add = async (host: string, port: string): Promise<void> => {
    const bare = host.replace(/^\[|\]$/g, '');
    const addresses = await lookup(bare, { all: true }).catch(() => [{ address: bare }]);
    for (const a of addresses) out.add(`${a.address}:${port}`);
  };
  const reached = new URL(base);
  await add(reached.hostname, reached.port || (reached.protocol === 'https:' ? '443' : '80'));
  try {
    const res = await http.send({ method: 'GET', url: `${base}/connectors?expand=status`, headers: { accept: 'application/json' } });
    if (res.status === 200) {
      const body = JSON.parse(res.body.toString('utf8')) as Record<string, { status?: { connector?: { worker_id?: string }; tasks?: Array<{ worker_id?: string }> } }>;
      const ids = new Set<string>();
      for (const c of Object.values(body)) {
        if (c.status?.connector?.worker_id) ids.add(c.status.connector.worker_id);
        for (const t of c.status?.tasks ?? []) if (t.worker_id) ids.add(t.worker_id);
      }
      for (const id of ids) {
        const at = id.lastIndexOf(':');
        if (at > 0) await add(id.slice(0, at), id.slice(at + 1));
      }
    }
  } catch {
    // Only the worker reached is known.
  }
  return [...out].sort();
}

/** Two member lists of one Kafka cluster's Connect clusters: the same Connect cluster when they meet (unknown: assumed the same). */
export function sameConnectCluster(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (!a?.length || !b?.length) return true;
  const set = new Set(a);
  return b.some((m) => set.has(m));
}
