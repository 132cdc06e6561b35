// The backup document of `offsetctl export` and `offsetctl import`: per connector its
// configuration (config-provider references kept, literal secrets left out unless asked for),
// state, type, plugin class and version, offsets, the Kafka cluster its offsets belong to, and
// when and how they were read. Plain data: the CLI writes it as YAML and reads it back; ops
// checks its shape here, naming the field and the fix, before any cluster is asked anything.
import { OpsError } from '../errors.js';
import { validateOffsetsShape } from '../offsets/index.js';
import type { ConnectorType, OffsetEntry } from '../offsets/index.js';

export const BACKUP_KIND = 'offsetctl-backup';
export const BACKUP_VERSION = 1;

export interface BackupConnector {
  name: string;
  type: ConnectorType;
  /** The state when exported (import puts RUNNING, PAUSED and STOPPED back; anything else as STOPPED). */
  state: string;
  plugin: { class: string; version?: string };
  config: Record<string, string>;
  /** Secret keys left out of `config` (literal values of PASSWORD-typed keys); the import asks for them. */
  secretsOmitted?: string[];
  offsets: OffsetEntry[];
  /** `running`: read while it ran (may be a little behind); `stopped`: read while stopped (--consistent). */
  offsetsRead: 'running' | 'stopped';
  readAt: string;
  /** The Kafka cluster its worker works with; a sink's offsets are its consumer group's there. */
  kafkaClusterId?: string;
  /** A sink that reads another Kafka cluster (consumer.override.bootstrap.servers): its offsets belong to that one. */
  ownKafkaCluster?: boolean;
}

export interface Backup {
  kind: typeof BACKUP_KIND;
  version: typeof BACKUP_VERSION;
  exportedAt: string;
  /** The cluster it was exported from (information). */
  cluster: { url: string; version?: string; kafkaClusterId?: string };
  connectors: BackupConnector[];
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function refuse(field: string, text: string): never {
  throw new OpsError('E_USAGE', `the backup's ${field} ${text}`, { field });
}

function stringAt(value: unknown, field: string, what = 'a string'): string {
  if (typeof value !== 'string' || value.length === 0) refuse(field, `must be ${what} (got ${JSON.stringify(value) ?? 'nothing'})`);
  return value;
}

/** Checks a parsed backup document; throws OpsError (E_USAGE, exit 2) naming the first bad field. */
export function parseBackup(value: unknown): Backup {
  if (!isPlainObject(value)) refuse('document', 'is not a mapping: write it with `offsetctl export`');
  if (value['kind'] !== BACKUP_KIND) refuse('kind', `must be ${BACKUP_KIND} (got ${JSON.stringify(value['kind'])}): this is not a file \`offsetctl export\` wrote`);
  if (value['version'] !== BACKUP_VERSION) refuse('version', `is ${JSON.stringify(value['version'])}; this offsetctl reads version ${BACKUP_VERSION}`);
  const cluster = isPlainObject(value['cluster']) ? value['cluster'] : refuse('cluster', 'must be a mapping with the url it was exported from');
  const list = Array.isArray(value['connectors']) ? value['connectors'] : refuse('connectors', 'must be a list');
  const seen = new Set<string>();
  const connectors = list.map((raw, i): BackupConnector => {
    const at = `connectors[${i}]`;
    if (!isPlainObject(raw)) refuse(at, 'must be a mapping');
    const name = stringAt(raw['name'], `${at}.name`, 'the connector name');
    if (seen.has(name)) refuse(`${at}.name`, `repeats ${name}: each connector once`);
    seen.add(name);
    const type = raw['type'];
    if (type !== 'source' && type !== 'sink') refuse(`${at}.type`, `must be source or sink (got ${JSON.stringify(type)})`);
    const plugin = isPlainObject(raw['plugin']) ? raw['plugin'] : refuse(`${at}.plugin`, 'must be a mapping {class, version}');
    const config = isPlainObject(raw['config']) ? raw['config'] : refuse(`${at}.config`, 'must be a mapping of strings');
    for (const [k, v] of Object.entries(config)) if (typeof v !== 'string') refuse(`${at}.config.${k}`, `must be a string (got ${JSON.stringify(v)}); Kafka Connect takes every value as a string`);
    const offsets = Array.isArray(raw['offsets']) ? raw['offsets'] : refuse(`${at}.offsets`, 'must be a list (empty when the connector had none)');
    if (offsets.length > 0) {
      try {
        validateOffsetsShape(type, offsets);
      } catch (err) {
        const e = err as OpsError;
        throw new OpsError('E_OFFSETS_INVALID', `the backup's ${at}.${e.message}`, { field: `${at}.${e.field ?? 'offsets'}` });
      }
    }
    const omitted = raw['secretsOmitted'];
    if (omitted !== undefined && !(Array.isArray(omitted) && omitted.every((k) => typeof k === 'string'))) refuse(`${at}.secretsOmitted`, 'must be a list of configuration keys');
    const read = raw['offsetsRead'];
    if (read !== 'running' && read !== 'stopped') refuse(`${at}.offsetsRead`, `must be running or stopped (got ${JSON.stringify(read)})`);
    return {
      name, type, state: stringAt(raw['state'], `${at}.state`, 'a connector state'),
      plugin: { class: stringAt(plugin['class'], `${at}.plugin.class`, 'a class name'), ...(typeof plugin['version'] === 'string' ? { version: plugin['version'] } : {}) },
      config: config as Record<string, string>,
      ...(Array.isArray(omitted) && omitted.length > 0 ? { secretsOmitted: omitted as string[] } : {}),
      offsets: offsets as OffsetEntry[],
      offsetsRead: read,
      readAt: stringAt(raw['readAt'], `${at}.readAt`, 'a time'),
      ...(typeof raw['kafkaClusterId'] === 'string' ? { kafkaClusterId: raw['kafkaClusterId'] } : {}),
      ...(raw['ownKafkaCluster'] === true ? { ownKafkaCluster: true } : {}),
    };
  });
  return {
    kind: BACKUP_KIND, version: BACKUP_VERSION,
    exportedAt: stringAt(value['exportedAt'], 'exportedAt', 'a time'),
    cluster: { url: stringAt(cluster['url'], 'cluster.url', 'a URL'), ...(typeof cluster['version'] === 'string' ? { version: cluster['version'] } : {}), ...(typeof cluster['kafkaClusterId'] === 'string' ? { kafkaClusterId: cluster['kafkaClusterId'] } : {}) },
    connectors,
  };
}

/** The state an imported connector is put in: the exported one, or STOPPED for one that was not running, paused or stopped. */
export function importState(exported: string): 'RUNNING' | 'PAUSED' | 'STOPPED' {
  const s = exported.toUpperCase();
  return s === 'RUNNING' ? 'RUNNING' : s === 'PAUSED' ? 'PAUSED' : 'STOPPED';
}
