// The positions room: where in Kafka's logs a connector's offsets point. Positions (a time,
// earliest, latest, shift-by, an offset) turned into target offsets from the broker, a sink's
// topics, the broker checks of a sink's targets, and targets beyond a partition's end.
export { hasPosition, parsePosition, parseTime, planPositions, describePosition } from './positions.js';
export type { Position, PositionFlags, PartitionFacts, PositionNote, PositionRow, PositionPlan } from './positions.js';
import { refusedBeforeAnyChange } from '../errors.js';
import { positionTargets as targetsOfPosition } from './positions-targets.js';

export { positionScope } from './positions-targets.js';
// Looking positions up changes nothing: an error answer of Kafka Connect here exits 2.
export const positionTargets = refusedBeforeAnyChange(targetsOfPosition);
export type { PositionScope, PositionTargets, TargetsConnection } from './positions-targets.js';
export { checkSinkTargets } from './sink-preflight.js';
export { fileSourceForwardTargets, sinkForwardTargets, type ForwardTarget } from './forward-targets.js';
