// The sandbox: a real Kafka broker and Kafka Connect workers on loopback for tests, demos and
// trying workflows locally. See docs/sandbox.md.
export { SandboxError, type SandboxErrorCode } from './errors.js';
export { DEFAULT_KAFKA_VERSION, MIN_KAFKA_VERSION } from './kafka-versions.js';
export { runSandboxDemo, type SandboxDemoOptions, type SandboxDemoResult } from './demo.js';
export { readEvents, runCdcDemo, type CdcDemoOptions, type CdcDemoResult } from './demo-cdc.js';
export { resolveSandboxDir, sandboxCommand, sandboxLayout, projectRoot, type SandboxLayout } from './layout.js';
export { sandboxUp, type SandboxUpOptions, type SandboxUpResult } from './up.js';
export { sandboxDown, type SandboxDownResult, type SandboxDownOptions } from './down.js';
export { killSandboxWorker, restartSandboxWorker } from './workers.js';
export { sandboxStatus, type SandboxStatus, type SandboxProcessStatus, type SandboxCluster } from './status.js';
export { CONNECT_CLUSTERS, laneCluster, MAX_LANES, parseWorkerRole, workerRole, type ConnectClusterName } from './clusters.js';
export { sandboxLogs, sandboxLogFiles, type SandboxLogsOptions } from './logs.js';
export { ConnectRest, ConnectRestError, type ConnectorStatus, type ConnectorOffsets } from './connect-rest.js';
export { createFilePipeline, readLines, uniqueName, waitForLines, waitForSinkCommitted, waitForSourceCaughtUp, type FilePipeline, type FilePipelineOptions } from './file-pipeline.js';
export { teamStoreDown, teamStoreOfUp, teamStoreStatus, teamStoreUp, type TeamStore } from './team-store.js';
export { findPgBin, restartPgServer, startPgServer, stopPgServer, type PgServer } from './postgres-server.js';
export { cdcPostgresStatus, cdcPostgresUp, cdcPostgresDown, type CdcPostgres } from './cdc-postgres.js';
export { KNOWN_PLUGINS, parsePluginArg, type LoadedPlugin } from './plugins.js';
export type { IcebergCatalogInfo } from './iceberg-catalog.js';
