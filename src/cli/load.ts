// The CLI's lazy-loading seam, libraries' half (the verbs' half is src/cli/verbs.ts): one named door
// per module a command loads on demand, so start-up tuning lives here and nowhere else. A verb's
// module registers its options eagerly and reaches everything its actions need through these
// doors (`(await load.ops()).planRewind(...)`); esbuild makes each door's target a chunk of its own
// (scripts/build.mjs), so `offsetctl connectors` parses the cluster actions and not the engine.
// test/project/lazy-seam.test.ts keeps import() in these files only. This file imports nothing
// else: every edge out of it is an import(), so a loop through it is no evaluation-order loop
// (.dependency-cruiser.cjs, no-circle).

// The libraries below the faces, one door each (a verb pays for the ones its action uses).
export const arazzoRunner = () => import('../arazzo/runner/index.js');
export const arazzoYaml = () => import('../arazzo/yaml.js');
export const httpClient = () => import('../http/client.js');
export const httpFailover = () => import('../http/failover.js');
export const httpForwardRetry = () => import('../http/forward-retry.js');
export const httpNodeClient = () => import('../http/node-client.js');
export const kafkaGovernanceMarker = () => import('../kafka/governance-marker.js');
export const kafkaMessaging = () => import('../kafka/messaging.js');
export const opsAudit = () => import('../ops/audit/index.js');
export const opsBatch = () => import('../ops/batch/index.js');
export const opsChanges = () => import('../ops/changes/index.js');
export const opsCluster = () => import('../ops/cluster/index.js');
export const opsConnect = () => import('../ops/connect/index.js');
export const opsErrors = () => import('../ops/errors.js');
export const ops = () => import('../ops/index.js');
export const opsMove = () => import('../ops/move/index.js');
export const opsOffsets = () => import('../ops/offsets/index.js');
export const opsPositions = () => import('../ops/positions/index.js');
export const opsReplay = () => import('../ops/replay/index.js');
export const opsVerify = () => import('../ops/verify/index.js');
export const opsDocumentCache = () => import('../ops/workflows/document-cache.js');
export const present = () => import('../present/index.js');
export const sandbox = () => import('../sandbox/index.js');
export const store = () => import('../store/index.js');
export const web = () => import('../web/index.js');

// Packages.
export const commander = () => import('commander');

// The CLI's own action modules and helpers that load only when an action runs (the
// registration modules stay cheap: options and help).
export const actor = () => import('./actor.js');
export const askSecret = () => import('./ask-secret.js');
export const changeRequest = () => import('./change-request.js');
export const abandonRequest = () => import('./commands/abandon-request.js');
export const abandon = () => import('./commands/abandon.js');
export const apply = () => import('./commands/apply.js');
export const batch = () => import('./commands/batch.js');
export const changeFlags = () => import('./commands/change-flags.js');
export const changeOutput = () => import('./commands/change-output.js');
export const changesActions = () => import('./commands/changes-actions.js');
export const clusterActions = () => import('./commands/cluster-actions.js');
export const exportRequest = () => import('./commands/export-request.js');
export const historyActions = () => import('./commands/history-actions.js');
export const importRequest = () => import('./commands/import-request.js');
export const importUndoRequest = () => import('./commands/import-undo-request.js');
export const moveBackup = () => import('./commands/move-backup.js');
export const moveRecovery = () => import('./commands/move-recovery.js');
export const moveRequest = () => import('./commands/move-request.js');
export const moveUndoRequest = () => import('./commands/move-undo-request.js');
export const opsCommands = () => import('./commands/ops.js');
export const progress = () => import('./commands/progress.js');
export const replay = () => import('./commands/replay.js');
export const rewindPositions = () => import('./commands/rewind-positions.js');
export const runEvidence = () => import('./commands/run-evidence.js');
export const say = () => import('./commands/say.js');
export const storeActions = () => import('./commands/store-actions.js');
export const verifyAfter = () => import('./commands/verify-after.js');
export const workflowActions = () => import('./commands/workflow-actions.js');
export const workflowFix = () => import('./commands/workflow-fix.js');
export const workflowLint = () => import('./commands/workflow-lint.js');
export const workflowUpgrade = () => import('./commands/workflow-upgrade.js');
export const configFile = () => import('./config-file.js');
export const configYaml = () => import('./config-yaml.js');
export const confirm = () => import('./confirm.js');
export const connection = () => import('./connection.js');
export const consoleGovernance = () => import('./console-governance.js');
export const documentCache = () => import('./document-cache.js');
export const governingContext = () => import('./governing-context.js');
export const governanceCheck = () => import('./governance-check.js');
export const halt = () => import('./halt.js');
export const historyStore = () => import('./history-store.js');
export const identityCache = () => import('./identity-cache.js');
export const kafkaSettings = () => import('./kafka-settings.js');
export const offsetsInput = () => import('./offsets-input.js');
export const offsetsLimits = () => import('./offsets-limits.js');
export const planFile = () => import('./plan-file.js');
export const renderAudit = () => import('./render/audit.js');
export const renderDiff = () => import('./render/diff.js');
export const renderForwardTargets = () => import('./render/forward-targets.js');
export const renderOpsPlan = () => import('./render/ops-plan.js');
export const renderTable = () => import('./render/table.js');
export const renderTakeover = () => import('./render/takeover.js');
export const sourceDb = () => import('./source-db.js');
export const storeChoice = () => import('./store-choice.js');
export const testHooks = () => import('./test-hooks.js');
