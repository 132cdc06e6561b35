// Pre-flight: everything checked and shown before a change, when bad input still costs nothing.
// One import point for the operations (rewind, reset, rollback) and the CLI.
export { validateOffsetsShape, offsetsList, partitionKey, canonicalJson } from './offsets-shape.js';
export type { ConnectorOffset, ConnectorOffsets, ConnectorType } from './offsets-shape.js';
export { readOffsetsInput } from './preflight-input.js';
export { confirm } from './preflight-confirm.js';
export type { ConfirmOptions } from './preflight-confirm.js';
export { diffOffsets, renderDiff } from './diff.js';
export type { OffsetDiff, OffsetDiffEntry, DiffKind, DiffOptions, RenderDiffOptions } from './diff.js';
export { getConnectorInfo, getOffsets, listConnectors, listConnectorNames } from './connect-client.js';
export type { ConnectorInfo, ConnectorSummary, TaskState } from './connect-client.js';
export { OpsError } from './errors.js';
