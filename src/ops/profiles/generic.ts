// Any plugin offsetctl has no profile for. Kafka Connect's own hint ("if this connector manages
// offsets externally, they will need to be manually altered in the system that the connector
// uses") arrives only after the change; the generic profile says it in the dry run, before.
import { changesOffsets, type ConnectorProfile } from './profile.js';

export const generic: ConnectorProfile = {
  name: 'generic',
  classes: [],
  check(c) {
    const cls = c.connector.config['connector.class'] ?? '(no connector.class)';
    if (!changesOffsets(c.operation) && c.operation !== 'copy') return { profile: 'generic', facts: [], warnings: [] };
    const what = c.operation === 'copy' ? 'the copy starts from these offsets' : `this ${c.operation} changes only the offsets Kafka Connect keeps`;
    return {
      profile: 'generic', facts: [],
      warnings: [`${c.connector.name} runs ${cls}, a plugin offsetctl has no profile for (docs/connectors.md): ${what}; if the connector manages its ` +
        `position outside Kafka Connect too (a replication slot, a table of its own, transactions in the target system), that position is not moved and ` +
        `must be changed there by hand. Kafka Connect says the same only after the change`],
    };
  },
};
