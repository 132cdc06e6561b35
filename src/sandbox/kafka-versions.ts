// Which Kafka releases the sandbox can run, and what differs between them. offsetctl needs the
// offsets REST API of KIP-875: GET offsets and the STOPPED state came in 3.5, PATCH/DELETE
// /connectors/{c}/offsets (the change itself) in 3.6, so 3.6.0 is the floor.
import { SandboxError } from './errors.js';

/** The newest release on Maven Central: the default of `sandbox up`. */
export const DEFAULT_KAFKA_VERSION = '4.4.0';
/** Oldest release offsetctl supports (and the sandbox starts). */
export const MIN_KAFKA_VERSION = '3.6.0';

/** The CI matrix: the oldest supported, the last 3.x, the first 4.x, the newest. */
export const CI_KAFKA_VERSIONS = ['3.6.2', '3.9.1', '4.0.2', '4.4.0'] as const;
/** `npm run test:versions`: the newest patch of every minor from 3.6 to 4.4. */
export const ALL_KAFKA_VERSIONS = ['3.6.2', '3.7.2', '3.8.1', '3.9.1', '4.0.2', '4.1.1', '4.2.0', '4.3.1', '4.4.0'] as const;

/**
 * Maven Central has no connect-file / connect-mirror / connect-basic-auth-extension jars for these
 * releases (checked 2026-11-30: 404 for the jar). The plugins come from the closest earlier release
 * instead; they only use the public Connect API, which the runtime keeps compatible.
 */
const PLUGIN_VERSION: Record<string, string> = {
  '4.4.0': '4.3.1',
  '3.9.2': '3.9.1',
  '4.0.1': '4.0.0',
};

export function pluginVersionFor(kafkaVersion: string): string {
  return PLUGIN_VERSION[kafkaVersion] ?? kafkaVersion;
}

/**
 * Kafka 4.4 moved AppInfoParser to org.apache.kafka.common.utils.internals; the 4.3 plugins' version()
 * still calls the old name (NoClassDefFoundError when a connector is created). For those releases
 * the sandbox compiles sandbox/compat/AppInfoParser.java, a forwarder, into the version's lib folder.
 */
export function needsAppInfoShim(kafkaVersion: string): boolean {
  return pluginVersionFor(kafkaVersion) !== kafkaVersion && compareKafkaVersions(kafkaVersion, '4.4.0') >= 0;
}

/** [major, minor, patch]; undefined when the text is not a plain release number. */
export function parseKafkaVersion(text: string): [number, number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

export function compareKafkaVersions(a: string, b: string): number {
  const pa = parseKafkaVersion(a.replace(/[-+].*$/, ''));
  const pb = parseKafkaVersion(b.replace(/[-+].*$/, ''));
  if (!pa || !pb) return Number.NaN;
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Checks `--kafka-version`: a release number from MIN_KAFKA_VERSION on. */
export function checkSandboxKafkaVersion(version: string): string {
  if (!parseKafkaVersion(version)) {
    throw new SandboxError('E_SANDBOX_VERSION', `--kafka-version must be a release number like ${DEFAULT_KAFKA_VERSION}, got ${JSON.stringify(version)}`);
  }
  if (compareKafkaVersions(version, MIN_KAFKA_VERSION) < 0) {
    throw new SandboxError('E_SANDBOX_VERSION', `--kafka-version ${version}: offsetctl needs Kafka Connect ${MIN_KAFKA_VERSION} or newer (the offsets REST API and the STOPPED state); pick ${MIN_KAFKA_VERSION} to ${DEFAULT_KAFKA_VERSION}`);
  }
  return version.trim();
}

/**
 * The broker's quorum settings. 3.9 (KIP-853) introduced `controller.quorum.bootstrap.servers`
 * with `StorageTool format --standalone`; before it a static voter list is the only way.
 */
export function kraftQuorum(version: string, controllerPort: number, brokerPort = 0): { property: string; formatArgs: string[]; advertised: string } {
  if (compareKafkaVersions(version, '3.9.0') >= 0) {
    // The controller listener is advertised too: KIP-853 clients of the quorum find it there.
    return { property: `controller.quorum.bootstrap.servers=127.0.0.1:${controllerPort}`, formatArgs: ['--standalone'], advertised: `PLAINTEXT://127.0.0.1:${brokerPort},CONTROLLER://127.0.0.1:${controllerPort}` };
  }
  // Before 3.9 a combined broker+controller must not advertise its controller listener.
  return { property: `controller.quorum.voters=1@127.0.0.1:${controllerPort}`, formatArgs: [], advertised: `PLAINTEXT://127.0.0.1:${brokerPort}` };
}
