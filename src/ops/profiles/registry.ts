// Which profile a connector gets: by its connector.class, full or short (Connect's aliases are
// the class's last segment). Unknown plugins get the generic profile.
import { debeziumPostgres } from './debezium-postgres.js';
import { generic } from './generic.js';
import { kafkaPlugins } from './kafka-plugins.js';
import type { ConnectorProfile } from './profile.js';
import { icebergSink, jdbcSink } from './sinks.js';

const PROFILES: readonly ConnectorProfile[] = [kafkaPlugins, debeziumPostgres, jdbcSink, icebergSink];

export function profileFor(config: Record<string, string>): ConnectorProfile {
  const cls = config['connector.class']?.trim() ?? '';
  for (const profile of PROFILES) {
    for (const known of profile.classes) {
      const short = known.split('.').pop() ?? known;
      if (cls === known || cls === short || cls === short.replace(/Connector$/, '')) return profile;
    }
  }
  return generic;
}
