// An import beside its original: a connector of a backup created on another Connect cluster of the
// Kafka cluster it was exported from, while the original may still run there.
// - A sink shares its consumer group (`connect-<name>`, or consumer.override.group.id) with its
//   original: Connect refuses to clear the offsets of a group with active members (HTTP 500 at
//   clearOffsets, half-way through the run). The group is asked through the Kafka admin layer
//   (the target's Kafka: --bootstrap, or the context's): active members refuse the import in
//   pre-flight. Connect's REST API cannot answer this (it shows only its own connectors, and the
//   backup's origin is a cluster we hold no credentials for), so without Kafka settings the
//   import says it could not check.
// - A source has no group: two copies would both write the same records into the same topics.
//   Nothing tells whether the original still runs (its offsets are in its own cluster's topic),
//   so such a source is refused unless --allow-duplicate-source says the original is gone or
//   stopped (a restore after the original cluster was lost is the common case).
import { KafkaAdmin } from '../../kafka/admin.js';
import type { KafkaSettings } from '../../kafka/connection.js';
import type { Backup, BackupConnector } from './backup.js';
import type { ClusterFacts } from './clusters.js';
import { sinkGroup } from './plan-move.js';

/** Group states with members (the classic protocol's and KIP-848's). */
const ACTIVE = new Set(['STABLE', 'PREPARINGREBALANCE', 'COMPLETINGREBALANCE', 'RECONCILING', 'ASSIGNING']);

export interface BesideFindings {
  problems: string[];
  warnings: string[];
}

/** The checks of one import; opens one Kafka admin connection at most, on the first sink. */
export class BesideOriginal {
  #admin: KafkaAdmin | undefined;

  constructor(
    readonly kafka: KafkaSettings | undefined,
    readonly allowDuplicateSource: boolean,
  ) {}

  /** For a connector whose name is free on the target: is its original perhaps running beside it? */
  async check(c: BackupConnector, backup: Backup, target: ClusterFacts): Promise<BesideFindings> {
    const found: BesideFindings = { problems: [], warnings: [] };
    const exportedFrom = c.kafkaClusterId ?? backup.cluster.kafkaClusterId;
    // Only on the Kafka cluster it was exported from can the original share a group or topics with it.
    if (!exportedFrom || !target.kafkaClusterId || exportedFrom !== target.kafkaClusterId) return found;
    if (c.type === 'sink') {
      if (c.ownKafkaCluster) return found; // its group is on the Kafka cluster its consumer override names
      const group = sinkGroup(c.name, c.config);
      if (!this.kafka) {
        found.warnings.push(`${c.name}: could not check whether consumer group ${group} has active members (its original running on another `
          + 'Connect cluster of this Kafka cluster): no Kafka bootstrap servers (--bootstrap, or the context\'s bootstrap); '
          + 'if it has, the import fails at clearOffsets and is undone');
        return found;
      }
      this.#admin ??= new KafkaAdmin(this.kafka);
      const state = await this.#admin.groupState(group);
      if (state !== undefined && ACTIVE.has(state)) {
        found.problems.push(`consumer group ${group} has active members (${state}): its original runs on a Connect cluster of this Kafka cluster `
          + `(exported from ${backup.cluster.url}), and Kafka Connect cannot set the offsets of a group in use; stop or delete the original first`);
      }
      return found;
    }
    const topic = c.config['topic'] ?? c.config['topics'] ?? '';
    const into = topic ? ` into ${topic}` : '';
    if (!this.allowDuplicateSource) {
      found.problems.push(`it is a source exported from ${backup.cluster.url} on this same Kafka cluster: if its original still runs there, `
        + `two copies would write the same records${into}; stop or delete the original first, then pass --allow-duplicate-source `
        + '(offsetctl cannot see whether it runs)');
    } else {
      found.warnings.push(`${c.name}: a source on the Kafka cluster of its original (${backup.cluster.url}): `
        + `if the original still runs, both write the same records${into} (--allow-duplicate-source)`);
    }
    return found;
  }

  async close(): Promise<void> {
    await this.#admin?.close();
  }
}
