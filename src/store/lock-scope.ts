// Where a lock's offsets live, as its key: a lock guards offsets, so two runs conflict when their
// offsets are the same ones. The key is the cluster's (`kafka:<id>`, the wide key) or narrower,
// `<clusterKey>#<where>`:
//   - `#group:<id>`: a sink's consumer group on that Kafka cluster (connect-<name>, or its
//     consumer.override.group.id): any connector whose offsets are that group conflicts;
//   - `#offsets-topic:<topic>`: a source's partition in its own offsets.storage.topic: the same
//     connector name in the same topic conflicts;
//   - `#connect-group:<id>`: a source's partition in its Connect cluster's offsets topic, that
//     cluster known by its group (src/ops/cluster/connect-group.ts): the same connector name in the
//     same Connect cluster conflicts, not the same name in another Connect cluster.
// A wide key (the narrow place is not known) and a narrow key of the same connector always conflict.
// Both stores apply this rule (sqlite/store.ts, postgres/pg-store.ts).

const SEP = '#';

/** The cluster key a lock key narrows (itself when it is wide). */
export function lockBase(lockKey: string): string {
  const at = lockKey.indexOf(SEP);
  return at < 0 ? lockKey : lockKey.slice(0, at);
}

/** A sink's consumer group key: it conflicts with any connector's lock under the same key. */
export function isGroupKey(lockKey: string): boolean {
  return lockKey.slice(lockBase(lockKey).length).startsWith(`${SEP}group:`);
}

/** `<clusterKey>#group:<group>`. */
export function groupLockKey(clusterKey: string, group: string): string {
  return `${clusterKey}${SEP}group:${group}`;
}

/** `<clusterKey>#offsets-topic:<topic>`. */
export function offsetsTopicLockKey(clusterKey: string, topic: string): string {
  return `${clusterKey}${SEP}offsets-topic:${topic}`;
}

/** `<clusterKey>#connect-group:<group>`. */
export function connectGroupLockKey(clusterKey: string, group: string): string {
  return `${clusterKey}${SEP}connect-group:${group}`;
}

/** The key in words: `consumer group connect-x on Kafka cluster <id>`, `offsets topic t on Kafka cluster <id>`, `Kafka cluster <id>`. */
export function lockKeyWords(lockKey: string): string | undefined {
  const base = lockBase(lockKey);
  if (!base.startsWith('kafka:')) return undefined;
  const kafka = `Kafka cluster ${base.slice(6)}`;
  const narrow = lockKey.slice(base.length + 1);
  if (narrow.startsWith('group:')) return `consumer group ${narrow.slice(6)} on ${kafka}`;
  if (narrow.startsWith('offsets-topic:')) return `offsets topic ${narrow.slice(14)} on ${kafka}`;
  if (narrow.startsWith('connect-group:')) return `the offsets topic of Connect cluster ${narrow.slice(14)} on ${kafka}`;
  return kafka;
}
