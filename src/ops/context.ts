// What every operation is given by the face that calls it: the cluster, the one HTTP client
// (auth, TLS) and the store. Ops opens nothing itself and touches no process state.
import type { HttpSender } from '../http/client.js';
import type { KafkaSettings } from '../kafka/connection.js';
import type { Store } from '../store/index.js';

export interface OpsContext {
  /** The Kafka Connect REST URL, without a trailing slash. */
  url: string;
  http: HttpSender;
  store: Store;
  /**
   * The Kafka cluster the Connect cluster works with, when the face knows it (a context's or
   * --bootstrap): it finds the Connect group, which narrows a source's lock (ops/cluster/connect-group.ts).
   */
  kafkaCluster?: KafkaSettings;
}
