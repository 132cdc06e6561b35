// Offset rules of the connector plugins that ship with Kafka. Their `alterOffsets` refuse
// these shapes only after the connector has been stopped (a 500 mid-run); checking them in
// the pre-flight turns that into a refusal that names the field, with nothing changed.
// Rules read from the plugins' alterOffsets (Kafka 3.6+); a `null` offset (removal) is
// always allowed. Unknown plugins get the generic shape check only.
import { OpsError } from '../errors.js';
import type { OffsetEntry as Entry } from './offsets.js';

/** How many of the entries a summed-up warning names. */
const SHOWN = 10;

interface PluginRule {
  /** Keys every partition must carry. */
  partitionKeys: string[];
  /** The one offset key, and the values it may take. */
  offsetKey: string;
  offsetRule: 'non-negative' | 'zero';
}

const RULES: Record<string, PluginRule> = {
  'org.apache.kafka.connect.file.FileStreamSourceConnector': { partitionKeys: ['filename'], offsetKey: 'position', offsetRule: 'non-negative' },
  'org.apache.kafka.connect.mirror.MirrorSourceConnector': { partitionKeys: ['cluster', 'topic', 'partition'], offsetKey: 'offset', offsetRule: 'non-negative' },
  'org.apache.kafka.connect.mirror.MirrorCheckpointConnector': { partitionKeys: ['group', 'topic', 'partition'], offsetKey: 'offset', offsetRule: 'zero' },
  'org.apache.kafka.connect.mirror.MirrorHeartbeatConnector': { partitionKeys: ['sourceClusterAlias', 'targetClusterAlias'], offsetKey: 'offset', offsetRule: 'zero' },
};

/**
 * Checks target offsets against the rules of a known plugin; returns warnings for entries
 * Connect accepts but that will not affect the connector (e.g. another file's partition).
 *
 * @example checkPluginRules({'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', file: '/in.txt'}, entries)
 */
export function checkPluginRules(config: Record<string, string>, entries: readonly Entry[]): string[] {
  const connectorClass = config['connector.class'] ?? '';
  const rule = RULES[connectorClass] ?? RULES[`org.apache.kafka.connect.mirror.${connectorClass}`] ?? RULES[`org.apache.kafka.connect.file.${connectorClass}`];
  if (!rule) return [];
  const plugin = connectorClass.split('.').pop();
  const warnings: string[] = [];
  // Entries naming another file than the one read now: one warning for all of them, however many.
  const otherFiles: string[] = [];
  let otherCount = 0;
  entries.forEach((entry, i) => {
    for (const key of rule.partitionKeys) {
      if (!(key in entry.partition)) {
        throw new OpsError('E_OFFSETS_INVALID', `offsets[${i}].partition.${key}: ${plugin} partitions need "${key}" (${rule.partitionKeys.join(', ')})`, { field: `offsets[${i}].partition.${key}` });
      }
    }
    if (entry.offset === null) return;
    const value = entry.offset[rule.offsetKey];
    const field = `offsets[${i}].offset.${rule.offsetKey}`;
    if (value === undefined) throw new OpsError('E_OFFSETS_INVALID', `${field}: ${plugin} offsets are {"${rule.offsetKey}": <number>} or null`, { field });
    if (typeof value !== 'number' || !Number.isInteger(value)) throw new OpsError('E_OFFSETS_INVALID', `${field}: must be an integer (got ${JSON.stringify(value)})`, { field });
    if (rule.offsetRule === 'non-negative' && value < 0) throw new OpsError('E_OFFSETS_INVALID', `${field}: must be ≥ 0 (got ${value}); 0 replays from the start`, { field });
    if (rule.offsetRule === 'zero' && value !== 0) throw new OpsError('E_OFFSETS_INVALID', `${field}: ${plugin} only accepts 0 (or a null offset to remove the partition); got ${value}`, { field });
    if (rule.partitionKeys[0] === 'filename' && config['file'] !== undefined && entry.partition['filename'] !== config['file']) {
      if (otherFiles.length < SHOWN) otherFiles.push(`offsets[${i}] "${String(entry.partition['filename'])}"`);
      otherCount++;
    }
  });
  if (otherCount === 1) warnings.push(`${otherFiles[0]!.replace(/^(offsets\[\d+\]) /, '$1.partition.filename ')} is not the file the connector reads now ("${config['file']}"): Connect keeps it, but it will not change what the connector reads`);
  else if (otherCount > 1) {
    warnings.push(`${otherCount.toLocaleString('en-US')} partitions name another file than the one the connector reads now ("${config['file']}"): Connect keeps them, but they will not change what the connector reads; ${otherCount > SHOWN ? `first ${SHOWN} shown` : 'all shown'}: ${otherFiles.join(', ')}`);
  }
  return warnings;
}
