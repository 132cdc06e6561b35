// The replay room: `offsetctl replay`, what operators mean by "rewind" for a Debezium source —
// an incremental snapshot signal sent through the connector's Kafka signal channel (planned,
// confirmed by the face, journaled as a run and audited), and the re-read rows seen on the
// table's topic. No offset changes (docs/connectors.md, "Replaying a Debezium table").
export { planReplay, type ReplayPlan, type ReplayRequest } from './plan-replay.js';
export { countReplayRows } from './count-rows.js';
export { applyReplay, dryRunReplay, REPLAY_WORKFLOW, type ReplayOptions, type ReplayOutcome } from './run-replay.js';
