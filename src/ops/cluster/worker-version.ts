// The worker's Kafka version, from `GET /` (worker-root.ts).
// The changing commands need the offsets PATCH/DELETE of KIP-875, which Kafka Connect has from 3.6:
// an older worker answers them 404/405 half-way through a run, after the connector was stopped.
// Refusing up front, before anything changes, is the honest answer.
import { OpsError } from '../errors.js';
import type { WorkerRoot } from './worker-root.js';

export const MIN_CONNECT_VERSION = '3.6.0';

export interface WorkerVersion {
  /** As the worker reports it, e.g. "4.1.1" or "7.6.0-ccs" (Confluent Platform builds). */
  version: string;
  /** The Apache Kafka release it corresponds to, when it could be read. */
  kafka?: [number, number, number];
}

/**
 * Confluent Platform reports its own numbers (7.5.x ships Kafka 3.5, 7.6 ships 3.6, 7.7 → 3.7,
 * 7.8 → 3.8, 7.9 → 3.9, 8.0 → 4.0): `-ccs`/`-ce` suffixed versions are mapped; anything else with
 * a major of 5 or more is taken as Confluent too.
 */
export function kafkaReleaseOf(version: string): [number, number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return undefined;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major >= 5) {
    if (major === 7) return [3, minor, patch];
    if (major === 8) return [4, minor, patch];
    return undefined;
  }
  return [major, minor, patch];
}

function below(a: [number, number, number], b: [number, number, number]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
}

/**
 * Refuses (E_PREFLIGHT, exit 2) a worker older than 3.6, by its `GET /` (read through `root`,
 * which the plan's cluster identity shares). A worker whose root does not say its version (a
 * gateway in front of Connect) is let through: the pre-flight reads that follow fail clearly
 * enough if it is not Kafka Connect at all. An unreachable one too: the command's own checks and
 * reads come next and say so in their words (and local refusals, like an unknown snapshot id,
 * still come first).
 */
export async function requireSupportedWorker(root: WorkerRoot): Promise<WorkerVersion | undefined> {
  const answer = await root.read();
  if (!answer || answer.status < 200 || answer.status >= 300) return undefined;
  const version = answer.json?.version;
  if (typeof version !== 'string') return undefined;
  const kafka = kafkaReleaseOf(version);
  if (kafka && below(kafka, [3, 6, 0])) {
    throw new OpsError('E_PREFLIGHT', `the Kafka Connect worker at ${root.url} runs ${version}; offsetctl needs ${MIN_CONNECT_VERSION} or newer (the offsets PATCH/DELETE API of KIP-875 arrived in 3.6). Nothing was changed. Upgrade the Connect cluster, or change offsets by hand with the tools of that release.`, { field: 'url' });
  }
  return { version, ...(kafka ? { kafka } : {}) };
}
