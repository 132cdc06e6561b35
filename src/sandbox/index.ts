// The sandbox: a real Kafka broker and Kafka Connect workers on loopback for tests, demos and
// trying workflows locally. See docs/sandbox.md.
export { SandboxError, type SandboxErrorCode } from './errors.js';
export { resolveSandboxDir, sandboxLayout, projectRoot, type SandboxLayout } from './layout.js';
export { sandboxUp, type SandboxUpOptions, type SandboxUpResult } from './up.js';
export { sandboxDown, type SandboxDownResult } from './down.js';
export { killSandboxWorker, restartSandboxWorker } from './workers.js';
export { sandboxStatus, type SandboxStatus, type SandboxProcessStatus } from './status.js';
export { sandboxLogs, sandboxLogFiles, type SandboxLogsOptions } from './logs.js';
export { ConnectRest, ConnectRestError, type ConnectorStatus, type ConnectorOffsets } from './connect-rest.js';
export { createFilePipeline, readLines, uniqueName, waitForLines, waitForSinkCommitted, waitForSourceCaughtUp, type FilePipeline, type FilePipelineOptions } from './file-pipeline.js';
