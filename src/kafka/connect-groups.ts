// The Kafka Connect clusters a Kafka cluster holds, as their groups: each Connect cluster is one
// group (`group.id` of its workers, protocol type `connect`), and each member's metadata names the
// worker's REST URL. Kafka Connect's REST API names neither the group nor its offsets topic, so
// this is how offsetctl tells two Connect clusters on one Kafka cluster apart by what they report
// (src/ops/cluster/connect-group.ts): the group whose members are the workers a URL reaches.
//
// DescribeGroups is sent raw (@platformatic/kafka's describeGroupsV5 API on a pooled
// connection to each group's coordinator): the client's Admin.describeGroups parses every member's
// metadata as the consumer protocol's and throws on Connect's (1.35).
import type { ConnectionOptions } from '@platformatic/kafka';
import { kafkaClient } from './load.js';
import { clientOptions, type KafkaSettings } from './connection.js';

export interface ConnectGroup {
  groupId: string;
  /** The members' REST URLs as each worker advertises them (`rest.advertised.*`, else its listener). */
  urls: string[];
}

const CLIENT_ID = 'offsetctl-connect-groups';

/** The Kafka cluster's id and every Connect group with members on it (an empty group names no worker and is left out). */
export async function connectGroups(settings: KafkaSettings): Promise<{ clusterId: string | undefined; groups: ConnectGroup[]; rebalancing: string[] }> {
  const { Admin, ConnectionPool, describeGroupsV5, FindCoordinatorKeyTypes } = await kafkaClient();
  const options = clientOptions(settings, CLIENT_ID);
  const admin = new Admin(options);
  const pool = new ConnectionPool(CLIENT_ID, options as ConnectionOptions);
  try {
    const clusterId = (await admin.metadata({ topics: [] })).id;
    const listed = await admin.listGroups({ types: ['classic'] });
    const ids = [...listed.values()].filter((g) => g.protocolType === 'connect').map((g) => g.id);
    if (ids.length === 0) return { clusterId, groups: [], rebalancing: [] };
    const coordinators = await admin.findCoordinator({ keyType: FindCoordinatorKeyTypes.GROUP, keys: ids });
    const byNode = new Map<string, { host: string; port: number; groups: string[] }>();
    for (const c of coordinators) {
      const key = `${c.host}:${c.port}`;
      const entry = byNode.get(key) ?? { host: c.host, port: c.port, groups: [] };
      entry.groups.push(c.key);
      byNode.set(key, entry);
    }
    const out: ConnectGroup[] = [];
    // The coordinator gives members' metadata only while a group is stable: one that is
    // rebalancing (a connector was just created somewhere) names no URL yet, and is said.
    const rebalancing: string[] = [];
    for (const node of byNode.values()) {
      const connection = await pool.get({ host: node.host, port: node.port });
      // A group's error (e.g. it is being loaded) comes back as a thrown ResponseError carrying the response.
      const answer = await describeGroupsV5.api.async(connection, node.groups, false).catch((err: { response?: Awaited<ReturnType<typeof describeGroupsV5.api.async>> }) => {
        if (err.response) return err.response;
        throw err;
      });
      for (const g of answer.groups) {
        if (g.errorCode !== 0 || g.protocolType !== 'connect') continue;
        const urls = g.members.map((m) => connectMemberUrl(m.memberMetadata)).filter((u): u is string => u !== undefined);
        if (urls.length > 0) out.push({ groupId: g.groupId, urls: [...new Set(urls)].sort() });
        else if (g.members.length > 0) rebalancing.push(g.groupId);
      }
    }
    return { clusterId, groups: out.sort((a, b) => a.groupId.localeCompare(b.groupId)), rebalancing };
  } finally {
    await pool.close().catch(() => undefined);
    await admin.close().catch(() => undefined);
  }
}

/**
 * The worker URL in a Connect member's metadata (Kafka Connect's ConnectProtocol and
 * IncrementalCooperativeConnectProtocol both start: version INT16, url STRING (INT16 length),
 * config_offset INT64, …); undefined when it is not that shape.
 */
export function connectMemberUrl(metadata: Buffer | null | undefined): string | undefined {
  if (!metadata || metadata.length < 4) return undefined;
  const length = metadata.readInt16BE(2);
  if (length < 0 || 4 + length > metadata.length) return undefined;
  const url = metadata.subarray(4, 4 + length).toString('utf8');
  return /^https?:\/\//.test(url) ? url : undefined;
}
