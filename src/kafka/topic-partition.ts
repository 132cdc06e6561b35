// A topic partition and the `topic:partition` key every map of the Kafka layer uses. Kept apart
// from admin.ts so that code which only names partitions does not load the Kafka client.
export interface TopicPartition {
  topic: string;
  partition: number;
}

export function tpKey(topic: string, partition: number): string {
  return `${topic}:${partition}`;
}
