// The CLI's lazy-loading seam, libraries' half (the verbs' half is src/cli/verbs.ts), so start-up
// tuning lives here and nowhere else. Its shape:
// - a verb's registration module (options, help, argument checks; named in verbs.ts) reaches its
//   actions through ONE door per action module: `(await load.opsActions()).rewind(names, opts, cmd)`;
// - an action module is only ever loaded through its door, so it imports what it needs statically
//   (its static closure costs nothing to the other verbs' start-up);
// - the other doors are for heavy or rarely needed libraries that a cheap path must not pay for
//   (the console, the sandbox, the store, the engine's runner, the Kafka client, undici), and for
//   the helpers the cheap verbs' shared modules (connection.ts, main.ts) load only when needed.
// esbuild makes each door's target a chunk of its own (scripts/build.mjs), so `offsetctl connectors`
// parses the cluster actions and not the engine. test/project/lazy-seam.test.ts keeps import() in
// these files only and checks the shape above. This file imports nothing else: every edge out of it
// is an import(), so a loop through it is no evaluation-order loop (.dependency-cruiser.cjs, no-circle).

// The action modules, one door each (registration modules call only these and library doors; an
// action module calls another's door for a branch it seldom takes).
export const abandon = () => import('./commands/abandon.js');
export const applyActions = () => import('./commands/apply-actions.js');
export const auditActions = () => import('./commands/audit-actions.js');
export const batch = () => import('./commands/batch.js');
export const changesActions = () => import('./commands/changes-actions.js');
export const clusterActions = () => import('./commands/cluster-actions.js');
export const historyActions = () => import('./commands/history-actions.js');
export const lifecycleActions = () => import('./commands/lifecycle-actions.js');
export const moveActions = () => import('./commands/move-actions.js');
export const moveRecovery = () => import('./commands/move-recovery.js');
export const moveBackup = () => import('./commands/move-backup.js');
export const opsActions = () => import('./commands/ops-actions.js');
export const policyActions = () => import('./commands/policy-actions.js');
export const replayActions = () => import('./commands/replay-actions.js');
export const sandboxActions = () => import('./commands/sandbox-actions.js');
export const runEvidence = () => import('./commands/run-evidence.js');
export const storeActions = () => import('./commands/store-actions.js');
export const uiActions = () => import('./commands/ui-actions.js');
export const workflowActions = () => import('./commands/workflow-actions.js');
export const workflowLint = () => import('./commands/workflow-lint.js');
export const workflowUpgrade = () => import('./commands/workflow-upgrade.js');

// The libraries below the faces, one door each, for what loads only sometimes or costs much.
export const arazzoRunner = () => import('../arazzo/runner/index.js');
export const httpClient = () => import('../http/client.js');
export const httpFailover = () => import('../http/failover.js');
export const httpForwardRetry = () => import('../http/forward-retry.js');
export const httpNodeClient = () => import('../http/node-client.js');
export const kafkaGovernanceMarker = () => import('../kafka/governance-marker.js');
export const kafkaMessaging = () => import('../kafka/messaging.js');
export const opsCluster = () => import('../ops/cluster/index.js');
export const opsConnect = () => import('../ops/connect/index.js');
export const ops = () => import('../ops/index.js');
export const opsPositions = () => import('../ops/positions/index.js');
export const opsVerify = () => import('../ops/verify/index.js');
export const opsDocumentCache = () => import('../ops/workflows/document-cache.js');
export const sandbox = () => import('../sandbox/index.js');
export const store = () => import('../store/index.js');
export const web = () => import('../web/index.js');

// Packages.
export const commander = () => import('commander');

// The CLI helpers that the cheap paths' shared modules (main.ts, connection.ts, source-db.ts) load
// only when needed: yaml behind config-file, SQLite behind store-choice, the identity look-ups.
export const configFile = () => import('./config-file.js');
export const configYaml = () => import('./config-yaml.js');
export const connection = () => import('./connection.js');
export const documentCache = () => import('./document-cache.js');
export const governingContext = () => import('./governing-context.js');
export const identityCache = () => import('./identity-cache.js');
export const kafkaSettings = () => import('./kafka-settings.js');
export const storeChoice = () => import('./store-choice.js');
