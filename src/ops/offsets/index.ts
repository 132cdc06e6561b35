// The offsets room: the one offsets module (entry type, parser, partition key, the one equality
// rule), the shape each connector type allows, a plugin's own rules, the diff, the size limits
// of a set, and the reader of offsets JSON as a person wrote it.
export {
  offsetEntries, partitionKey, sameOffset, offsetKey, canonicalJson, findMismatches, describeMismatches, planSnapshotRestore, planUndoOfWrite,
} from './offsets.js';
export type { OffsetEntry, ConnectorOffsets, ConnectorType, OffsetMismatch } from './offsets.js';
export { validateOffsetsShape } from './offsets-shape.js';
export { checkPluginRules } from './plugin-rules.js';
export { diffOffsets } from './diff.js';
export type { OffsetDiff, OffsetDiffEntry, DiffKind, DiffOptions } from './diff.js';
export { DEFAULT_LIMITS, LIMIT_SOURCES, resolveLimits, checkPartitionCount, planChunks, type OffsetLimits, type LimitFlags } from './limits.js';
export { parseOffsetsJson } from './offsets-json.js';
