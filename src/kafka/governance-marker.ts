// The governance marker: a small record a team store's offsetctl writes into the Kafka cluster a
// governed Connect cluster keeps its offsets in, so that an offsetctl configured with no team
// store at all can learn, from Kafka, that the cluster is governed and by which store, and refuse
// to change it on its own (issue 32). One compacted topic, one partition, one record per governed
// Connect cluster, keyed by its cluster key and the Connect URL the policy was set through (the
// latest wins; compaction keeps only it). Several Connect clusters share one Kafka cluster, so the
// value carries the Connect cluster's members (worker addresses): a reader applies a marker only
// to a Connect cluster whose members meet them, as contexts are matched (src/ops/cluster/members.ts).
// The last policy of a cluster removed, the marker is removed too (a tombstone). The value names the store without secrets
// (host, port, database: no user, no password, no parameters), the policies in force and when.
// Reading costs a Metadata, a ListOffsets and a Fetch or two: only commands that change something
// and know a bootstrap pay it (src/cli/governance-check.ts), the Kafka client loaded then.
import { kafkaClient } from './load.js';
import { clientOptions, describeKafka, type KafkaSettings } from './connection.js';
import { KafkaError } from './errors.js';

export const GOVERNANCE_TOPIC = '__offsetctl_governance';

export interface GovernanceMarker {
  /** The cluster key the team store's records and policies use (`kafka:<id>`). */
  clusterKey: string;
  /** The team store, without secrets: `postgres://host:port/database`. */
  store: string;
  /** The context whose store wrote it, and the Connect URL it reached (information only). */
  context?: string;
  connectUrl: string;
  /** The Connect cluster's members (`address:port`) when written: what tells it from the others on the Kafka cluster. */
  members: string[];
  /** The policies in force on the cluster when written (a summary each); empty once the last is removed. */
  policies: string[];
  writtenAt: string;
  /** The database login that wrote it. */
  writtenBy: string;
}

/** Short timeouts, no retries: a marker that cannot be read is warned about, it must not hold a command for a minute. */
const quick = (settings: KafkaSettings, clientId: string) => ({ ...clientOptions(settings, clientId), connectTimeout: 3000, requestTimeout: 5000, retries: 0 });

/** The record key of a marker: the cluster key and the Connect URL it was written through. */
const recordKey = (m: Pick<GovernanceMarker, 'clusterKey' | 'connectUrl'>): string => `${m.clusterKey} ${m.connectUrl}`;

/**
 * Writes (replaces) the marker of a Connect cluster, creating the compacted topic on first use;
 * `remove` writes a tombstone instead (the cluster's last policy removed).
 */
export async function writeGovernanceMarker(settings: KafkaSettings, marker: GovernanceMarker, remove = false): Promise<void> {
  const { Admin, Producer } = await kafkaClient();
  const admin = new Admin(clientOptions(settings, 'offsetctl-governance'));
  const producer = new Producer({ ...clientOptions(settings, 'offsetctl-governance'), acks: -1, autocreateTopics: false });
  try {
    const existing = await admin.listTopics({ includeInternals: true });
    if (!existing.includes(GOVERNANCE_TOPIC)) {
      await admin.createTopics({ topics: [GOVERNANCE_TOPIC], partitions: 1, replicas: -1, configs: [{ name: 'cleanup.policy', value: 'compact' }] }).catch((err: unknown) => {
        // Another writer created it meanwhile: fine.
        if (!/TOPIC_ALREADY_EXISTS|already exists/i.test(String((err as Error).message) + JSON.stringify((err as { errors?: unknown }).errors ?? ''))) throw err;
      });
    }
    // A tombstone's value is null on the wire (an empty buffer would be a record compaction keeps).
    const value = remove ? (null as unknown as Buffer) : Buffer.from(JSON.stringify(marker));
    await producer.send({ messages: [{ topic: GOVERNANCE_TOPIC, key: Buffer.from(recordKey(marker)), value }] });
  } catch (err) {
    throw new KafkaError('E_KAFKA', `Kafka at ${describeKafka(settings)}: cannot write the governance marker to ${GOVERNANCE_TOPIC}: ${(err as Error).message} (the login needs Create, Describe and Write on the topic ${GOVERNANCE_TOPIC}: docs/team.md)`, { cause: err });
  } finally {
    await Promise.allSettled([producer.close(true), admin.close()]);
  }
}

/** Every marker in the topic, latest per record key (cluster key and Connect URL); empty when the topic does not exist (no cluster governed). */
export async function readGovernanceMarkers(settings: KafkaSettings): Promise<Map<string, GovernanceMarker>> {
  const { Consumer } = await kafkaClient();
  const out = new Map<string, GovernanceMarker>();
  // A group id is required by the client's constructor; no group is joined (Metadata, ListOffsets and Fetch only).
  const consumer = new Consumer({ ...quick(settings, 'offsetctl-governance'), groupId: 'offsetctl-governance-unused', autocommit: false });
  try {
    let topic;
    try {
      topic = (await consumer.metadata({ topics: [GOVERNANCE_TOPIC], forceUpdate: true, autocreateTopics: false })).topics.get(GOVERNANCE_TOPIC);
    } catch (err) {
      if (/UNKNOWN_TOPIC|does not exist|unknown topic/i.test(String((err as Error).message) + JSON.stringify((err as { errors?: unknown }).errors ?? ''))) return out;
      throw err;
    }
    if (!topic) return out;
    const ends = (await consumer.listOffsets({ topics: [GOVERNANCE_TOPIC] })).get(GOVERNANCE_TOPIC) ?? [];
    for (const [index, partition] of topic.partitions.entries()) {
      const end = ends[index] ?? 0n;
      let next = 0n;
      while (next < end) {
        const response = await consumer.fetch({
          node: partition.leader, maxWaitTime: 100, minBytes: 1, maxBytes: 4 * 1024 * 1024,
          topics: [{ topicId: topic.id, partitions: [{ partition: index, currentLeaderEpoch: partition.leaderEpoch, fetchOffset: next, lastFetchedEpoch: -1, partitionMaxBytes: 4 * 1024 * 1024 }] }],
        });
        let progressed = false;
        for (const t of response.responses) {
          for (const p of t.partitions) {
            // A compacted log may start after `next`: the log start is where reading goes on.
            if (p.logStartOffset !== undefined && p.logStartOffset > next) next = p.logStartOffset;
            for (const batch of p.records ?? []) {
              for (const record of batch.records) {
                const offset = batch.firstOffset + BigInt(record.offsetDelta);
                if (offset < next) continue;
                next = offset + 1n;
                progressed = true;
                const key = record.key?.toString('utf8');
                if (!key) continue;
                if (!record.value || record.value.length === 0) {
                  out.delete(key); // a tombstone
                  continue;
                }
                try {
                  out.set(key, JSON.parse(record.value.toString('utf8')) as GovernanceMarker);
                } catch {
                  // Not ours: ignored.
                }
              }
              // Offsets compacted away inside a batch: go on after it.
              const last = batch.firstOffset + BigInt(batch.lastOffsetDelta);
              if (last >= next) next = last + 1n;
            }
          }
        }
        if (!progressed && next < end) break; // nothing more to read now
      }
    }
    return out;
  } catch (err) {
    throw new KafkaError('E_KAFKA', `Kafka at ${describeKafka(settings)}: cannot read the governance marker (${GOVERNANCE_TOPIC}): ${(err as Error).message}`, { cause: err });
  } finally {
    await Promise.allSettled([consumer.close(true)]);
  }
}
