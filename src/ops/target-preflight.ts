// The pre-flight checks of a rewind's targets against the cluster they are for: a sink's topics
// and partitions (src/ops/sink-preflight.ts) and targets beyond a partition's end
// (src/ops/forward-targets.ts). One call for the rewind command.
import type { OpsConnection, OpsIO } from './begin-change.js';
import type { ConnectorInfo } from './connect-client.js';
import { fileSourceForwardTargets, sinkForwardTargets, type ForwardTarget } from './forward-targets.js';
import type { OffsetEntry } from './offsets-plan.js';
import { checkSinkTargets, preflightKafka } from './sink-preflight.js';

/** Refuses targets the connector cannot take (exit 2); returns those beyond their partition's end. */
export async function checkTargetsOnCluster(conn: OpsConnection, info: ConnectorInfo, target: OffsetEntry[], req: { bootstrap?: string }, io: OpsIO): Promise<ForwardTarget[]> {
  if (info.type !== 'sink') return fileSourceForwardTargets(info.config, target);
  const kafka = preflightKafka(req.bootstrap);
  if (!kafka) io.info('note: partition numbers and log ends were not checked against the broker; pass --bootstrap <host:port> (or set OFFSETCTL_BOOTSTRAP) to check them');
  const topics = await checkSinkTargets({ http: conn.http, url: conn.url, connector: info.name, config: info.config, target, ...(kafka ? { kafka } : {}) });
  return sinkForwardTargets(target, topics);
}
