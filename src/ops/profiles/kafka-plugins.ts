// Kafka's own plugins (FileStream, MirrorMaker 2): their whole position is in Connect's offsets,
// which offsetctl already checks (offsets/plugin-rules.ts, positions/); nothing more to say.
import type { ConnectorProfile } from './profile.js';

export const kafkaPlugins: ConnectorProfile = {
  name: 'kafka',
  classes: [
    'org.apache.kafka.connect.file.FileStreamSourceConnector', 'org.apache.kafka.connect.file.FileStreamSinkConnector',
    'org.apache.kafka.connect.mirror.MirrorSourceConnector', 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector',
    'org.apache.kafka.connect.mirror.MirrorHeartbeatConnector',
  ],
  check: () => ({ profile: 'kafka', facts: [], warnings: [] }),
};
