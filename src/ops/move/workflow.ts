// The move workflow (workflows/move-connector.arazzo.yaml) as ops runs it: both source
// descriptions pointed at their cluster (fromCluster, toCluster), and the map from its step ids
// to the safety rules the journal enforces (snapshot before the first change, verification).
import { join } from 'node:path';
import { assertValid, loadSources, validateArazzo, type SourceOptions, type Workflow } from '../../arazzo/index.js';
import type { OperationSpec } from '../workflows/index.js';
import { loadShippedDocument, WORKFLOWS_DIR, type OpsWorkflow } from '../workflows/index.js';

export const MOVE_WORKFLOW = { file: join(WORKFLOWS_DIR, 'move-connector.arazzo.yaml'), workflowId: 'move-connector' } as const;
export const IMPORT_WORKFLOW = { file: join(WORKFLOWS_DIR, 'import-connector.arazzo.yaml'), workflowId: 'import-connector' } as const;
export const DELETE_WORKFLOW = { file: join(WORKFLOWS_DIR, 'delete-connector.arazzo.yaml'), workflowId: 'delete-connector' } as const;

/** The step whose success means the new connector exists on the target cluster. */
export const CREATE_STEPS = ['createTarget', 'replaceTargetConfig'] as const;

async function load(doc: { file: string; workflowId: string }, servers: SourceOptions['servers']): Promise<OpsWorkflow> {
  const loaded = await loadShippedDocument(doc.file);
  assertValid(loaded, validateArazzo(loaded));
  const registry = await loadSources(loaded, { servers });
  const workflow = (loaded.value as { workflows: Workflow[] }).workflows.find((w) => w.workflowId === doc.workflowId);
  if (!workflow) throw new Error(`${doc.file}: workflow ${doc.workflowId} is missing (the installation is damaged)`);
  return {
    // `kind` names the shipped documents of the single-cluster operations; a move's is its own.
    kind: 'restore', file: doc.file, workflowId: doc.workflowId, registry,
    stepOrder: workflow.steps.map((s) => s.stepId),
    decisionSteps: new Set(workflow.steps.filter((s) => (s.onSuccess?.length ?? 0) > 0).map((s) => s.stepId)),
  };
}

/** The move workflow with fromCluster → `fromUrl` and toCluster → `toUrl`. */
export function loadMoveWorkflow(fromUrl: string, toUrl: string): Promise<OpsWorkflow> {
  return load(MOVE_WORKFLOW, { byName: { fromCluster: fromUrl, toCluster: toUrl } });
}

export function loadImportWorkflow(url: string): Promise<OpsWorkflow> {
  return load(IMPORT_WORKFLOW, { all: url });
}

export function loadDeleteWorkflow(url: string): Promise<OpsWorkflow> {
  return load(DELETE_WORKFLOW, { all: url });
}

const common = { initialStateStep: 'readInitialState', stopStep: 'stopConnector', waitForRunningStep: 'waitForRunning', workflow: 'restore' } as const;

/**
 * A move (and a copy): the snapshot is the original's offsets after the stop; the first change is
 * the create on the target. Verification is the move journal's own (what was written depends on
 * offsetsFrom), so the spec has none.
 */
export const MOVE_SPEC: OperationSpec = {
  ...common, operation: 'move',
  snapshotStep: 'captureOffsets', snapshotOutput: 'sourceOffsets', persistSnapshot: true,
  mutatingStep: 'createTarget', messageOutput: 'alterMessage',
};

/** A move's recovery inside the failed run (a move back or the original's state): no snapshot of its own. */
export const MOVE_RECOVERY_SPEC: OperationSpec = { ...MOVE_SPEC, operation: 'recovery', persistSnapshot: false };

/** An import: the snapshot is what the new connector had before the write (a sink's group may hold offsets). */
export const IMPORT_SPEC: OperationSpec = {
  ...common, operation: 'import', stopStep: 'createConnector' as OperationSpec['stopStep'],
  snapshotStep: 'captureOffsets', snapshotOutput: 'offsetsBeforeImport', persistSnapshot: true,
  mutatingStep: 'writeOffsets', messageOutput: 'alterMessage',
  verify: { step: 'verifyOffsets', output: 'importedOffsets' },
};

/** Deleting what an import or a copy created (its rollback): a snapshot of what is deleted. */
export const DELETE_SPEC: OperationSpec = {
  ...common, operation: 'rollback',
  snapshotStep: 'captureOffsets', snapshotOutput: 'offsetsBeforeDelete', persistSnapshot: true,
  mutatingStep: 'deleteConnector', messageOutput: 'alterMessage',
};
