// The package's optional Kafka transport for AsyncAPI steps: offsetctl's own (src/kafka/messaging.ts,
// over @platformatic/kafka, which the user installs: an optional peer dependency). The engine does
// not import it; a user passes it in (`messages: createKafkaTransport()`) or names it on the CLI
// (`--transport @offsetctl/arazzo/kafka`).
import type { MessageTransport } from '../../src/arazzo/index.js';
import { createKafkaTransport } from '../../src/kafka/messaging.js';

export { createKafkaTransport };
export type { KafkaTransportOptions } from '../../src/kafka/messaging.js';

/** For `arazzo run --transport @offsetctl/arazzo/kafka`: plaintext, bootstrap from each AsyncAPI server or `--server <name>=<host:port>`. */
export function createTransport(): MessageTransport {
  return createKafkaTransport({ clientId: 'arazzo' });
}
