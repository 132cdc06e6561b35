// Which context governs the cluster a URL reaches. A context with a team store or `approval:
// required` governs its cluster, not only the URL text it was written with: `--url` of another
// worker of that cluster, or `localhost` for `127.0.0.1`, must not bypass its store and rules.
// The cluster is what the workers report: the Kafka cluster (`GET /` → kafka_cluster_id,
// ops/cluster) and, to tell two Connect clusters on one Kafka cluster apart, their members — the
// worker reached (its address, host names resolved) and every worker Connect names as running a
// connector or task (`GET /connectors?expand=status` → worker_id). Two URLs reach one Connect
// cluster when their Kafka clusters are one and their members meet: a connector being changed is
// assigned to a worker, which both see. Each governing context's own URL is asked with its own
// credentials, the URL at hand through the command's connection, all at once with a short
// timeout. A context whose cluster cannot be reached is named in a warning.
import type { HttpSender } from '../http/client.js';
import type { ConnectionContext, OffsetctlConfig } from './config-file.js';
import * as load from './load.js';

export interface Governance {
  /** The contexts that govern the URL's cluster (same Kafka cluster id), by name. */
  contexts: Array<{ name: string; context: ConnectionContext }>;
  /** The cluster's key (`kafka:<id>`), when the URL answered. */
  clusterKey?: string;
  /** Governing contexts whose own URL did not answer: their rules could not be checked. */
  unreachable: string[];
}

/** A context that carries rules: a team store or required approval. */
export const governs = (ctx: ConnectionContext): boolean => (ctx.store !== undefined && ctx.store !== '' && ctx.store !== 'sqlite') || ctx.approval === 'required';

/**
 * The governing contexts of the cluster `url` reaches. `senderFor` builds a sender for a
 * context's own URL with its own credentials (or for the URL at hand without any).
 */
export async function governingContexts(
  url: string, config: OffsetctlConfig, senderFor: (ctx: ConnectionContext | undefined) => Promise<HttpSender & { close?: () => Promise<void> }>,
  cache?: IdentityCache,
): Promise<Governance> {
  const candidates = Object.entries(config.contexts).filter(([, ctx]) => governs(ctx));
  if (candidates.length === 0) return { contexts: [], unreachable: [] };
  const { clusterIdentity, connectMembers, WorkerRoot } = await load.opsCluster();
  const seen = async (target: string, ctx: ConnectionContext | undefined): Promise<Seen | undefined> => {
    const cached = cache?.get(target);
    if (cached) return { key: cached.key, members: new Set(cached.members) };
    const sender = await senderFor(ctx);
    try {
      const identity = await clusterIdentity(new WorkerRoot(sender, target));
      if (!identity.kafkaClusterId) return undefined;
      const members = await connectMembers(sender, target);
      cache?.put(target, { key: identity.key, members });
      return { key: identity.key, members: new Set(members) };
    } finally {
      await sender.close?.();
    }
  };
  const first = (list: string): string => list.split(',')[0]!.trim();
  const [own, ...theirs] = await Promise.all([seen(url, undefined), ...candidates.map(([, ctx]) => seen(first(ctx.url), ctx).catch(() => undefined))]);
  const unreachable = candidates.filter((_c, i) => theirs[i] === undefined).map(([name]) => name);
  if (own === undefined) return { contexts: [], unreachable };
  const same = (other: Seen | undefined): boolean => other !== undefined && other.key === own.key && [...other.members].some((m) => own.members.has(m));
  return {
    contexts: candidates.filter((_c, i) => same(theirs[i])).map(([name, context]) => ({ name, context })),
    clusterKey: own.key,
    unreachable,
  };
}

interface Seen {
  key: string;
  /** `address:port` of the workers seen: the one reached and those running a connector or task. */
  members: Set<string>;
}

/** What a probe learned of a URL: its cluster key and its Connect cluster's members (identity-cache.ts keeps it). */
export interface IdentityCache {
  get(url: string): { key: string; members: string[] } | undefined;
  put(url: string, seen: { key: string; members: string[] }): void;
}
