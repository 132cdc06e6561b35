// The connect room: Kafka Connect's REST answers as ops reads them: the connectors, each one's
// type, config, state and tasks (settled when a rebalance is under way), and its offsets.
export { getConnectorInfo, getConnectorTopics, getSettledConnectorInfo, getOffsets, listConnectors, listConnectorNames } from './connect-client.js';
export type { ConnectorInfo, ConnectorSummary, TaskState } from './connect-client.js';
